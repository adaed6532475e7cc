"""Run configs as plain dicts: dotted look-ups, matching, and the "extends" chain of
lib/experiment/config_loader.cpp (for config files that are not a run's resolved config.json)."""
import json
import os

from .logfiles import number


def dotted(config, key):
    """config["a"]["b"] for key "a.b"; None when any part is missing."""
    cur = config
    for part in key.split("."):
        if not isinstance(cur, dict) or part not in cur:
            return None
        cur = cur[part]
    return cur


def matches(config, match):
    """True when every dotted key of match has that value in config (numbers to 1e-6)."""
    for k, v in match.items():
        have = dotted(config, k)
        if isinstance(v, (int, float)) and number(have) is not None:
            if abs(float(have) - float(v)) > 1e-6 * max(1.0, abs(float(v))):
                return False
        elif have != v:
            return False
    return True


def merge_into(base, top):
    for k, v in top.items():
        if isinstance(v, dict) and isinstance(base.get(k), dict):
            merge_into(base[k], v)
        else:
            base[k] = v


def load_config(path, depth=0):
    """A config file with its "extends" chain merged (as lib/experiment/config_loader.cpp);
    defaults the trainer adds are not filled in (a run's config.json has them all)."""
    with open(path, encoding="utf-8") as f:
        j = json.load(f)
    base = j.pop("extends", None)
    if base is None or depth > 8:
        return j
    if not os.path.isabs(base):
        base = os.path.join(os.path.dirname(path), base)
    merged = load_config(base, depth + 1)
    merge_into(merged, j)
    return merged


def model_vocab(config):
    m, d = config.get("model", {}), config.get("data", {})
    return int(m.get("vocab_size") or d.get("vocab_size"))
