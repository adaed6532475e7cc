"""Logs of communication model 1, brought to model 2 (lib/distributed/comm_accounting.h).

Binaries before commit f22cced (2026-12-06) (no `comm_model` key in their log lines, valid lines, summary)
modeled a variable-size all-gather as its blocks only; the exchange of the block sizes that
precedes them, an all-gather of 8 bytes per node, was left out. Methods whose every step is
such an all-gather (every `sparse*` label, `demo`) therefore lack, per step and network,

    gap = (N - 1) * 8 / (eta B)  +  (N - 1) * (a + o)          (network.py's terms)

in `modeled_comm_s` / `modeled_step_s`, and step * gap in the cumulative `modeled_time_s`.
upgrade_run adds it, in place, to every row without `comm_model` >= 2, so all the analysis
sees one model. Rows a newer binary wrote after resuming an old checkpoint carry
`comm_model` 2 and already include the steps before the resume (the trainer upgrades its
totals), so a run continued across binaries comes out right row by row."""
from .network import PRESETS, Network, ring_comm_s

CURRENT = 2
SIZE_BYTES = 8  # one uint64 block size per node


def gathers_every_step(method):
    """Whether every step of this method label is one variable-size all-gather."""
    return isinstance(method, str) and (method.startswith("sparse") or method == "demo")


def configured_network(config):
    """The run's distributed.network as a Network; None without a config (the rows'
    `configured` entry is then left alone) or when it cannot be read."""
    if not isinstance(config, dict) or not isinstance(config.get("distributed"), dict):
        return None
    net = config["distributed"].get("network", "10gbe")  # run-experiment's default
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
    """Modeled seconds of one size exchange (an all-gather of 8 bytes per node) on net: (N-1)
    ring bytes per 8-byte block and N-1 hops."""
    return sum(ring_comm_s((nodes - 1) * SIZE_BYTES, nodes - 1, net))


def gap_per_step(method, nodes, config):
    """{network key: seconds model 1 left out of each step}; {} when it left out nothing."""
    if not gathers_every_step(method) or not nodes or nodes < 2:
        return {}
    gap = {k: size_exchange_s(n, nodes) for k, n in PRESETS.items()}
    net = configured_network(config)
    if net is not None:
        gap["configured"] = size_exchange_s(net, nodes)
    return gap


def _number(x):
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def _add(times, gap, factor, configured_key="configured"):
    """times[k] += factor * gap[k]; the configured network's entry is times[configured_key]
    (None: not in times)."""
    if not isinstance(times, dict):
        return
    for k, g in gap.items():
        key = configured_key if k == "configured" else k
        if key is not None and _number(times.get(key)):
            times[key] += factor * g


def _is_old(row):
    v = row.get("comm_model")
    return not isinstance(v, int) or v < CURRENT


def upgrade_run(config, method, nodes, log, valid, summary, note=None):
    """Adds model 1's missing size exchanges to the old rows of one run (log and valid lines,
    summary), in place, and marks them comm_model 2. Returns how many rows it changed.
    Leaves everything alone when the method or the node count is unknown. Skipped steps (a
    non-finite loss) exchanged nothing: summary.json's `skipped_steps` is taken out of its own
    count; log and valid lines cannot know theirs, so with skipped steps they may be high by
    up to skipped_steps x gap (noted). Rows an older binary wrote after a newer one's (a run
    resumed with an older build) count the gap twice from the resume on (noted; not fixable
    from the logs)."""
    if not isinstance(method, str) or method in ("", "?") or not _number(nodes):
        return 0
    say = note or (lambda _m: None)
    gap = gap_per_step(method, int(nodes), config)
    rows = [r for r in list(log or []) + list(valid or []) if isinstance(r, dict)]
    newest_versioned = max((r.get("step", 0) for r in rows if not _is_old(r)
                            and _number(r.get("step"))), default=None)
    if gap and newest_versioned is not None and any(
            _is_old(r) and _number(r.get("step")) and r["step"] > newest_versioned for r in rows):
        say("log lines without comm_model follow lines with it (resumed by an older binary?): "
            "their modeled times count the sparse size exchange twice from that resume on")
    skipped = summary.get("skipped_steps") if isinstance(summary, dict) else None
    skipped = int(skipped) if _number(skipped) else 0
    if gap and skipped > 0 and any(_is_old(r) for r in rows):
        say(f"{skipped} skipped steps: the upgraded modeled times of log and valid lines may be "
            f"high by up to {skipped} x the size exchange")
    changed = 0
    targets = [(r, r.get("step")) for r in rows]
    if isinstance(summary, dict):
        steps = summary.get("steps")
        targets.append((summary, steps - skipped if _number(steps) else None))
    for row, step in targets:
        if not _is_old(row):
            continue
        if gap and _number(step):
            _add(row.get("modeled_time_s"), gap, float(step))
            for key in ("modeled_comm_s", "modeled_step_s"):
                _add(row.get(key), gap, 1.0)
            st = row.get("strategy")
            if isinstance(st, dict):
                # node 0's record keys the configured network by its name ("custom", or a
                # preset's, where it equals that preset's entry)
                name = st.get("network")
                custom = isinstance(name, str) and name not in PRESETS
                _add(st.get("modeled_comm_s"), gap, 1.0, configured_key=name if custom else None)
            changed += 1
        row["comm_model"] = CURRENT
    return changed
