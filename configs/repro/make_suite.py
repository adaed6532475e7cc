#!/usr/bin/env python3
"""Writes the reproduction-v2 suite (issue 13) into this folder: transformer-model.json,
rnn-model.json (each extends configs/small/<model>.json, so model defaults fixed there flow
in; only the sizes, data, schedule and distributed settings are pinned here) and the suites
transformer.json, rnn.json. Every setting and why: README.md next to this file.

Usage: python3 configs/repro/make_suite.py        (rewrites the four files; deterministic)
"""
import json
import math
import os

HERE = os.path.dirname(os.path.abspath(__file__))

N = 4                      # nodes of the distributed runs
S = 3000                   # updates of every 4-node run (and of the equal-updates 1-node run)
VALID_EVERY = 100          # 4-node runs: 30 validations, 3.3% of the run apart
LR, WARMUP = 0.002, 200    # peak lr and warm-up as v1
# Linear decay to 0 at max_steps (v1 and the first pilot used inverse square root, which never
# anneals: 4-node dense had not plateaued after 3000 updates, see PILOT.md). Annealing to 0 at
# S gives every method its plateau at the same S, so targets come from a finished run.
DECAY = "linear"
SEEDS = (1, 2, 3)
K_PAPER = 500
K_SWEEP = (100, 500, 0)    # 0 = never average

SHARED = {
    "data": {"corpus": "data/debmsg-de-en", "src": "de", "tgt": "en", "vocab_size": 2000,
             "batch_tokens": 400, "max_length": 48, "maxi_batch": 100, "dev_sentences": 300,
             "test_sentences": 1000, "spm_dir": "cache/spm/small-suite"},
    "train": {"max_steps": S, "time_limit_s": 0, "lr": LR, "warmup": WARMUP, "decay": DECAY,
              "clip_norm": 1.0, "log_every": 10, "checkpoint_every": 500},
    "valid": {"every": VALID_EVERY, "max_sentences": 300, "batch_sentences": 100,
              "test_at_end": True,
              "decode": {"beam_size": 1, "max_length_factor": 1.5, "max_length_offset": 5}},
    "cluster": {"backend": "sim", "nodes": N, "blas_threads": 1},
    "distributed": {"method": "dense", "drop_ratio": 0.99, "threshold": "exact",
                    "drop_warmup_steps": 200, "average_every": 0, "average_moments": False,
                    "encoding": "pairs32", "network": "1gbe"},
}

MODELS = {
    "transformer": {"extends": "../small/transformer.json",
                    # qkv_init pinned to what the suite started with (configs/small later
                    # switched to "fused", issue 12), so every run of the suite is alike.
                    "model": {"d_model": 64, "heads": 4, "ff": 256, "encoder_layers": 2,
                              "decoder_layers": 2, "qkv_init": "separate"}},
    "rnn": {"extends": "../small/rnn.json",
            # emb_scale pinned to what the suite ran with (configs/small/rnn.json later
            # switched to "sqrt_dim", issue 12), so a resumed or re-run suite is the same.
            "model": {"emb_dim": 64, "enc_dim": 64, "dec_dim": 128, "enc_layers": 1,
                      "emb_scale": "none"}},
}
# The sparse+local variant given 3 seeds, fixed before the run from v1's results
# (results/small: lowest last dev CE among the sparse+local variants at 4 nodes).
BEST_LOCAL = {"transformer": "partial", "rnn": "error"}
# Added after the suite's seed-1 runs, and marked so in README.md: for the RNN the
# pre-registered choice was wrong (seed 1 at K = 500: sparse+partial dev CE 2.246, test BLEU
# 31.40; sparse+error 2.594, 27.59), so the variant that seed 1 measured best also gets seeds
# 2 and 3. Appended at the end of the suite, so no earlier experiment changes.
MEASURED_BEST_LOCAL = {"rnn": "partial"}


def exp(model, name, nodes, sets, steps=S, every=VALID_EVERY):
    return {"name": f"{model}-{name}", "config": f"{model}-model.json", "nodes": nodes,
            "set": sets + [f"train.max_steps={steps}", f"valid.every={every}"]}


def seeded(model, name, nodes, sets, seeds):
    # `seed` also seeds SentencePiece, and a cached model trained with another seed is refused:
    # seeds other than 1 get their own SentencePiece directory (seed 1 keeps SHARED's).
    def spm(s):
        return [] if s == 1 else [f"data.spm_dir={SHARED['data']['spm_dir']}-s{s}"]
    return [exp(model, f"{name}-s{s}", nodes, sets + [f"seed={s}"] + spm(s)) for s in seeds]


