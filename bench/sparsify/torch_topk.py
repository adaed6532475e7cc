#!/usr/bin/env python3
"""Times torch.topk(|x|, k) at k = 1% on the sizes bench_sparsify uses (CPU; 1 thread by
default, like bench_sparsify; --threads 0 keeps torch's default), as the reference point for
the C++ compressor.

    /usr/bin/python3 bench/sparsify/torch_topk.py [--sizes 7600000,60000000] [--reps 5]
                                                   [--threads 1] [--json torch.json]
then: bench_sparsify --torch-json torch.json   (prints the ratio)
Needs PyTorch (Debian: apt-get install -y python3-torch, importable from /usr/bin/python3).
"""
import argparse
import json
import statistics
import time

import torch


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="7600000,60000000")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--json", help="write {'topk_ms': {size: ms}, ...} here")
    a = ap.parse_args()
    if a.threads > 0:
        torch.set_num_threads(a.threads)
    g = torch.Generator().manual_seed(1)
    result = {"torch": torch.__version__, "threads": torch.get_num_threads(), "topk_ms": {}}
    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads, median of {a.reps}")
    print(f"{'P':>11} {'k':>9} {'topk ms':>9}")
    for p in (int(s) for s in a.sizes.split(",")):
        scale = torch.exp(2 * torch.randn(p // 4096 + 1, generator=g)) * 1e-3
        x = torch.randn(p, generator=g) * scale.repeat_interleave(4096)[:p]
        k = round(0.01 * p)
        times = []
        for _ in range(a.reps):
            t0 = time.perf_counter()
            torch.topk(x.abs(), k, sorted=False)
            times.append((time.perf_counter() - t0) * 1e3)
        ms = statistics.median(times)
        result["topk_ms"][str(p)] = ms
        print(f"{p:>11} {k:>9} {ms:>9.2f}")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(result, f, indent=1)


if __name__ == "__main__":
    main()
