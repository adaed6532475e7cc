#!/usr/bin/env bash
# Prepares WMT16 Romanian->English in the layout of the embedded corpus:
#   data/wmt16-ro-en/{train,dev,test}.{ro,en}.gz   (source ro, target en)
#
# Needs internet on a real run: curl, tar, unzip, gzip, python3 (standard library) and
# sacrebleu (`python3 -m pip install sacrebleu`). Tested end to end offline by ctest
# `scripts_prepare_wmt16` (tests/scripts/check_prepare_wmt16.sh): synthetic archives with
# WMT16's layout behind file:// URLs and a stand-in sacrebleu; the real download has not
# been run from this machine (no internet).
#
# Sources can be redirected (mirrors, offline copies, the test): SL_EUROPARL_URL,
# SL_SETIMES_URL, SL_BT_URL (curl URLs, file:// included) and SL_SACREBLEU (the sacrebleu
# command).
#
# Data (the WMT16 constrained news task, as in Sennrich et al.'s wmt16-scripts):
#   train: Europarl v7 ro-en + SETimes2 en-ro (OPUS)                     ~600k pairs
#          --with-backtranslations adds Sennrich's 2016 back-translated news (~2.3M)
#   dev:   newsdev2016 (sacrebleu -t wmt16/dev), 1999 lines
#   test:  newstest2016 (sacrebleu -t wmt16), 1999 lines
# Normalisation, all splits: Unicode NFC; cedilla s/t (U+015E/F, U+0162/3) -> comma-below
# (U+0218/9, U+021A/B), the standard Romanian forms; whitespace runs -> one space, stripped.
# Training pairs only: drop empty sides, sides over 100 words, and word-count ratio > 3
# when the longer side has more than 5 words. Dev and test are never filtered.
#
# Usage: scripts/prepare-wmt16-roen.sh [--with-backtranslations] [OUT_DIR]
#        (OUT_DIR defaults to data/wmt16-ro-en under the repository root)
set -euo pipefail

with_bt=0
if [ "${1:-}" = "--with-backtranslations" ]; then with_bt=1; shift; fi
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
out="${1:-$(dirname "$here")/data/wmt16-ro-en}"
python="${PYTHON:-python3}"

EUROPARL_URL=${SL_EUROPARL_URL:-http://www.statmt.org/europarl/v7/ro-en.tgz}
SETIMES_URL=${SL_SETIMES_URL:-https://object.pouta.csc.fi/OPUS-SETIMES/v2/moses/en-ro.txt.zip}
BT_URL=${SL_BT_URL:-http://data.statmt.org/rsennrich/wmt16_backtranslations/ro-en}
sacrebleu=${SL_SACREBLEU:-sacrebleu}

for tool in curl tar unzip gzip "$python" "$sacrebleu"; do
  command -v "$tool" >/dev/null || { echo "error: $tool not found" >&2; exit 1; }
done

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$out"
cd "$work"

curl -fsSL -o ro-en.tgz "$EUROPARL_URL"
curl -fsSL -o setimes.zip "$SETIMES_URL"
tar -xzf ro-en.tgz
unzip -q setimes.zip
# OPUS has shipped the SETimes2 files as SETIMES.en-ro.* and SETIMES2.en-ro.*.
set_en=(SETIMES*.en-ro.en)
set_ro=(SETIMES*.en-ro.ro)
cat europarl-v7.ro-en.ro "${set_ro[0]}" >raw.train.ro
cat europarl-v7.ro-en.en "${set_en[0]}" >raw.train.en
if [ "$with_bt" = 1 ]; then
  curl -fsSL "$BT_URL/corpus.bt.ro-en.ro.gz" | gzip -dc >>raw.train.ro
  curl -fsSL "$BT_URL/corpus.bt.ro-en.en.gz" | gzip -dc >>raw.train.en
fi

"$sacrebleu" -t wmt16/dev -l ro-en --echo src >raw.dev.ro
"$sacrebleu" -t wmt16/dev -l ro-en --echo ref >raw.dev.en
"$sacrebleu" -t wmt16 -l ro-en --echo src >raw.test.ro
"$sacrebleu" -t wmt16 -l ro-en --echo ref >raw.test.en

"$python" - "$work" "$out" <<'PY'
import gzip, os, re, sys, unicodedata

work, out = sys.argv[1], sys.argv[2]
CEDILLA = str.maketrans({"\u015e": "\u0218", "\u015f": "\u0219",
                         "\u0162": "\u021a", "\u0163": "\u021b"})

def norm(line):
    return " ".join(unicodedata.normalize("NFC", line).translate(CEDILLA).split())

def keep(ro, en):
    a, b = len(ro.split()), len(en.split())
    return 0 < a <= 100 and 0 < b <= 100 and not (max(a, b) > 5 and max(a, b) > 3 * min(a, b))

for split in ("train", "dev", "test"):
    with open(os.path.join(work, f"raw.{split}.ro"), encoding="utf-8", errors="replace") as f:
        ro = [norm(l) for l in f]
    with open(os.path.join(work, f"raw.{split}.en"), encoding="utf-8", errors="replace") as f:
        en = [norm(l) for l in f]
    if len(ro) != len(en):
        sys.exit(f"{split}: {len(ro)} Romanian vs {len(en)} English lines")
    pairs = list(zip(ro, en))
    if split == "train":
        pairs = [p for p in pairs if keep(*p)]
    for lang, side in (("ro", 0), ("en", 1)):
        with gzip.GzipFile(os.path.join(out, f"{split}.{lang}.gz"), "wb", mtime=0) as g:
            g.write("".join(p[side] + "\n" for p in pairs).encode("utf-8"))
    print(f"{split}: {len(pairs)} pairs")
PY
echo "wrote $out" >&2
