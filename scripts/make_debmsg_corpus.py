#!/usr/bin/env python3
"""Builds the German->English corpus data/debmsg-de-en from unpacked Debian packages.

Called by scripts/make-debmsg-corpus.sh, which downloads and unpacks the packages and
writes a manifest (one line per package: name, version, unpacked dir, tab-separated).
Standard library only; works with /usr/bin/python3 and any python3 >= 3.8.

Cleaning rules (each one is a decision; copied into PROVENANCE.md):
  * German catalogs only: <root>/usr/share/locale/de/LC_MESSAGES/*.mo (de_CH, de_DE, ...
    are left out so each message is counted once).
  * Skipped entries: the header, plural entries (msgid contains NUL), entries with a
    context (msgid contains EOT), empty msgid or msgstr.
  * Both sides NFC-normalised and stripped; a pair with an inner newline is dropped
    (multi-line help texts are not sentences); runs of spaces/tabs become one space;
    a pair with any other control character is dropped.
  * 2..60 whitespace-separated words per side; at least half of each side's words contain
    a letter and at most 3 printf directives per side ("%s: %s:%d: %s" is not language);
    word-count ratio at most 3 when the longer side has more than 4 words; characters
    ratio within [1/3, 3].
  * Sides that are equal ignoring case are dropped (untranslated entries).
  * De-duplication by the German source: when one German sentence has several English
    originals, the most frequent one is kept, ties broken by the smaller string.
  * Split: pairs are grouped into connected components where two pairs share a component
    when their English or their German sides are equal after normalisation (case-folded,
    only letters kept), so "Cannot open %s" and "cannot open '%s':" never straddle splits.
    Components are ordered by the smallest sha256 of their normalised English keys; the
    first 1000 give dev, the next 1000 test (one pair each, the pair with the smallest
    sha256), the rest train (all pairs).
"""
import argparse
import collections
import fnmatch
import gzip
import hashlib
import os
import re
import struct
import sys
import unicodedata

RULES_HEADING = "Cleaning rules (each one is a decision; copied into PROVENANCE.md):"
DEV_SIZE = 1000
TEST_SIZE = 1000
TINY_SIZES = {"train": 2000, "dev": 100, "test": 100}
TINY_MAX_WORDS = 20
MIN_WORDS, MAX_WORDS = 2, 60
MAX_PRINTF = 3

PRINTF_RE = re.compile(
    r"%(?:\d+\$)?[-+ #0']*(?:\*|\d+)?(?:\.(?:\*|\d+))?"
    r"(?:hh|h|ll|l|L|q|j|z|t|I64)?[diouxXeEfgGaAcspnm%]|%<[A-Za-z0-9_]+>")
SPACES_RE = re.compile(r"[ \t\u00a0]+")


def read_mo(path):
    """Yields (msgid, msgstr) byte strings of a GNU .mo file and its charset."""
    data = open(path, "rb").read()
    if len(data) < 28:
        raise ValueError(f"{path}: too short for a .mo file")
    magic = struct.unpack("<I", data[:4])[0]
    endian = "<" if magic == 0x950412DE else ">" if magic == 0xDE120495 else None
    if endian is None:
        raise ValueError(f"{path}: not a .mo file (magic {magic:#x})")
    _rev, count, orig_off, trans_off = struct.unpack(endian + "4I", data[4:20])
    entries = []
    for i in range(count):
        olen, opos = struct.unpack(endian + "2I", data[orig_off + 8 * i: orig_off + 8 * i + 8])
        tlen, tpos = struct.unpack(endian + "2I", data[trans_off + 8 * i: trans_off + 8 * i + 8])
        entries.append((data[opos:opos + olen], data[tpos:tpos + tlen]))
    charset = "utf-8"
    for msgid, msgstr in entries:
        if msgid == b"":
            m = re.search(rb"charset=([A-Za-z0-9_.:-]+)", msgstr)
            if m:
                charset = m.group(1).decode("ascii")
    return entries, charset


