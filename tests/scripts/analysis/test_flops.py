#!/usr/bin/env python3
"""slanalysis.flops: the FLOP counter and parameter count from the model shapes."""
import json
import os

import analysis_env as env
from slanalysis.flops import flops_per_step, parameter_count

TCFG = {"model": {"type": "transformer", "d_model": 4, "ff": 8, "encoder_layers": 1,
                  "decoder_layers": 1, "vocab_size": 10}, "data": {"batch_tokens": 10}}
RCFG = {"model": {"type": "rnn", "emb_dim": 2, "enc_dim": 3, "dec_dim": 4, "enc_layers": 1,
                  "vocab_size": 10}, "data": {"batch_tokens": 10}}


class Flops(env.Case):
    def test_transformer(self):
        # src_per_tgt 1, target length 5, 10 target tokens. MACs: enc 10*(4*16+2*4*8)=1280,
        # enc att 10*2*5*4=400, dec 10*(6*16+64)=1600, cross k/v 10*2*16=320,
        # dec att 10*2*(5+5)*4=800, output 10*4*10=400 -> 4800; FLOPs 6 x MACs
        self.close(flops_per_step(TCFG, 10, 1.0, 5.0)[0], 6 * 4800)

    def test_rnn(self):
        # C = 6. enc 10*2*(18+27)=900, keys 10*6*4=240, dec GRUs 10*(24+48+72+48)=1920,
        # attention 10*(16+5*(4+6))=660, deep output 10*12*2=240, output 10*2*10=200 -> 4160
        self.close(flops_per_step(RCFG, 10, 1.0, 5.0)[0], 6 * 4160)

    def test_unknown_model(self):
        with self.assertRaises(ValueError):
            flops_per_step({"model": {"type": "lstm", "vocab_size": 3}, "data": {"batch_tokens": 1}})

    def test_parameter_count(self):
        # D 4, F 8, V 10, one layer each, tied: attention 4*(16+4)=80, ffn (32+8)+(32+4)=76,
        # encoder 80+76+2*2*4=172, decoder 2*80+76+3*2*4=260, one table 10*4=40, output bias 10
        self.assertEqual(parameter_count(TCFG), 40 + 10 + 172 + 260)
        # The committed runs' summary.json parameter counts (the counter reads the real shapes)
        for run, want in (("transformer/transformer-4node-dense", 363472),
                          ("rnn/rnn-4node-dense", 551568)):
            path = os.path.join(env.REPO, "results", "small", run, "config.json")
            if os.path.isfile(path):
                with open(path) as f:
                    self.assertEqual(parameter_count(json.load(f)), want, run)


if __name__ == "__main__":
    env.main()
