"""Virtual (hardware-independent) clock for run-experiment logs, and a FLOP counter.

Usage:
  vclock.py flops CONFIG_JSON [--tgt-tokens N]          FLOPs of one training step, per node
  vclock.py clock RUN_DIR --profile P.json [--network 1gbe | --bandwidth-gbps B --latency-us A]
                                                         virtual time at each validation step
  vclock.py measure RUN_DIR...                           seconds/step and FLOP/s measured in runs

The virtual time of a run after step t (docs/LOG_FORMAT.md, "Derived quantities"):

    time(t) = t * c  +  SEL(t)  +  X(t) / B  +  Y(t) * a

  c      compute seconds of one step on one node, from a hardware profile
         (configs/hardware/*.json): either a `seconds_per_step` entry matching the model and
         batch, or `overhead_s + flops_per_step / sustained_flops` (slanalysis.flops).
  SEL(t) gradient-selection seconds summed over steps 1..t: "measured" (the logged
         strategy.compress_s + strategy.decompress_s of node 0, each logged value standing for
         the steps since the previous log line) or modeled from throughputs
         (P / select_values_per_s + N * pairs / scatter_values_per_s per sparse step).
  X(t)   "ring bytes": sum over steps and collectives of the bandwidth term's bytes of
         PAPER.md's ring model (2(N-1)/N * b per all-reduce of b bytes, (N-1) * b per
         all-gather of b bytes per node), so X / B is the bandwidth time on any network B.
  Y(t)   latency hops: sum of 2(N-1) per all-reduce and (N-1) per all-gather.
  B, a   network bandwidth (bytes/s) and per-hop latency (s).

X(t), Y(t) and the measured compute C(t) are recovered EXACTLY (no interpolation) at every
logged or validated step from the cumulative `modeled_time_s` the trainer writes for its three
preset networks: modeled_time_s[k] = C + X * u_k + Y * a_k with (u_k, a_k) known for 1gbe,
10gbe and ib100 is three linear equations in three unknowns. Every step is in those sums,
drop-ratio warm-up steps and averaging steps included. Between validation steps X and Y are
interpolated linearly (only needed for steps nobody validated at).

Pure Python (no numpy), so it runs under any python3.
"""
import os

from ..clock import RunClock
from ..config import load_config
from ..experiment import Experiment
from ..flops import flops_per_step, parameter_count
from ..logfiles import number
from ..network import PRESETS, Network, with_link_terms
from ..notes import silent
from ..profiles import profile_compute
from .common import Parser, NON_NEGATIVE, POSITIVE, UsageError, add_link_terms_arg, guarded, link_terms_or_fail, profiles_or_fail

PROGRAM = "vclock.py"


