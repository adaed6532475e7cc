"""The clock validation (issue 29): measured communication per step of the MPI runs over the
rate-limited link (scripts/clock-validation.sh) against the ring model, the model's efficiency
and per-hop overhead fitted on the 2-rank runs and checked on the 4-rank runs, and the 2-rank
runs' whole wall time against the virtual clock's prediction (a hardware profile's compute
per step + the modeled communication).

Usage: analyze.py clock-validation CLOCK_DIR [--profile FILE] [--fit-ranks 2]
                  [--fit-rates 100mbit,1gbit] [--skip 5]
                  [--out-json FILE] [--out-md FILE] [--figure FILE]
Writes CLOCK_DIR/validation.json and validation-table.md (and the figure
modeled-vs-measured.png with matplotlib) unless --out-json / --out-md / --figure name other
files, so on results/clock it rewrites the committed files (same runs: same content); prints
the table. Exit status 0; 2 on bad arguments or no runs."""
import json
import os

from ..clock_validation import SKIP, fit, load_runs, row, within
from ..formatting import md_table
from ..profiles import step_compute_s
from .common import Parser, number_type, UsageError, guarded, profiles_or_fail

PROGRAM = "clock-validation"


def parse_args(argv, prog):
    p = Parser(prog=prog, description=__doc__.split("\n\n")[0])
    p.add_argument("clock_dir", metavar="CLOCK_DIR")
    p.add_argument("--profile", help="hardware profile of this CPU (configs/hardware/*.json) for "
                                     "the whole-run prediction")
    p.add_argument("--fit-ranks", type=int, default=2, help="fit on the runs with this many ranks")
    p.add_argument("--fit-rates",
                   help="... and these link rates, each of which must have runs (default: those "
                   "of 100mbit,1gbit that have runs: where the link, not the CPU, paces the "
                   "transfer; loopback TCP tops out near 3.4 Gbit/s here)")
    p.add_argument("--skip", type=number_type(0, integer=True), default=SKIP, help="leave out the first steps (5)")
    p.add_argument("--out-json", help="default CLOCK_DIR/validation.json")
    p.add_argument("--out-md", help="default CLOCK_DIR/validation-table.md")
    p.add_argument("--figure", help="default CLOCK_DIR/modeled-vs-measured.png")
    return p.parse_args(argv)


def fmt(x, d=4):
    return "-" if x is None else f"{x:.{d}f}"


def run(args, prog):
    runs = load_runs(args.clock_dir)
    if not runs:
        raise UsageError(f"{args.clock_dir}: no clock-validation runs (scripts/clock-validation.sh)")
    explicit = args.fit_rates is not None
    rates = [x for x in (args.fit_rates or "100mbit,1gbit").split(",") if x]
    fit_set = [r for r in runs if r.nodes == args.fit_ranks and r.rate in rates]
    if not explicit:
        rates = [x for x in rates if any(r.rate == x for r in fit_set)]
    for rate in rates if explicit else []:
        if not any(r.rate == rate for r in fit_set):
            have = sorted({r.rate for r in runs if r.nodes == args.fit_ranks})
            raise UsageError(f"--fit-rates: no {args.fit_ranks}-rank run at {rate!r} (have: "
                             f"{', '.join(have) or 'none'})")
    if not fit_set:
        raise UsageError(f"no {args.fit_ranks}-rank runs at {', '.join(rates) or '100mbit or 1gbit'}"
                         " to fit on (--fit-ranks, --fit-rates)")
    args.fit_rates = ",".join(rates)
    eta, o = fit(fit_set, args.skip)
    profile = profiles_or_fail([args.profile])[0] if args.profile else None
    rows = []
    for r in runs:
        c = None
        if profile is not None and r.nodes == 2:
            c = step_compute_s(profile, r.config, None)[0] if r.config else None
        x = row(r, eta, o, c, args.skip)
        x["set"] = "fit" if r in fit_set else "check"
        rows.append(x)
    doc = {"model": {"formula": "t = X * 8 / (eta * B) + Y * (a + o), B = rate / N on the shared "
                                "loopback, a = 0", "eta": eta, "overhead_s": o,
                     "fitted_on": f"{args.fit_ranks}-rank runs at {args.fit_rates}",
                     "skip_steps": args.skip},
           "profile": args.profile, "rows": rows}
    out_json = args.out_json or os.path.join(args.clock_dir, "validation.json")
    with open(out_json + ".tmp", "w") as f:
        json.dump(doc, f, indent=1, sort_keys=True)
        f.write("\n")
    os.replace(out_json + ".tmp", out_json)
    head = ["run", "set", "compute s/step (median)", "measured s/step", "ring model", "ratio", "fitted",
            "ratio", "within 20%",
            "wall measured", "wall predicted (fitted)", "ratio"]
    body = []
    for x in rows:
        wm, wp = x.get("measured_wall_s"), x.get("predicted_wall_s_fitted")
        body.append([x["run"], x["set"], fmt(x["measured_compute_s_per_step"]),
                     fmt(x["measured_comm_s_per_step"]),
                     fmt(x["ring_model_comm_s_per_step"]), fmt(x["ratio_ring_model"], 2),
                     fmt(x["fitted_model_comm_s_per_step"]), fmt(x["ratio_fitted_model"], 2),
                     "yes" if within(x["ratio_fitted_model"]) else "NO",
                     fmt(wm, 1), fmt(wp, 1), fmt(wp / wm if wm and wp else None, 2)])
    text = (f"fitted on the {args.fit_ranks}-rank runs at {args.fit_rates}: eta = {eta:.3f}, per-hop overhead "
            f"o = {o * 1e6:.1f} us (steps 1-{args.skip} left out)\n\n" + "\n".join(md_table(head, body)))
    print(text)
    out_md = args.out_md or os.path.join(args.clock_dir, "validation-table.md")
    with open(out_md + ".tmp", "w") as f:
        f.write(text + "\n")
    os.replace(out_md + ".tmp", out_md)
    if args.figure is not False:
        figure(rows, args.figure or os.path.join(args.clock_dir, "modeled-vs-measured.png"), eta, o)
    return 0