def clean_side(text):
    """Returns the single-line form of a message, or None when it must be dropped."""
    text = unicodedata.normalize("NFC", text).strip()
    if "\n" in text or "\r" in text:
        return None
    text = SPACES_RE.sub(" ", text)
    if any(unicodedata.category(c) == "Cc" for c in text):
        return None
    return text


def side_ok(text):
    words = text.split(" ")
    if not MIN_WORDS <= len(words) <= MAX_WORDS:
        return False
    lettered = sum(1 for w in words if any(c.isalpha() for c in w))
    if 2 * lettered < len(words):
        return False
    return len(PRINTF_RE.findall(text)) <= MAX_PRINTF


def pair_ok(de, en):
    if de.casefold() == en.casefold() or not side_ok(de) or not side_ok(en):
        return False
    nd, ne = len(de.split(" ")), len(en.split(" "))
    if max(nd, ne) > 4 and max(nd, ne) > 3 * min(nd, ne):
        return False
    return 1 / 3 <= len(de) / len(en) <= 3


def extract_package(root):
    """Yields (de, en) cleaned pairs of one unpacked package, in a fixed order."""
    locale_dir = os.path.join(root, "usr/share/locale/de/LC_MESSAGES")
    if not os.path.isdir(locale_dir):
        return
    for name in sorted(os.listdir(locale_dir)):
        if not name.endswith(".mo"):
            continue
        entries, charset = read_mo(os.path.join(locale_dir, name))
        for msgid, msgstr in entries:
            if not msgid or not msgstr or b"\x00" in msgid or b"\x04" in msgid:
                continue
            try:
                en = clean_side(msgid.decode(charset))
                de = clean_side(msgstr.decode(charset))
            except (UnicodeDecodeError, LookupError):
                continue
            if en is not None and de is not None and pair_ok(de, en):
                yield de, en


def sha(text):
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def norm_key(text):
    text = PRINTF_RE.sub(" ", text.casefold())
    return " ".join("".join(c if c.isalpha() else " " for c in text).split())


def dedup_by_source(pairs_by_pkg):
    """Returns {de: (en, first package)}: one English per German sentence."""
    counts = collections.defaultdict(collections.Counter)
    first_pkg = {}
    for pkg, pairs in pairs_by_pkg:
        for de, en in pairs:
            counts[de][en] += 1
            first_pkg.setdefault((de, en), pkg)
    chosen = {}
    for de, counter in counts.items():
        en = min(counter, key=lambda e: (-counter[e], e))
        chosen[de] = (en, first_pkg[(de, en)])
    return chosen


def components(pairs):
    """Groups pairs whose normalised English or German sides coincide (union-find)."""
    parent = {}

    def find(x):
        while parent.setdefault(x, x) != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for de, en in pairs:
        a, b = find("en:" + norm_key(en)), find("de:" + norm_key(de))
        if a != b:
            parent[max(a, b)] = min(a, b)
    groups = collections.defaultdict(list)
    for de, en in pairs:
        groups[find("en:" + norm_key(en))].append((de, en))
    keyed = []
    for members in groups.values():
        order = min(sha(norm_key(en)) for _, en in members)
        members.sort(key=lambda p: sha(p[0] + "\t" + p[1]))
        keyed.append((order, members))
    keyed.sort()
    return [m for _, m in keyed]


def split(chosen):
    pairs = sorted((de, en) for de, (en, _) in chosen.items())
    groups = components(pairs)
    if len(groups) < DEV_SIZE + TEST_SIZE + 1:
        sys.exit(f"only {len(groups)} sentence groups; need more than {DEV_SIZE + TEST_SIZE}")
    dev = [g[0] for g in groups[:DEV_SIZE]]
    test = [g[0] for g in groups[DEV_SIZE:DEV_SIZE + TEST_SIZE]]
    train = [p for g in groups[DEV_SIZE + TEST_SIZE:] for p in g]
    dropped = sum(len(g) - 1 for g in groups[:DEV_SIZE + TEST_SIZE])
    by_hash = lambda p: sha(p[0] + "\t" + p[1])  # noqa: E731 - mixes packages in files
    return {"train": sorted(train, key=by_hash), "dev": sorted(dev, key=by_hash),
            "test": sorted(test, key=by_hash)}, len(groups), dropped


