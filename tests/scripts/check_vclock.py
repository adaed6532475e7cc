#!/usr/bin/env python3
"""ctest vclock_speedup_map_fixtures: the command lines scripts/vclock.py, scripts/speedup_map.py,
scripts/claims.py --v2 and scripts/plot.py --profile/--bands against values worked out by hand on
the synthetic runs of fixtures/make_vclock_fixtures.py. (The functions behind them are tested
module by module in tests/scripts/analysis/.)

Usage: check_vclock.py REPO_ROOT WORK_DIR      (exit 0 pass, 1 fail). Needs no numpy/matplotlib
(the map figure is drawn too when matplotlib is importable).
"""
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "fixtures"))
import make_vclock_fixtures  # noqa: E402

FAIL = []


def close(what, got, want, tol=1e-9):
    ok = got is not None and abs(got - want) <= tol * max(1.0, abs(want))
    if not ok:
        FAIL.append(f"{what}: got {got!r}, want {want!r}")


def main(argv):
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    repo, work = argv
    os.makedirs(work, exist_ok=True)
    root = make_vclock_fixtures.write(work)

    prof_path = os.path.join(work, "fix-profile.json")
    with open(prof_path, "w") as f:
        json.dump({"name": "fix", "source": "test fixture",
                   "seconds_per_step": [{"match": {"model.type": "transformer", "model.d_model": 4},
                                         "seconds": 0.05}],
                   "sustained_flops": 28800.0, "overhead_s": {"transformer": 0.5},
                   "selection": {"mode": "measured"}, "sensitivity": [0.5, 2.0]}, f)

    # 1. vclock.py clock: the virtual time at each validation of tf-4node-partial-s1 on 1gbe
    #    with c 0.05: step 200 = 10 + SEL 2 + 2e7 * 8e-9 + 1800 * 5e-5 = 10 + 2 + 0.16 + 0.09
    #    = 12.25; dev CE 3.0, BLEU 40 - 30 = 10.
    r = subprocess.run([sys.executable, os.path.join(repo, "scripts", "vclock.py"), "clock",
                        os.path.join(root, "tf-4node-partial-s1"), "--profile", prof_path,
                        "--network", "1gbe", "--link-terms", "paper"], capture_output=True,
                       text=True, timeout=120)
    if r.returncode != 0 or "200\t3.0\t10.0\t12.250\t10.000\t2.000\t0.160\t0.090" not in r.stdout:
        FAIL.append(f"vclock.py clock: exit {r.returncode}, output {r.stdout!r} {r.stderr!r}")
    # vclock.py flops on a suite file (no "model"): one line, exit 2
    r = subprocess.run([sys.executable, os.path.join(repo, "scripts", "vclock.py"), "flops",
                        os.path.join(repo, "configs", "repro", "transformer.json")],
                       capture_output=True, text=True, timeout=120)
    if r.returncode != 2 or "no \"model\" object" not in r.stderr or "Traceback" in r.stderr:
        FAIL.append(f"vclock.py flops on a suite: exit {r.returncode}, {r.stderr!r}")

    # 2. speedup_map.py's table (profile rows use the profile's own c and measured selection):
    #    1gbe, c 0.05: dense4 15 + 4.8 + 300*12*5e-5 = 19.98; partial s1 10 + 2 + 0.16 + 0.09
    #    = 12.25, s2 15 + 3 + 0.24 + 0.135 = 18.375, mean 15.3125 -> 1.30x; 1 node 30 -> 1.96x;
    #    dense comm share 0.0166 / 0.0666 = 25%. x2 (c 0.1): 34.98 / 27.8125 = 1.26x, 60 ->
    #    2.16x, share 0.0166 / 0.1166 = 14%.
    r = subprocess.run([sys.executable, os.path.join(repo, "scripts", "speedup_map.py"), root,
                        "--no-plot", "--target-ce", "3.0", "--latency-us", "0",
                        "--profile", prof_path, "--out", os.path.join(work, "map"),
                        "--link-terms", "paper"],
                       capture_output=True, text=True, timeout=120)
    if r.returncode != 0:
        FAIL.append(f"speedup_map.py exit {r.returncode}: {r.stderr}")
    for line in [
        "| tf-4node-partial | sparse+partial | 4 | 2 | 250 | 200, 300 | 10.00% | reached |",
        "| transformer | fix | 50.00 | 1gbe | 25% | tf-4node-partial | 15.3 | 1.30x | 1.96x |",
        "| transformer | fix x2 | 100.00 | 1gbe | 14% | tf-4node-partial | 27.8 | 1.26x | 2.16x |",
        "not reached by 1/1 seed(s) (tf-4node-sparse: best 3.500 at step 300)",
        # the fixtures' strategy rows name no compress_clock: wall seconds, an upper bound
        "The measured selection cost (f, and SEL on measured profiles) of sparse, sparse+partial "
        "comes from logs whose compress_s / decompress_s are wall seconds",
    ]:
        if line not in r.stdout:
            FAIL.append(f"speedup_map.py output lacks: {line!r}")
    # 3. claims.py --v2 on the same runs: mean +- sd over seeds (sample sd), steps to target,
    #    best value and step of a miss, virtual time per profile. partial: last dev CE 2.8, 2.9
    #    -> 2.850 +- 0.071; steps 200, 300 -> 250 +- 71; 1gbe times 12.25, 18.375 -> 15.3 +- 4.3,
    #    1.30x / 1.96x (as in 2.); 10gbe: dense4 15 + 0.48 + 0.072 = 15.552, partial (12.052 +
    #    18.078) / 2 = 15.065 -> 1.03x. Plateau target: 1.02 x 3.0 = 3.060.
    r = subprocess.run([sys.executable, os.path.join(repo, "scripts", "claims.py"), root, "--v2",
                        "--profile", prof_path], capture_output=True, text=True, timeout=120)
    if r.returncode != 0:
        FAIL.append(f"claims.py --v2 exit {r.returncode}: {r.stderr}")
    for line in [
        "| tf-4node-partial | sparse+partial | 4 | 2 | 300 | 2.850 +- 0.071 (n=2) |",
        "#### transformer: dev CE <= 3.060 (102% of 4-node dense's plateau dev CE 3.000)",
        "| tf-4node-partial | 2 | 250 +- 71 (n=2) | reached by every seed |",
        "| tf-4node-sparse | 1 | - | not reached by 1/1 seed(s) (tf-4node-sparse: best 3.500 at step 300) |",
        "| fix | 1gbe | tf-4node-partial | 15.3 +- 4.3 (n=2) | 1.30x | 1.96x |",
        "| fix | 10gbe | tf-4node-partial | 15.1 +- 4.3 (n=2) | 1.03x | 1.99x |",
        "4-node dense reaches it at step(s) 300 of 300 (100% of its run).",
    ]:
        if line not in r.stdout:
            FAIL.append(f"claims.py --v2 output lacks: {line!r}")

    try:
        import matplotlib  # noqa: F401
        r = subprocess.run([sys.executable, os.path.join(repo, "scripts", "speedup_map.py"), root,
                            "--target-ce", "3.0", "--profile", prof_path, "--grid", "9",
                            "--out", os.path.join(work, "map-fig"), "--link-terms", "paper"],
                           capture_output=True, text=True, timeout=120)
        for name in ("transformer-speedup-map-vs-dense4.png", "transformer-speedup-map-vs-1node.png"):
            if r.returncode != 0 or not os.path.isfile(os.path.join(work, "map-fig", name)):
                FAIL.append(f"figure {name} not written (exit {r.returncode}: {r.stderr[-500:]})")
        # plot.py --profile / --bands: virtual-clock curves and seed bands
        r = subprocess.run([sys.executable, os.path.join(repo, "scripts", "plot.py"), root,
                            "--profile", prof_path, "--bands", "--out", os.path.join(work, "plots")],
                           capture_output=True, text=True, timeout=120)
        for name in ("transformer-dev_ce-vs-virtual-fix-1gbe.png",
                     "transformer-dev_ce-bands-vs-steps.png",
                     "transformer-dev_ce-bands-vs-virtual-fix-1gbe.png"):
            if r.returncode != 0 or not os.path.isfile(os.path.join(work, "plots", name)):
                FAIL.append(f"plot.py figure {name} not written (exit {r.returncode}: {r.stderr[-500:]})")
        # plot.py's summary on the virtual clock: target BLEU 10 = dev CE 3.0, so the times are
        # section 2's: dense4 19.98 s (step 300), partial s1 12.25 s (step 200) -> 1.63x.
        r = subprocess.run([sys.executable, os.path.join(repo, "scripts", "plot.py"), root,
                            "--profile", prof_path, "--target-bleu", "10",
                            "--out", os.path.join(work, "plots-target")],
                           capture_output=True, text=True, timeout=120)
        sys.path.insert(0, HERE)
        from plot_table import read_table
        _, table = read_table(os.path.join(work, "plots-target", "summary.md"))
        col = "time to target, virtual (fix, 1gbe)"
        for run, want in (("tf-4node-dense", 19.98), ("tf-4node-partial-s1", 12.25)):
            cell = table.get(run, {}).get(col, "")
            close(f"plot.py virtual time to target {run}",
                  float(cell.split()[0]) if cell[:1].isdigit() else None, want, 1e-3)
        got = table.get("tf-4node-partial-s1", {}).get("speed-up vs 4-node dense, virtual (fix, 1gbe)")
        if got != "1.63x":
            FAIL.append(f"plot.py virtual speed-up of tf-4node-partial-s1: got {got!r}, want '1.63x'")
        if table.get("tf-4node-sparse", {}).get(col) != "not reached":
            FAIL.append(f"plot.py: tf-4node-sparse must not reach BLEU 10: {table.get('tf-4node-sparse')}")
    except ImportError:
        print("check_vclock: matplotlib missing; figure not checked")
    for f in FAIL:
        print("FAIL: " + f)
    if FAIL and r is not None:
        print(r.stdout)
    print(f"check_vclock: {len(FAIL)} check(s) failed" if FAIL else "check_vclock: all checks hold")
    return 1 if FAIL else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