def figure(rows, path, eta, o):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print(f"{PROGRAM}: no matplotlib; {path} not drawn")
        return
    fig, axes = plt.subplots(1, 2, figsize=(11, 5), sharey=True)
    markers = {"dense": "o", "sparse": "s", "partial": "^", "fedavg": "D"}
    for ax, key, title in ((axes[0], "ring_model_comm_s_per_step", "PAPER.md ring model"),
                           (axes[1], "fitted_model_comm_s_per_step",
                            f"fitted: eta {eta:.2f}, overhead {o * 1e6:.0f} us/hop")):
        for x in rows:
            m = x["measured_comm_s_per_step"]
            if m <= 0:
                continue
            c = "C0" if x["ranks"] == 2 else "C1"
            ax.scatter(m, x[key], marker=markers.get(x["method"], "x"), edgecolors=c,
                       facecolors=c if x.get("set") == "fit" else "none", s=36, zorder=3)
        lo = min(min(x["measured_comm_s_per_step"], x[key]) for x in rows if x[key] > 0) / 2
        hi = max(max(x["measured_comm_s_per_step"], x[key]) for x in rows) * 2
        ax.plot([lo, hi], [lo, hi], "k-", lw=0.8)
        ax.fill_between([lo, hi], [lo * 0.8, hi * 0.8], [lo * 1.2, hi * 1.2], color="0.9", zorder=1)
        ax.set_xscale("log"), ax.set_yscale("log")
        ax.set_xlabel("measured communication s/step (comm_min_s)")
        ax.set_title(title, fontsize=10)
    axes[0].set_ylabel("modeled communication s/step")
    from matplotlib.lines import Line2D
    handles = [Line2D([], [], marker=v, ls="", color="k", label=k) for k, v in markers.items()]
    handles += [Line2D([], [], marker="o", ls="", color="C0", label="2 ranks"),
                Line2D([], [], marker="o", ls="", color="C1", label="4 ranks"),
                Line2D([], [], marker="o", ls="", color="k", label="filled: fitted on"),
                Line2D([], [], marker="o", ls="", mfc="none", color="k", label="hollow: checked")]
    axes[1].legend(handles=handles, fontsize=8, loc="upper left")
    fig.suptitle("Communication per step over a rate-limited loopback (grey: +-20%)", fontsize=11)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    print(f"{PROGRAM}: wrote {path}")


def main(argv, prog=PROGRAM):
    return guarded(prog, run, parse_args(argv, prog), prog)
