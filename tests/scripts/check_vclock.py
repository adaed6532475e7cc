#!/usr/bin/env python3
"""ctest vclock_speedup_map_fixtures: scripts/vclock.py and scripts/speedup_map.py against values
worked out by hand on the synthetic runs of fixtures/make_vclock_fixtures.py.

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
    sys.path.insert(0, os.path.join(repo, "scripts"))
    import vclock
    import speedup_map
    os.makedirs(work, exist_ok=True)
    root = make_vclock_fixtures.write(work)

    # 1. Decomposition: per step C 0.1 s, X 1e6 ring bytes, Y 9 hops, after 20 steps.
    C, X, Y = vclock.solve_cxy(make_vclock_fixtures.modeled(20, 0.1, 1e6, 9))
    close("solve C", C, 2.0)
    close("solve X", X, 2e7, 1e-7)
    close("solve Y", Y, 180.0)

    # 2. Exact at logged steps, linear in between (log every 10).
    clk = vclock.RunClock(os.path.join(root, "tf-4node-partial-s1"))
    for got, want, what in zip(clk.cumulative(200), (20.0, 2e7, 1800.0), ("C", "X", "Y")):
        close(f"cumulative(200) {what}", got, want, 1e-7)
    for got, want, what in zip(clk.cumulative(205), (20.5, 2.05e7, 1845.0), ("C", "X", "Y")):
        close(f"cumulative(205) {what}", got, want, 1e-7)

    # 3. Selection: each logged value stands for the steps since the previous log line.
    pts = [(10, 0.004), (20, 0.006)]
    close("SEL(15)", vclock.piecewise_sum(pts, 15), 0.04 + 0.006 * 5)   # 0.07
    close("SEL(20)", vclock.piecewise_sum(pts, 20), 0.1)
    close("SEL(25)", vclock.piecewise_sum(pts, 25), 0.13)                # last value extends
    close("SEL run(200)", clk.selection_s(200, {"mode": "measured"}), 2.0)
    # modeled: P / select + N * pairs / scatter per step = 500/1e4 + 4*5/1e3 = 0.07 per step
    close("SEL modeled(100)", clk.selection_s(100, {"mode": "modeled", "select_values_per_s": 1e4,
                                                    "scatter_values_per_s": 1e3}), 7.0)

    # 4. time(t) = t c + SEL + X 8/B + Y a: t 200, c 0.05, 10 Gbit/s, 10 us
    #    = 10 + 2 + 2e7 * 8e-10 + 1800 * 1e-5 = 10 + 2 + 0.016 + 0.018 = 12.034
    tot, parts = clk.time(200, 0.05, 10.0, 10.0, {"mode": "measured"})
    close("time(200)", tot, 12.034)
    close("time(200) bandwidth", parts["bandwidth"], 0.016)
    one = vclock.RunClock(os.path.join(root, "tf-1node-dense"))
    close("1-node time(600) = 600 c", one.time(600, 0.05, 1.0, 50.0)[0], 30.0)

    # 5. FLOP counter (6 x MACs), src_per_tgt 1, target length 5, 10 target tokens.
    tcfg = {"model": {"type": "transformer", "d_model": 4, "ff": 8, "encoder_layers": 1,
                      "decoder_layers": 1, "vocab_size": 10}, "data": {"batch_tokens": 10}}
    # MACs: enc 10*(4*16+2*4*8)=1280, enc att 10*2*5*4=400, dec 10*(6*16+64)=1600,
    #       cross k/v 10*2*16=320, dec att 10*2*(5+5)*4=800, output 10*4*10=400 -> 4800
    close("transformer FLOPs", vclock.flops_per_step(tcfg, 10, 1.0, 5.0)[0], 6 * 4800)
    rcfg = {"model": {"type": "rnn", "emb_dim": 2, "enc_dim": 3, "dec_dim": 4, "enc_layers": 1,
                      "vocab_size": 10}, "data": {"batch_tokens": 10}}
    # C = 6. enc 10*2*(18+27)=900, keys 10*6*4=240, dec GRUs 10*(24+48+72+48)=1920,
    # attention 10*(16+5*(4+6))=660, deep output 10*12*2=240, output 10*2*10=200 -> 4160
    close("rnn FLOPs", vclock.flops_per_step(rcfg, 10, 1.0, 5.0)[0], 6 * 4160)

    # 5b. "extends" chains merge like config_loader.cpp: the top file wins, objects merge.
    with open(os.path.join(work, "base.json"), "w") as f:
        json.dump({"model": {"type": "rnn", "emb_dim": 9}, "data": {"batch_tokens": 10}}, f)
    with open(os.path.join(work, "top.json"), "w") as f:
        json.dump({"extends": "base.json", "model": {"emb_dim": 2, "enc_dim": 3, "dec_dim": 4,
                                                     "vocab_size": 10}}, f)
    merged = vclock.load_config(os.path.join(work, "top.json"))
    if merged.get("model", {}).get("type") != "rnn" or merged["model"].get("emb_dim") != 2:
        FAIL.append(f"load_config merge: {merged}")
    close("rnn FLOPs via extends", vclock.flops_per_step(merged, 10, 1.0, 5.0)[0], 6 * 4160)

    # 5c. The counter's shapes give the committed runs' parameter counts (summary.json).
    for run, want in (("transformer/transformer-4node-dense", 363472), ("rnn/rnn-4node-dense", 551568)):
        path = os.path.join(repo, "results", "small", run, "config.json")
        if os.path.isfile(path):
            with open(path) as f:
                close(f"parameter_count {run}", vclock.parameter_count(json.load(f)), want)

    # 6. Profiles: seconds_per_step match, else overhead + FLOPs / sustained.
    prof_path = os.path.join(work, "fix-profile.json")
    with open(prof_path, "w") as f:
        json.dump({"name": "fix", "source": "test fixture",
                   "seconds_per_step": [{"match": {"model.type": "transformer", "model.d_model": 4},
                                         "seconds": 0.05}],
                   "sustained_flops": 28800.0, "overhead_s": {"transformer": 0.5},
                   "selection": {"mode": "measured"}, "sensitivity": [0.5, 2.0]}, f)
    prof = vclock.load_profile(prof_path)
    close("profile match", vclock.step_compute_s(prof, clk.config)[0], 0.05)
    tcfg2 = json.loads(json.dumps(tcfg))
    tcfg2["model"]["d_model"] = 8  # no match: 0.5 + FLOPs/28800
    f8 = vclock.flops_per_step(tcfg2, 10)[0]
    close("profile flops", vclock.step_compute_s(prof, tcfg2, 10)[0], 0.5 + f8 / 28800.0)

    # 7. The map formula on variants (seeds s1, s2 of partial hit at 200 and 300 -> mean
    #    t 250, X 2.5e7, Y 2250). At c 0.1, 1 Gbit/s, latency 0, f = 0.01/0.1 = 0.1:
    #    dense4 300*0.1 + 6e8*8e-9 = 34.8; partial 250*0.1*1.1 + 2.5e7*8e-9 = 27.7 -> 1.2563x;
    #    1 node 600*0.1 = 60 -> 2.1661x.
    import plot
    exps = [plot.Experiment(d, root, plot.Notes()) for d in plot.find_experiment_dirs(root)]
    variants = speedup_map.group_variants(exps)["transformer"]
    d4, d1, hits, fsel, cmeas = speedup_map.analyse(variants, "dev_ce", 3.0, [prof], 0.0)
    close("measured dense c", cmeas, 0.1)
    close("selection fraction", fsel["tf-4node-partial"], 0.1)
    h = hits["tf-4node-partial"]
    close("mean hit step", h.t, 250.0)
    g = speedup_map.speedup_grid(h, hits[d4.name], [0.1], [1.0], 0.0, fsel["tf-4node-partial"], 0.0)
    close("speed-up vs dense4", g[0][0], 34.8 / 27.7)
    g = speedup_map.speedup_grid(h, hits[d1.name], [0.1], [1.0], 0.0, fsel["tf-4node-partial"], 0.0)
    close("speed-up vs 1 node", g[0][0], 60.0 / 27.7)
    if hits["tf-4node-sparse"].reached:
        FAIL.append("tf-4node-sparse must not reach dev CE 3.0")
    # plateau rule: last 20% of 300 steps = validations at >= 240: {300: 3.0} -> 3.0 * 1.02
    tv, _ = speedup_map.target_for(d4, "dev_ce", "plateau")
    close("plateau target", tv, 3.06)
    tv, _ = speedup_map.target_for(d4, "dev_ce", "v1")
    close("v1 target", tv, 3.3)

    # 8. The script's table (profile rows use the profile's own c and measured selection):
    #    1gbe, c 0.05: dense4 15 + 4.8 + 300*12*5e-5 = 19.98; partial s1 10 + 2 + 0.16 + 0.09
    #    = 12.25, s2 15 + 3 + 0.24 + 0.135 = 18.375, mean 15.3125 -> 1.30x; 1 node 30 -> 1.96x;
    #    dense comm share 0.0166 / 0.0666 = 25%. x2 (c 0.1): 34.98 / 27.8125 = 1.26x, 60 ->
    #    2.16x, share 0.0166 / 0.1166 = 14%.
    r = subprocess.run([sys.executable, os.path.join(repo, "scripts", "speedup_map.py"), root,
                        "--no-plot", "--target-ce", "3.0", "--latency-us", "0",
                        "--profile", prof_path, "--out", os.path.join(work, "map")],
                       capture_output=True, text=True, timeout=120)
    if r.returncode != 0:
        FAIL.append(f"speedup_map.py exit {r.returncode}: {r.stderr}")
    for line in [
        "| tf-4node-partial | sparse+partial | 4 | 2 | 250 | 200, 300 | 10.00% | reached |",
        "| transformer | fix | 50.00 | 1gbe | 25% | tf-4node-partial | 15.3 | 1.30x | 1.96x |",
        "| transformer | fix x2 | 100.00 | 1gbe | 14% | tf-4node-partial | 27.8 | 1.26x | 2.16x |",
        "not reached by 1/1 seed(s) (tf-4node-sparse: best 3.500 at step 300)",
    ]:
        if line not in r.stdout:
            FAIL.append(f"speedup_map.py output lacks: {line!r}")
    # 9. claims.py --v2 on the same runs: mean +- sd over seeds (sample sd), steps to target,
    #    best value and step of a miss, virtual time per profile. partial: last dev CE 2.8, 2.9
    #    -> 2.850 +- 0.071; steps 200, 300 -> 250 +- 71; 1gbe times 12.25, 18.375 -> 15.3 +- 4.3,
    #    1.30x / 1.96x (as above); 10gbe: dense4 15 + 0.48 + 0.072 = 15.552, partial (12.052 +
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

    # 10. Plateau: mean over the last 20% of the run's validations, relative change over it.
    class Fake:
        def values(self, key):
            return [[(100, 4.0), (800, 3.0), (900, 2.9), (1000, 2.95)],
                    [(100, 4.0), (800, 3.2), (900, 3.1), (1000, 3.1)]]
    pv, ch = speedup_map.plateau(Fake(), "dev_ce")
    close("plateau value", pv, ((3.0 + 2.9 + 2.95) / 3 + (3.2 + 3.1 + 3.1) / 3) / 2)
    close("plateau change", ch, ((2.95 - 3.0) / 3.0 + (3.1 - 3.2) / 3.2) / 2)

    # 10b. A seed still running is left out of a variant that has complete seeds.
    import shutil
    part = os.path.join(root, "tf-4node-partial-s3")
    shutil.copytree(os.path.join(root, "tf-4node-partial-s1"), part)
    with open(os.path.join(part, "summary.json")) as f:
        summ = json.load(f)
    summ["status"] = "incomplete"
    with open(os.path.join(part, "summary.json"), "w") as f:
        json.dump(summ, f)
    exps3 = [plot.Experiment(d, root, plot.Notes()) for d in plot.find_experiment_dirs(root)]
    v3 = {v.name: v for v in speedup_map.group_variants(exps3)["transformer"]}
    if len(v3["tf-4node-partial"].runs) != 2:
        FAIL.append(f"incomplete seed counted: {[r.name for r in v3['tf-4node-partial'].runs]}")
    shutil.rmtree(part)

    # 11. Budget check: the 2xS run ends at 2.97 vs the S run's seed mean (2.95 + 3.1) / 2 =
    #     3.025 -> -1.82%, not enough; at 3.01 -> -0.50%, enough; half-way -> waits.
    class Var:
        def __init__(self, name, steps, lasts):
            self.name, self.steps, self.lasts = name, steps, lasts

        def values(self, key):
            return [[(self.steps, x)] for x in self.lasts]
    import claims
    d4 = Var("tf-4node-dense", 1000, [2.95, 3.1])
    for ctl, want in ((Var("tf-4node-dense-2xS", 2000, [2.97]), "(-1.82%) -> S is NOT enough"),
                      (Var("tf-4node-dense-2xS", 2000, [3.01]), "(-0.50%) -> S is enough (< 1%)"),
                      (Var("tf-4node-dense-2xS", 1000, [3.0]), "is not finished (1000 of 2000")):
        got = " ".join(claims.plateau_control(d4, [d4, ctl]))
        if want not in got:
            FAIL.append(f"plateau_control: {want!r} not in {got!r}")
    if "no `tf-4node-dense-2xS` run" not in " ".join(claims.plateau_control(d4, [d4])):
        FAIL.append("plateau_control without the 2xS run must say so")
    try:
        import matplotlib  # noqa: F401
        r = subprocess.run([sys.executable, os.path.join(repo, "scripts", "speedup_map.py"), root,
                            "--target-ce", "3.0", "--profile", prof_path, "--grid", "9",
                            "--out", os.path.join(work, "map-fig")],
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
        # section 8's: dense4 19.98 s (step 300), partial s1 12.25 s (step 200) -> 1.63x.
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
