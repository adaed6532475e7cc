"""Hardware profiles (configs/hardware/*.json): the compute seconds c of one step on one node,
and how gradient selection is charged on the virtual clock."""
import glob
import json
import os

from .config import dotted, matches
from .flops import flops_per_step
from .logfiles import number

DEFAULT_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "configs",
                           "hardware")


def load_profile(path):
    with open(path, encoding="utf-8") as f:
        try:
            p = json.load(f)
        except ValueError as e:
            raise ValueError(f"{path}: not JSON ({e})")
    if not isinstance(p, dict):
        raise ValueError(f"{path}: a profile is a JSON object")
    for key in ("name", "source"):
        if not isinstance(p.get(key), str) or not p[key]:
            raise ValueError(f"{path}: profile needs a non-empty {key!r}")
    if number(p.get("sustained_flops")) is None and not p.get("seconds_per_step"):
        raise ValueError(f"{path}: profile needs sustained_flops or seconds_per_step")
    p.setdefault("overhead_s", 0.0)  # a number, or {model type: seconds}
    p.setdefault("selection", {"mode": "measured"})
    sel = p["selection"]
    if not isinstance(sel, dict) or sel.get("mode", "measured") not in ("measured", "modeled", "none"):
        raise ValueError(f"{path}: selection.mode must be \"measured\", \"modeled\" or \"none\"")
    if sel.get("mode") == "modeled" and number(sel.get("select_values_per_s")) is None:
        raise ValueError(f"{path}: selection mode \"modeled\" needs a number select_values_per_s")
    p.setdefault("sensitivity", [1.0])
    p["path"] = path
    return p


def load_profiles(paths):
    """The given profiles, or every profile shipped in configs/hardware/ (sorted by file name)."""
    if not paths:
        paths = sorted(glob.glob(os.path.join(DEFAULT_DIR, "*.json")))
    return [load_profile(p) for p in paths]


def step_compute_s(profile, config, tgt_tokens=None, scale=1.0):
    """c: seconds of one step on one node, and how it was obtained."""
    for entry in profile.get("seconds_per_step") or []:
        if matches(config, entry.get("match", {})):
            return scale * float(entry["seconds"]), "seconds_per_step (matched)"
    flops = number(profile.get("sustained_flops"))
    if flops is None:
        raise ValueError(f"profile {profile['name']}: no seconds_per_step entry matches "
                         f"this model and no sustained_flops to fall back on")
    f, _ = flops_per_step(config, tgt_tokens)
    over = profile.get("overhead_s", 0.0)
    if isinstance(over, dict):
        over = over.get(dotted(config, "model.type"), 0.0)
    return scale * (float(over) + f / flops), "overhead_s + FLOPs / sustained_flops"


def profile_compute(profile, clock, scale=1.0):
    """(c, how) for the run behind clock (a clock.RunClock: its config and tokens per step)."""
    return step_compute_s(profile, clock.config, clock.tokens_per_node_step(), scale)


def without_selection_cost(profile):
    """A copy of the profile whose selection costs nothing (mode "none"): the lower bound of
    a compressing method's virtual time, beside its measured or modeled selection."""
    p = dict(profile)
    p["selection"] = {"mode": "none"}
    p["name"] = f"{profile['name']}, selection free"
    return p
