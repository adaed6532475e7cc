"""One entry point for every analysis command: analyze.py COMMAND [ARGS]."""
import importlib
import os
import sys

# command -> (module of slanalysis.commands, what it does)
COMMANDS = {
    "claims": ("claims", "the numbers behind each claim (markdown; --v2: seeds, plateau, "
                         "virtual clock)"),
    "plot": ("plot", "convergence figures and summary.md (matplotlib)"),
    "speedup-map": ("speedup_map", "speed-up maps over bandwidth x compute per step"),
    "vclock": ("vclock", "virtual clock of a run, FLOP counter, measured profile numbers"),
    "bytes-report": ("bytes_report", "bytes, divergence and modeled time from log.jsonl"),
    "speedup-vs-target": ("speedup_target", "v3: speed-up against the target with bootstrap "
                                            "intervals over seeds, and its figures"),
    "clock-validation": ("clock_validation", "issue 29: measured communication over a "
                                             "rate-limited link against the ring model, fitted"),
    "v3-status": ("v3_status", "v3: where the suite stands (lr sweep table, budget runs, "
                               "finished runs) from the driver's plan.json"),
    "convergence": ("convergence", "v3: 4-node dense at S vs 2S (dev CE within 2%, test BLEU "
                                   "within 1.0)"),
    "claims-v3": ("claims_v3", "v3: the pre-registered verdict per claim (reproduced / partly / "
                               "not / pending) with the numbers behind it; --json"),
    "scaling": ("scaling", "v3 phase 4: 1 -> 2 -> 4 nodes and the drop ratio (seed 1; claim 3's "
                           "target and clock), and its figure"),
}


def usage():
    lines = ["usage: analyze.py COMMAND [ARGS]   (analyze.py COMMAND -h for its options)", ""]
    lines += [f"  {name:18s} {what}" for name, (_, what) in COMMANDS.items()]
    return "\n".join(lines)


def main(argv):
    if not argv or argv[0] in ("-h", "--help"):
        print(usage(), file=sys.stdout if argv else sys.stderr)
        return 0 if argv else 2
    if argv[0] not in COMMANDS:
        print(f"analyze.py: error: unknown command {argv[0]!r}\n{usage()}", file=sys.stderr)
        return 2
    module = importlib.import_module(f"{__package__}.{COMMANDS[argv[0]][0]}")
    return module.main(argv[1:], prog=f"analyze.py {argv[0]}")


def entry(command_main, argv):
    """Runs a command's main from a script and exits with its status. A reader that stops
    early (`analyze.py ... | head`) closes the pipe: that ends the command quietly, as it
    does for any Unix filter, instead of with a traceback."""
    try:
        status = command_main(argv)
        sys.stdout.flush()
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no second error at exit
        status = 1
    sys.exit(status)
