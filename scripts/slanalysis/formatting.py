"""How numbers and tables are written in every markdown output (one place, so the tables of
claims.py, plot.py and speedup_map.py stay consistent)."""
import statistics


def fmt(x, digits=2, unit=""):
    return "n/a" if x is None else f"{x:.{digits}f}{unit}"


def ratio(ref, t):
    """Speed-up cell: ref / t, or n/a when either is missing or zero."""
    return f"{ref / t:.2f}x" if ref and t else "n/a"


def pct(new, ref):
    if new is None or ref is None or ref == 0:
        return "n/a"
    return f"{100.0 * (new - ref) / abs(ref):+.1f}%"


def mean_sd(xs, digits=3):
    """'m +- sd (n)' over seeds; sd is the sample standard deviation (n - 1)."""
    xs = [x for x in xs if x is not None]
    if not xs:
        return "n/a"
    if len(xs) == 1:
        return f"{xs[0]:.{digits}f} (n=1)"
    return f"{statistics.mean(xs):.{digits}f} +- {statistics.stdev(xs):.{digits}f} (n={len(xs)})"


def human_bytes(b):
    for unit, size in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if b >= size:
            return f"{b / size:.2f} {unit}"
    return f"{b:.0f} B"


def md_table(head, rows):
    """Markdown lines of a table: header, separator, one line per row (lists of strings)."""
    return ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)] + \
           ["| " + " | ".join(r) + " |" for r in rows]


def slug(text):
    return "".join(c if c.isalnum() else "-" for c in text.lower()).strip("-").replace("--", "-")


def wrap(text, width):
    """Greedy word wrap (figure annotations)."""
    words, lines, cur = text.split(), [], ""
    for w in words:
        if cur and len(cur) + 1 + len(w) > width:
            lines.append(cur)
            cur = w
        else:
            cur = (cur + " " + w).strip()
    return lines + [cur] if cur else lines
