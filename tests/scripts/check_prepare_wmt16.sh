#!/usr/bin/env bash
# ctest scripts_prepare_wmt16: scripts/prepare-wmt16-roen.sh end to end, offline. Synthetic
# archives in WMT16's layout (Europarl v7 ro-en.tgz, OPUS SETIMES2 en-ro.txt.zip, Sennrich's
# back-translations as .gz) are served through file:// URLs, and a stand-in for sacrebleu
# echoes newsdev2016/newstest2016 lines, so every step of the script runs: download, unpack,
# concatenation, normalisation (NFC, cedilla -> comma below, whitespace), the training-pair
# filters, and the gzip output. Usage: check_prepare_wmt16.sh REPO_ROOT WORK_DIR
set -euo pipefail
repo=$1 work=$2
py=${PYTHON:-python3}
for tool in curl tar unzip gzip "$py"; do
  command -v "$tool" >/dev/null || { echo "SKIP: $tool not found"; exit 77; }
done
rm -rf "$work"
mkdir -p "$work/src" "$work/bt" "$work/out"
cd "$work/src"

# Europarl v7: 4 pairs; one with a cedilla s (U+015F) and a decomposed a-breve (a + U+0306),
# one over 100 words (dropped), one with an empty side (dropped).
long=$(printf 'w%.0s ' $(seq 1 101))
printf 'Bun\xc4\x83 ziua ,  lume\nA\xcc\x86\xc5\x9fa este\n%s\n\n' "$long" >europarl-v7.ro-en.ro
printf 'Hello , world\nSo it is\nlong\nempty source\n' >europarl-v7.ro-en.en
tar -czf "$work/ro-en.tgz" europarl-v7.ro-en.ro europarl-v7.ro-en.en
# SETIMES2 (OPUS moses zip): 3 pairs, one with word ratio > 3 (dropped).
printf 'Casa mare\nT\xc5\xa3ar\xc4\x83\nunu\n' >SETIMES.en-ro.ro
printf 'Big house\nCountry\none two three four five six seven\n' >SETIMES.en-ro.en
printf 'ids\n' >SETIMES.en-ro.ids
"$py" - "$work/en-ro.txt.zip" <<'PY'
import sys, zipfile
with zipfile.ZipFile(sys.argv[1], "w") as z:
    for f in ("SETIMES.en-ro.en", "SETIMES.en-ro.ro", "SETIMES.en-ro.ids"):
        z.write(f)
    z.writestr("README", "synthetic\n")
PY
# Back-translations: 1 pair.
printf 'Tradus \xc8\x99i\n' | gzip -c >"$work/bt/corpus.bt.ro-en.ro.gz"
printf 'Translated and\n' | gzip -c >"$work/bt/corpus.bt.ro-en.en.gz"
# sacrebleu stand-in: -t wmt16/dev|wmt16 -l ro-en --echo src|ref. Dev/test are never filtered
# (an empty line and a 120-word line must survive).
cat >"$work/sacrebleu" <<'SB'
#!/usr/bin/env bash
set -eu
t="" side=""
while (($#)); do case $1 in -t) t=$2; shift 2 ;; --echo) side=$2; shift 2 ;; *) shift ;; esac; done
case "$t/$side" in
  wmt16/dev/src) printf 'Dev \xc5\xa3 unu\n\n' ;;
  wmt16/dev/ref) printf 'Dev one\nempty source\n' ;;
  wmt16/src) printf 'Test %s\n' "$(printf 'x%.0s ' $(seq 1 120))" ;;
  wmt16/ref) printf 'Test long\n' ;;
  *) echo "unexpected sacrebleu call: $t $side" >&2; exit 1 ;;
esac
SB
chmod +x "$work/sacrebleu"

SL_EUROPARL_URL="file://$work/ro-en.tgz" SL_SETIMES_URL="file://$work/en-ro.txt.zip" \
SL_BT_URL="file://$work/bt" SL_SACREBLEU="$work/sacrebleu" PYTHON="$py" \
  bash "$repo/scripts/prepare-wmt16-roen.sh" --with-backtranslations "$work/out"

"$py" - "$work/out" <<'PY'
import gzip, os, sys
out = sys.argv[1]
def lines(name):
    with gzip.open(os.path.join(out, name), "rt", encoding="utf-8") as f:
        return f.read().split("\n")[:-1]
want = {
    "train.ro": ["Bun\u0103 ziua , lume", "\u0102\u0219a este", "Casa mare", "T\u021bar\u0103", "Tradus \u0219i"],
    "train.en": ["Hello , world", "So it is", "Big house", "Country", "Translated and"],
    "dev.ro": ["Dev \u021b unu", ""],
    "dev.en": ["Dev one", "empty source"],
    "test.ro": ["Test " + " ".join(["x"] * 120)],
    "test.en": ["Test long"],
}
bad = 0
for name, w in want.items():
    got = lines(name + ".gz")
    if got != w:
        print(f"{name}: got {got!r}\n   want {w!r}")
        bad += 1
if bad:
    sys.exit(1)
print("prepare-wmt16-roen.sh: all six files as expected")
PY
