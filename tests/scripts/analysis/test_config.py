#!/usr/bin/env python3
"""slanalysis.config: dotted keys, matching, "extends" chains."""
import json
import os

import analysis_env as env
from slanalysis.config import dotted, load_config, matches, model_vocab


class Config(env.Case):
    def test_dotted_and_matches(self):
        c = {"model": {"type": "rnn", "emb_dim": 2}, "data": {"vocab_size": 10}}
        self.assertEqual(dotted(c, "model.type"), "rnn")
        self.assertIsNone(dotted(c, "model.missing.deeper"))
        self.assertTrue(matches(c, {"model.type": "rnn", "model.emb_dim": 2.0000001}))
        self.assertFalse(matches(c, {"model.emb_dim": 3}))
        self.assertFalse(matches(c, {"model.nope": 1}))
        self.assertEqual(model_vocab(c), 10)

    def test_extends_chain(self):
        # as config_loader.cpp: the top file wins, objects merge, paths relative to the file
        with open(os.path.join(self.work, "base.json"), "w") as f:
            json.dump({"model": {"type": "rnn", "emb_dim": 9}, "data": {"batch_tokens": 10}}, f)
        os.makedirs(os.path.join(self.work, "sub"))
        with open(os.path.join(self.work, "sub", "top.json"), "w") as f:
            json.dump({"extends": "../base.json", "model": {"emb_dim": 2}}, f)
        merged = load_config(os.path.join(self.work, "sub", "top.json"))
        self.assertEqual(merged, {"model": {"type": "rnn", "emb_dim": 2}, "data": {"batch_tokens": 10}})


if __name__ == "__main__":
    env.main()