def suite(model):
    best = BEST_LOCAL[model]
    core = [("4node-dense", ["distributed.method=dense"]),
            ("4node-sparse", ["distributed.method=sparse"]),
            (f"4node-sparse-{best}-k{K_PAPER}",
             ["distributed.method=sparse", f"distributed.combiner={best}",
              f"distributed.average_every={K_PAPER}"]),
            (f"4node-fedavg-k{K_PAPER}",
             ["distributed.method=fedavg", f"distributed.average_every={K_PAPER}"])]
    # Ordered so that a suite stopped part-way has answered the most: seed 1 of the four core
    # variants and the 1-node controls first, then seeds 2 and 3, then the sweeps and controls.
    e = []
    for name, sets in core:
        e += seeded(model, name, N, sets, SEEDS[:1])
    # 1 node: equal updates (S) and equal tokens (N x S), validated at the same token points
    e.append(exp(model, "1node-dense-equal-updates-s1", 1,
                 ["distributed.method=dense", "seed=1"], S, VALID_EVERY))
    e.append(exp(model, "1node-dense-equal-tokens-s1", 1,
                 ["distributed.method=dense", "seed=1"], N * S, N * VALID_EVERY))
    # Plateau control: is S enough? The same 4-node dense run given 2 S updates (the schedule
    # stretches with max_steps); claims.py --v2 compares its last dev CE with the S run's.
    e.append(exp(model, "4node-dense-2xS-s1", N, ["distributed.method=dense", "seed=1"], 2 * S))
    for name, sets in core:
        e += seeded(model, name, N, sets, SEEDS[1:])
    # K sweep, 1 seed: sparse+partial and sparse+error at 100 / 500 / never, fedavg at 100
    # (fedavg never = 4 unrelated models; node 0 is then the 1-node equal-updates control)
    for comb in ("partial", "error"):
        for k in K_SWEEP:
            if comb == best and k == K_PAPER:
                continue  # the seeded runs above
            tag = f"k{k}" if k else "knever"
            e += seeded(model, f"4node-sparse-{comb}-{tag}", N,
                        ["distributed.method=sparse", f"distributed.combiner={comb}",
                         f"distributed.average_every={k}"], SEEDS[:1])
    e += seeded(model, "4node-fedavg-k100", N,
                ["distributed.method=fedavg", "distributed.average_every=100"], SEEDS[:1])
    e += seeded(model, f"4node-sparse-sum-k{K_PAPER}", N,
                ["distributed.method=sparse", "distributed.combiner=sum",
                 f"distributed.average_every={K_PAPER}"], SEEDS[:1])
    # lr controls for "3.5x over 1 node": x sqrt(N) (same warm-up) and x N (warm-up x N)
    e += seeded(model, "4node-dense-lrx2", N,
                ["distributed.method=dense", f"train.lr={LR * math.sqrt(N):g}"], SEEDS[:1])
    e += seeded(model, "4node-dense-lrx4-wu800", N,
                ["distributed.method=dense", f"train.lr={LR * N:g}", f"train.warmup={WARMUP * N}"],
                SEEDS[:1])
    if model in MEASURED_BEST_LOCAL:
        comb = MEASURED_BEST_LOCAL[model]
        e += seeded(model, f"4node-sparse-{comb}-k{K_PAPER}", N,
                    ["distributed.method=sparse", f"distributed.combiner={comb}",
                     f"distributed.average_every={K_PAPER}"], SEEDS[1:])
    return {"name": model, "experiments": e}


def main():
    for model, m in MODELS.items():
        cfg = {"extends": m["extends"], "name": f"repro-{model}"}
        cfg.update(json.loads(json.dumps(SHARED)))
        cfg["model"] = m["model"]
        with open(os.path.join(HERE, f"{model}-model.json"), "w") as f:
            json.dump(cfg, f, indent=1)
            f.write("\n")
        with open(os.path.join(HERE, f"{model}.json"), "w") as f:
            json.dump(suite(model), f, indent=1)
            f.write("\n")
        print(f"{model}: {len(suite(model)['experiments'])} experiments")


if __name__ == "__main__":
    import sys
    if sys.argv[1:]:   # it takes no arguments: --help (or a typo) must not rewrite the files
        print(__doc__, file=sys.stderr if sys.argv[1] not in ("-h", "--help") else sys.stdout)
        sys.exit(0 if sys.argv[1] in ("-h", "--help") else 2)
    main()
