"""Logs of communication model 1, brought to model 2 (lib/distributed/comm_accounting.h).

Binaries before 2026-12-07 (no `comm_model` key in their log lines, valid lines, summary)
modeled a variable-size all-gather as its blocks only; the exchange of the block sizes that
precedes them, an all-gather of 8 bytes per node, was left out. Methods whose every step is
such an all-gather (every `sparse*` label, `demo`) therefore lack, per step and network,

    gap = (N - 1) * 8 / (eta B)  +  (N - 1) * (a + o)          (network.py's terms)

in `modeled_comm_s` / `modeled_step_s`, and step * gap in the cumulative `modeled_time_s`.
upgrade_run adds it, in place, to every row without `comm_model` >= 2, so all the analysis
sees one model. Rows a newer binary wrote after resuming an old checkpoint carry
`comm_model` 2 and already include the steps before the resume (the trainer upgrades its
totals), so a run continued across binaries comes out right row by row."""
from .config import dotted
from .network import PRESETS, Network

CURRENT = 2
SIZE_BYTES = 8  # one uint64 block size per node


def gathers_every_step(method):
    """Whether every step of this method label is one variable-size all-gather."""
    return isinstance(method, str) and (method.startswith("sparse") or method == "demo")


def configured_network(config):
    """The run's distributed.network as a Network, None when it cannot be read (the rows'
    `configured` entry is then left alone)."""
    net = dotted(config, "distributed.network")
    if net is None:
        net = "10gbe"  # run-experiment's default
    if isinstance(net, str):
        return PRESETS.get(net)
    if isinstance(net, dict):
        try:
            return Network("configured", float(net["bandwidth_gbps"]),
                           float(net.get("latency_us", 0.0)), float(net.get("efficiency", 1.0)),
                           float(net.get("overhead_us", 0.0)))
        except (KeyError, TypeError, ValueError):
            return None
    return None


def size_exchange_s(net, nodes):
    """Modeled seconds of one size exchange (an all-gather of 8 bytes per node) on net."""
    return (nodes - 1) * (SIZE_BYTES * 8.0 / (net.gbps * net.efficiency * 1e9) +
                          (net.latency_us + net.overhead_us) * 1e-6)


def gap_per_step(method, nodes, config):
    """{network key: seconds model 1 left out of each step}; {} when it left out nothing."""
    if not gathers_every_step(method) or not nodes or nodes < 2:
        return {}
    gap = {k: size_exchange_s(n, nodes) for k, n in PRESETS.items()}
    net = configured_network(config)
    if net is not None:
        gap["configured"] = size_exchange_s(net, nodes)
    return gap


def _add(times, gap, factor):
    if isinstance(times, dict):
        for k, g in gap.items():
            if isinstance(times.get(k), (int, float)) and not isinstance(times.get(k), bool):
                times[k] += factor * g


def _is_old(row):
    v = row.get("comm_model")
    return not isinstance(v, int) or v < CURRENT


def upgrade_run(config, method, nodes, log, valid, summary):
    """Adds model 1's missing size exchanges to the old rows of one run (log and valid lines,
    summary), in place; marks them comm_model 2. Returns how many rows it changed."""
    gap = gap_per_step(method, nodes, config or {})
    changed = 0
    for row in list(log or []) + list(valid or []) + ([summary] if summary else []):
        if not isinstance(row, dict) or not _is_old(row):
            continue
        step = row.get("step", row.get("steps"))
        if gap and isinstance(step, (int, float)) and not isinstance(step, bool):
            _add(row.get("modeled_time_s"), gap, float(step))
            for key in ("modeled_comm_s", "modeled_step_s"):
                _add(row.get(key), gap, 1.0)
            st = row.get("strategy")
            if isinstance(st, dict):
                _add(st.get("modeled_comm_s"), gap, 1.0)
            changed += 1
        row["comm_model"] = CURRENT
    return changed