def write_gz(path, lines):
    # Same bytes on every run: no file name and mtime 0 in the header, like `gzip -n`.
    with open(path, "wb") as raw:
        with gzip.GzipFile(filename="", mode="wb", compresslevel=9, fileobj=raw, mtime=0) as f:
            f.write("".join(line + "\n" for line in lines).encode("utf-8"))


def write_text(path, lines):
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        f.write("".join(line + "\n" for line in lines))


def file_sha(path):
    return hashlib.sha256(open(path, "rb").read()).hexdigest()


PERMISSIVE_TEXTS = [("Permission is hereby granted, free of charge", "Expat/MIT text"),
                    ("Permission to use, copy, modify, distribute", "MIT/X11-style text")]


def licence_names(copyright_path):
    """Licence names of a debian/copyright file, the one that covers po/de.po first.

    DEP-5 files: the `License:` of the last stanza whose `Files:` patterns match
    po/de.po (DEP-5's rule), then every other `License:` name. Free-form files: the
    /usr/share/common-licenses they mention and recognised permission texts; free-form
    files are marked as such because the names are then only a hint."""
    if not copyright_path:
        return ["no copyright file found"]
    text = open(copyright_path, encoding="utf-8", errors="replace").read()
    if text.startswith("Format:"):
        names, po_licence = [], None
        for stanza in re.split(r"\n\s*\n", text):
            files = re.search(r"^Files:\s*((?:.*)(?:\n[ \t].*)*)", stanza, re.M)
            lic = re.search(r"^License:[ \t]*(\S.*)$", stanza, re.M)
            if files and lic:
                name = lic.group(1).strip()
                names.append(name)
                if any(fnmatch.fnmatchcase("po/de.po", pat) for pat in files.group(1).split()):
                    po_licence = name
        names = list(dict.fromkeys(names))
        if po_licence:
            names.remove(po_licence)
            names.insert(0, po_licence)
        return names or ["DEP-5 without License fields"]
    flat = " ".join(text.split())
    hints = sorted(set(m.rstrip(".,;)'\"") for m in
                       re.findall(r"/usr/share/common-licenses/([A-Za-z0-9.+_-]+)", flat)))
    hints += [label for phrase, label in PERMISSIVE_TEXTS if phrase in flat]
    return ["free-form copyright, mentions: " + ", ".join(hints) if hints
            else "free-form copyright, no licence name found"]


def read_manifest(path):
    rows = []
    for line in open(path, encoding="utf-8"):
        name, version, root, copyright_path = line.rstrip("\n").split("\t")
        rows.append((name, version, root, licence_names(copyright_path)))
    return rows


