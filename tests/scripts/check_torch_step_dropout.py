#!/usr/bin/env python3
"""ctest torch_step_dropout_matches_ours: bench/gpu/torch_step.py's model drops where ours does
(configs/paper: dropout 0.1 on embeddings and sub-layer outputs, attention_dropout 0,
relu_dropout 0) and nowhere else (issue 32):
  1. the dropout sites and their rates, by name;
  2. with the 0.1 sites set to 0, a training-mode forward equals the eval-mode one bit for bit
     (no dropout left anywhere), while the same with plain nn.Transformer*Layer(dropout=0.1)
     differs (the check would catch attention or ReLU dropout).
Exit 77 (skip) without torch.
  check_torch_step_dropout.py REPO"""
import importlib.util
import os
import sys

try:
    import torch
except ImportError:
    print("skipped: this Python has no torch")
    sys.exit(77)


def main(repo):
    spec = importlib.util.spec_from_file_location("torch_step", os.path.join(repo, "bench/gpu/torch_step.py"))
    ts = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(ts)
    V, d, heads, ff, L = 50, 16, 2, 32, 2
    torch.manual_seed(0)
    m = ts.Transformer(V, d, heads, ff, L)

    expected = {"embeddings": 0.1}
    for i in range(L):
        expected.update({f"enc.{i}.self_attn.weights": 0.0, f"enc.{i}.dropout": 0.0,
                         f"enc.{i}.dropout1": 0.1, f"enc.{i}.dropout2": 0.1})
        expected.update({f"dec.{i}.self_attn.weights": 0.0, f"dec.{i}.multihead_attn.weights": 0.0,
                         f"dec.{i}.dropout": 0.0, f"dec.{i}.dropout1": 0.1,
                         f"dec.{i}.dropout2": 0.1, f"dec.{i}.dropout3": 0.1})
    got = ts.dropout_sites(m)
    if got != expected:
        diff = {k: (got.get(k), expected.get(k)) for k in set(got) | set(expected) if got.get(k) != expected.get(k)}
        print(f"FAIL: dropout sites differ from ours (name: (torch_step, ours)): {diff}")
        return 1

    g = torch.Generator().manual_seed(3)
    src = torch.randint(4, V, (3, 5), generator=g)
    tgt = torch.randint(4, V, (3, 4), generator=g)
    causal = torch.triu(torch.full((4, 4), float("-inf")), 1)

    def train_equals_eval(model):
        model.p = 0.0  # the sites ours has: off, so any difference is dropout we do not have
        for name, mod in model.named_modules():
            if isinstance(mod, torch.nn.Dropout) and name.rsplit(".", 1)[-1] in ("dropout1", "dropout2", "dropout3"):
                mod.p = 0.0
        model.train()
        torch.manual_seed(5)
        a = model(src, tgt, causal)
        model.eval()
        b = model(src, tgt, causal)  # grad enabled: the same (slow) path as training
        return torch.equal(a, b)

    if not train_equals_eval(m):
        print("FAIL: torch_step.py's model still drops somewhere ours does not")
        return 1
    torch.manual_seed(0)
    plain = ts.Transformer(V, d, heads, ff, L, like_ours=False)
    if train_equals_eval(plain):
        print("FAIL: the check cannot tell: plain nn.Transformer*Layer(dropout=0.1) passed it too")
        return 1
    print(f"ok: {len(expected)} dropout sites as ours; train == eval with them at 0 "
          "(plain nn.Transformer*Layer: differs, as it drops attention weights and ReLU outputs)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