def parse_args(argv, prog):
    p = Parser(prog=prog, description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    f = sub.add_parser("flops")
    f.add_argument("config")
    f.add_argument("--tgt-tokens", type=POSITIVE)
    c = sub.add_parser("clock")
    c.add_argument("run_dir")
    c.add_argument("--profile", required=True)
    c.add_argument("--network", default="1gbe", choices=sorted(PRESETS))
    c.add_argument("--bandwidth-gbps", type=POSITIVE)
    c.add_argument("--latency-us", type=NON_NEGATIVE, default=0.0)
    add_link_terms_arg(c)
    m = sub.add_parser("measure")
    m.add_argument("run_dirs", nargs="+")
    return p.parse_args(argv)


def main(argv, prog=PROGRAM):
    args = parse_args(argv, prog)
    return guarded(prog, {"flops": flops, "clock": clock, "measure": measure}[args.cmd], args)


def run_clock(run_dir):
    if not os.path.isdir(run_dir):
        raise UsageError(f"{run_dir}: not a directory")
    if not os.path.isfile(os.path.join(run_dir, "config.json")):
        raise UsageError(f"{run_dir}: no config.json (expected one run's results folder, not a "
                         f"folder of runs)")
    return RunClock(Experiment(run_dir, run_dir, silent))


def counted(where, count):
    """count() of a FLOP counter function; a config it cannot read is a UsageError."""
    try:
        return count()
    except KeyError as e:
        raise UsageError(f"{where}: no {e.args[0]!r} (the FLOP counter needs the model's shapes)")
    except (TypeError, ValueError) as e:
        raise UsageError(f"{where}: cannot count this model's FLOPs ({e})")


def flops(args):
    try:
        config = load_config(args.config)
    except OSError as e:
        raise UsageError(f"{args.config}: {e.strerror}")
    except ValueError as e:
        raise UsageError(f"{args.config}: not JSON ({e})")
    if not isinstance(config.get("model"), dict) or "type" not in config["model"]:
        raise UsageError(f"{args.config}: no \"model\" object with a \"type\" (a suite file? "
                         "give one of its experiments' configs)")
    total, terms = counted(args.config, lambda: flops_per_step(config, args.tgt_tokens))
    params = counted(args.config, lambda: parameter_count(config))
    for k, v in terms.items():
        print(f"{k:45s} {v / 1e6:12.2f} MFLOP  {100 * v / total:5.1f}%")
    print(f"{'total per node and step':45s} {total / 1e9:12.4f} GFLOP")
    print(f"{'parameters (from the same shapes)':45s} {params:12d}")
    return 0


def clock(args):
    profile = profiles_or_fail([args.profile])[0]
    clk = run_clock(args.run_dir)
    if args.bandwidth_gbps is not None:
        net = Network("given", args.bandwidth_gbps, args.latency_us)
    else:
        net = PRESETS[args.network]
    terms = link_terms_or_fail(args.link_terms)
    net = with_link_terms(net, terms)
    cstep, how = profile_compute(profile, clk)
    print(f"# {args.run_dir}: profile {profile['name']} (c = {cstep * 1e3:.3f} ms, {how}), "
          f"network {net.gbps} Gbit/s, {net.latency_us} us; {terms.describe()}")
    print("step\tdev_ce\tbleu\tvirtual_s\tcompute_s\tselection_s\tbandwidth_s\tlatency_s")
    for v in clk.valid:
        s = int(v["step"])
        tot, parts = clk.time(s, cstep, net, profile["selection"])
        print(f"{s}\t{v.get('dev_ce')}\t{v.get('bleu')}\t{tot:.3f}\t" +
              "\t".join(f"{parts[k]:.3f}" for k in ("compute", "selection", "bandwidth", "latency")))
    return 0


def measure(args):
    for d in args.run_dirs:
        clk = run_clock(d)
        comp = sorted(number(r.get("compute_s")) for r in clk.log if number(r.get("compute_s")) is not None)
        if not comp:
            print(f"{d}: no compute_s in log.jsonl")
            continue
        med = comp[len(comp) // 2]
        fl, _ = counted(os.path.join(d, "config.json"),
                        lambda: flops_per_step(clk.config, clk.tokens_per_node_step()))
        walls = [(int(r["step"]), number(r.get("wall_s"))) for r in clk.log
                 if number(r.get("wall_s")) is not None and "step" in r]
        wall = ""
        if len(walls) >= 2 and walls[-1][0] > walls[0][0]:
            w = (walls[-1][1] - walls[0][1]) / (walls[-1][0] - walls[0][0])
            wall = (f", wall {w:.5f} s/step between the first and last logged step (compute_s "
                    f"plus what a step does outside it: batching, logging)")
        print(f"{d}: {len(comp)} logged steps, median compute_s {med:.5f} s/step "
              f"(mean over all steps {clk.measured_compute_per_step():.5f}){wall}, "
              f"{clk.tokens_per_node_step():.1f} target tokens/node/step, "
              f"{fl / 1e9:.4f} GFLOP/step -> {fl / med / 1e9:.2f} GFLOP/s sustained")
    return 0
