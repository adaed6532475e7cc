#!/usr/bin/env python3
"""The table of bench/run-all from its temporary folder: per model and size, each side's
best-of-rounds median s/step, tokens/s, GEMM GFLOP/s and % of the in-process sgemm ceiling
(Transformer), peak RSS, and PyTorch s/step / sparselocal s/step (> 1: we are faster)."""
import collections, json, sys

tmp, threads = sys.argv[1], sys.argv[2]
rows = [json.loads(l) for l in open(f"{tmp}/steps.jsonl") if l.strip()]
by = collections.defaultdict(list)
for r in rows:
    side = r["side"] if r["side"] == "sparselocal" else f"{r['side']} {r.get('torch', '?')}"
    by[(r["model"], r.get("size", "bench"), side)].append(r)
ceiling = max((r.get("sgemm_ceiling_gflops", 0) for r in rows), default=0)
print(f"threads={threads} (all sides); sgemm ceiling 1024^3 in-process (best): {ceiling:.1f} GFLOP/s")
print(f"{'model':12} {'size':12} {'side':30} {'s/step':>8} {'tgt tok/s':>10} {'GFLOP/s':>8} "
      f"{'% sgemm':>8} {'peak RSS MB':>12} {'ours faster':>12}")
for (model, size) in sorted({(m, s) for m, s, _ in by}, key=lambda k: (k[1] != "bench", k[0] != "transformer")):
    ours = by.get((model, size, "sparselocal"), [])
    t_ours = min(r["median_s"] for r in ours) if ours else None
    flops = ours[0]["gflops"] * ours[0]["median_s"] if ours and ours[0].get("gflops") else 0
    sides = sorted({s for m, z, s in by if (m, z) == (model, size)}, key=lambda s: s != "sparselocal")
    for side in sides:
        rs = by[(model, size, side)]
        t = min(r["median_s"] for r in rs)
        rss = max(r["peak_rss_mb"] for r in rs)
        tok = rs[0]["tgt_tok_per_s"] * rs[0]["median_s"] / t
        gf = flops / t if flops else float("nan")
        pct = f"{100 * gf / ceiling:7.0f}%" if flops and ceiling else f"{'-':>8}"
        ratio = f"{t / t_ours:11.2f}x" if t_ours and side != "sparselocal" else f"{'':>12}"
        rss_ratio = f" (RSS {rss / max(r['peak_rss_mb'] for r in ours):.2f}x ours)" if ours and side != "sparselocal" else ""
        print(f"{model:12} {size:12} {side:30} {t:8.3f} {tok:10.0f} {gf:8.1f} {pct} {rss:12.0f} {ratio}{rss_ratio}")
# What computed each side's products.
print("\nBLAS of each side:")
for side in sorted({k[2] for k in by}, key=lambda s: s != "sparselocal"):
    b = next((r.get("blas") for k, rs in by.items() if k[2] == side for r in rs if r.get("blas")), "?")
    print(f"  {side:30} {b}")
try:
    rows_c = [l.rstrip("\n").split("\t") for l in open(f"{tmp}/ceiling.tsv") if l.strip()]
except OSError:
    rows_c = []
if rows_c:
    best = {}
    for label, thr, gf, blas in rows_c:
        best[thr] = max(best.get(thr, 0.0), float(gf))
    print("\nsgemm ceiling (1024^3, best of 7) by BLAS, same binary (SL_BLAS / OPENBLAS_CORETYPE):")
    print(f"{'candidate':44} {'thr':>3} {'GFLOP/s':>8} {'of best':>8}  what ran")
    for label, thr, gf, blas in rows_c:
        print(f"{label:44} {thr:>3} {float(gf):8.1f} {100 * float(gf) / best[thr]:7.0f}%  {blas}")
print("\n--- bench_gemm ---"); print(open(f"{tmp}/gemm.txt").read().rstrip())
print("\n--- bench_sparsify ---"); print(open(f"{tmp}/sparsify.txt").read().rstrip())
