"""Virtual time of every logged and validated step of a run, for tables and figures that put
runs on a hardware profile's clock (plot.py --profile)."""
from .clock import RunClock
from .logfiles import number
from .profiles import profile_compute


def annotate(exps, profile, net, key, note):
    """Stores the virtual seconds of each row with a step > 0 under row[key] (rows of
    experiment.Experiment.valid and .log); a run without a clock for this profile is noted."""
    for e in exps:
        try:
            clock = RunClock(e)
            c = profile_compute(profile, clock)[0]
        except (ValueError, KeyError, OSError, TypeError) as err:
            note(f"{e.name}: no virtual clock for profile {profile['name']} ({err})")
            continue
        for r in e.valid + e.log:
            s = number(r.get("step"))
            if s is not None and s > 0:
                r[key] = clock.time(int(s), c, net, profile["selection"])[0]