def provenance(out_dir, tiny_dir, rows, splits, chosen, stats, command):
    pkg_of = {(de, en): pkg for de, (en, pkg) in chosen.items()}
    per_pkg = {name: collections.Counter() for name, *_ in rows}
    for split_name, pairs in splits.items():
        for p in pairs:
            per_pkg[pkg_of[p]][split_name] += 1
    lines = ["# debmsg-de-en: German -> English pairs from Debian gettext catalogs", "",
             "Source German (`.de`), target English (`.en`); one sentence per line, UTF-8,",
             "line i of `X.de` translates line i of `X.en`. The English side is the",
             "programs' original msgid; the German side is the Debian-shipped translation.",
             "", "Regenerate on Debian 12 (bookworm) with access to a Debian mirror (after "
             "`apt-get update`; nothing is installed):", "", "```", command, "```", "",
             "If a pinned version has left the mirror the script warns and uses the current "
             "one (the table below then records it). For these exact bytes use the "
             "snapshot.debian.org archive of 2025-05-20 (see the script's header).", "",
             "## Counts", "", "| split | pairs |", "|---|---|"]
    lines += [f"| {s} | {len(splits[s])} |" for s in ("train", "dev", "test")]
    lines += ["", f"Candidate pairs after cleaning (with repeats): {stats['raw']}; distinct German "
              f"sources: {len(chosen)}; sentence groups: {stats['groups']}; pairs dropped from "
              f"dev/test groups (one pair per group kept): {stats['dropped']}.", "",
              "## Packages", "",
              "Licence: the `License:` short name that the package's debian/copyright gives "
              "po/de.po (DEP-5: last matching `Files:` stanza; free-form files: the "
              "common-licenses it mentions, a hint only); "
              "the translations ship in the package under its licence. All names in each "
              "copyright file are listed below the table. Counts: pairs attributed to the "
              "first package (in this order) that ships the kept pair.", "",
              "| package | version | licence | train | dev | test |", "|---|---|---|---|---|---|"]
    for name, version, _root, licences in rows:
        c = per_pkg[name]
        counts = " | ".join(str(c[s]) for s in ("train", "dev", "test"))
        lines.append(f"| {name} | {version} | {licences[0]} | {counts} |")
    lines += ["", "All licence names in each package's copyright file:", ""]
    lines += [f"- {name}: {'; '.join(licences)}" for name, _v, _r, licences in rows]
    lines += ["", "## Files (sha256; check with `cd data && sha256sum -c`)", ""]
    for d in (out_dir, tiny_dir):
        for s in ("train", "dev", "test"):
            for lang in ("de", "en"):
                name = f"{s}.{lang}.gz" if d == out_dir else f"{s}.{lang}"
                path = os.path.join(d, name)
                rel = os.path.join(os.path.basename(d), name)
                lines.append(f"    {file_sha(path)}  {rel}")
    lines += ["", "## Tiny corpus for CI (data/tiny-de-en)", "",
              f"The first {TINY_SIZES['train']} / {TINY_SIZES['dev']} / {TINY_SIZES['test']} "
              f"lines (in file order) of train / dev / test here whose both sides have at most "
              f"{TINY_MAX_WORDS} words; uncompressed. Made by the same command.", "",
              "## Cleaning rules", ""]
    doc = __doc__.split(RULES_HEADING)[1]
    lines += [l[2:] if l.startswith("  ") else l for l in doc.strip("\n").split("\n")]
    write_text(os.path.join(out_dir, "PROVENANCE.md"), lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--manifest", required=True)
    ap.add_argument("--out", required=True, help="e.g. data/debmsg-de-en")
    ap.add_argument("--tiny-out", required=True, help="e.g. data/tiny-de-en")
    ap.add_argument("--command", required=True, help="the command line recorded in PROVENANCE.md")
    args = ap.parse_args()
    rows = read_manifest(args.manifest)
    pairs_by_pkg = [(name, list(extract_package(root))) for name, _v, root, _l in rows]
    raw = sum(len(p) for _, p in pairs_by_pkg)
    chosen = dedup_by_source(pairs_by_pkg)
    splits, groups, dropped = split(chosen)
    os.makedirs(args.out, exist_ok=True)
    os.makedirs(args.tiny_out, exist_ok=True)
    for s, pairs in splits.items():
        write_gz(os.path.join(args.out, f"{s}.de.gz"), [de for de, _ in pairs])
        write_gz(os.path.join(args.out, f"{s}.en.gz"), [en for _, en in pairs])
        short = [p for p in pairs
                 if max(len(p[0].split(" ")), len(p[1].split(" "))) <= TINY_MAX_WORDS]
        short = short[:TINY_SIZES[s]]
        write_text(os.path.join(args.tiny_out, f"{s}.de"), [de for de, _ in short])
        write_text(os.path.join(args.tiny_out, f"{s}.en"), [en for _, en in short])
    provenance(args.out, args.tiny_out, rows, splits, chosen,
               {"raw": raw, "groups": groups, "dropped": dropped}, args.command)
    print(f"train {len(splits['train'])}  dev {len(splits['dev'])}  test {len(splits['test'])}"
          f"  (distinct sources {len(chosen)}, groups {groups})")


if __name__ == "__main__":
    main()
