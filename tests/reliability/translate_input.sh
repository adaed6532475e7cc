#!/usr/bin/env bash
# translate's input and model file (issue 31 items 1, 2 and 8), one GROUP per ctest:
#   model      trains the tiny model the other groups translate with (their ctest fixture)
#   utf8       invalid UTF-8 or a NUL byte in the input (stdin or --input): exit 2 naming
#              file:line and the byte, nothing written
#   long_line  one 100,000-token line among normal lines: exit 0, one output line per input
#              line, that line empty with a warning naming it and a count at the end, the
#              others translated as they are alone; --strict: exit 2 naming the line, nothing
#              written
#   anywhere   the checkpoint translates from another working directory (vocabulary inside
#              it); a version-1 checkpoint (vocabulary path only) finds its vocabulary
#              relative to its own directory, and exits 2 naming the file when it is gone
# Usage: translate_input.sh GROUP TRANSLATE RUN_EXPERIMENT WORKDIR   (from the repository root)
set -uo pipefail
group=$1 translate=$2 bin=$3 root=$(realpath -m "$4")
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.sh"
model_dir=$root/model
ckpt=$model_dir/run/best-model.ckpt

if [ "$group" = model ]; then
  rm -rf "$model_dir" && mkdir -p "$model_dir"
  "$bin" --config configs/tiny/dense.json --no-progress --set cluster.nodes=1 --set train.max_steps=20 \
    --set valid.every=10 --set valid.test_at_end=false --output-dir "$model_dir/run" 2> "$model_dir/train.err" ||
    { cat "$model_dir/train.err"; fail "training the test model failed"; }
  [ -f "$ckpt" ] || fail "no best-model.ckpt after training"
  echo "ok: $ckpt"
  exit 0
fi
[ -f "$ckpt" ] || fail "no test model at $ckpt (run the reliability_translate_model test first)"
work=$root/$group
rm -rf "$work" && mkdir -p "$work"

# run_translate NAME ARGS...: stdin from $work/NAME.in (when it exists); leaves $work/NAME.{out,err,rc}
run_translate() {
  local name=$1; shift
  local rc=0 in=/dev/null
  [ -f "$work/$name.in" ] && in=$work/$name.in
  "$translate" -m "$ckpt" --beam-size 1 "$@" < "$in" > "$work/$name.out" 2> "$work/$name.err" || rc=$?
  echo $rc > "$work/$name.rc"
  echo "$name: exit code $rc; stderr: $(head -c 400 "$work/$name.err")"
}
expect_rc() { [ "$(cat "$work/$1.rc")" = "$2" ] || fail "$1: exit code $(cat "$work/$1.rc"), expected $2"; }
expect_err() { grep -qF -- "$2" "$work/$1.err" || fail "$1: stderr lacks \"$2\""; }
expect_no_output() { [ ! -s "$work/$1.out" ] || fail "$1: wrote output although the input was refused"; }

case $group in
  utf8)
    printf 'Datei nicht gefunden\n\xff\xfe kaputt\nHallo\n' > "$work/bad-utf8.in"
    run_translate bad-utf8
    expect_rc bad-utf8 2; expect_no_output bad-utf8
    expect_err bad-utf8 "translate: error: <stdin>:2: invalid UTF-8 at byte 1"
    printf 'Hallo\nein \0 Satz\n' > "$work/nul.in"
    run_translate nul
    expect_rc nul 2; expect_no_output nul
    expect_err nul "translate: error: <stdin>:2: NUL byte at byte 5"
    printf 'Hallo\nWelt\nzu viel \xc3\n' > "$work/bad-file.txt"
    run_translate bad-file --input "$work/bad-file.txt"
    expect_rc bad-file 2; expect_no_output bad-file
    expect_err bad-file "$work/bad-file.txt:3: invalid UTF-8 at byte 9"
    printf 'Hallo\nDatei nicht gefunden\n' > "$work/good.in"
    run_translate good
    expect_rc good 0
    [ "$(wc -l < "$work/good.out")" = 2 ] || fail "good: $(wc -l < "$work/good.out") output lines for 2 input lines"
    # a folder given as the input used to read as an empty file (exit 0, nothing written)
    run_translate folder --input "$work"
    expect_rc folder 2; expect_no_output folder
    expect_err folder "translate: error: $work: is a directory; expected a file"
    # --length-alpha outside the config's range [0, 10], NaN included (it garbled the beams)
    for a in nan -5 11; do
      run_translate "alpha$a" --length-alpha "$a"
      expect_rc "alpha$a" 2; expect_no_output "alpha$a"
      expect_err "alpha$a" "expected a number from 0 to 10, got $a"
    done
    echo "ok: invalid UTF-8 and NUL bytes are refused naming the line and byte; a folder and a bad --length-alpha too"
    ;;
  long_line)
    printf 'Datei nicht gefunden\n' > "$work/long.in"
    python3 -c 'print("Haus " * 100000)' >> "$work/long.in"
    printf 'nur Anhänge ausgeben\n' >> "$work/long.in"
    printf 'Datei nicht gefunden\nnur Anhänge ausgeben\n' > "$work/short.in"
    run_translate short
    expect_rc short 0
    run_translate long
    expect_rc long 0
    [ "$(wc -l < "$work/long.out")" = 3 ] || fail "long: $(wc -l < "$work/long.out") output lines for 3 input lines"
    [ -z "$(sed -n 2p "$work/long.out")" ] || fail "long: the over-long line's output is not empty"
    [ "$(sed -n '1p;3p' "$work/long.out")" = "$(cat "$work/short.out")" ] ||
      fail "long: the other lines differ from their translation alone"
    expect_err long "translate: warning: <stdin>:2: has "
    expect_err long "longer than the model's max_length 512; its output line is left empty"
    expect_err long "translate: 1 of 3 line(s) were longer than max_length 512 and left untranslated (empty output lines): line(s) 2 of <stdin>"
    cp "$work/long.in" "$work/strict.in" && run_translate strict --strict
    expect_rc strict 2; expect_no_output strict
    expect_err strict "translate: error: <stdin>:2: has "
    "$translate" --help | grep -q -- "--strict" || fail "--help does not document --strict"
    "$translate" --help | grep -q "its output line is empty" || fail "--help does not document the over-long line"
    echo "ok: an over-long line is named and left empty (or refused with --strict); the others are translated"
    ;;
  anywhere)
    printf 'Datei nicht gefunden\nnur Anhänge ausgeben\nZwei Ausgabeverzeichnisse?\n' > "$work/in.txt"
    "$translate" -m "$ckpt" --beam-size 1 < "$work/in.txt" > "$work/here.out" || fail "translate from the repository root failed"
    mkdir -p "$work/elsewhere"
    (cd "$work/elsewhere" && "$translate" -m "$ckpt" --beam-size 1 < "$work/in.txt" > "$work/there.out" 2> "$work/there.err")
    rc=$?; cat "$work/there.err"
    [ $rc = 0 ] || fail "translate from another directory: exit code $rc"
    cmp -s "$work/here.out" "$work/there.out" || fail "the translation differs from another directory"
    # A version-1 checkpoint: only the vocabulary's path (made relative to a tree of its own,
    # the way results/<run>/ sits in the directory a run ran in).
    vocab=$(python3 "$here/ckpt_header.py" "$ckpt" | python3 -c 'import json,sys; print(json.load(sys.stdin)["vocab"])')
    [ -f "$vocab" ] || fail "the checkpoint's vocabulary $vocab is not where training wrote it"
    mkdir -p "$work/tree/results/run" "$work/tree/cache/spm"
    cp "$vocab" "$work/tree/cache/spm/spm.model"
    python3 "$here/ckpt_header.py" "$ckpt" "$work/tree/results/run/best-model.ckpt" \
      --drop vocab_model --drop best_model_version --set vocab='"cache/spm/spm.model"'
    (cd "$work/elsewhere" && "$translate" -m "$work/tree/results/run/best-model.ckpt" --beam-size 1 \
       < "$work/in.txt" > "$work/v1.out" 2> "$work/v1.err")
    rc=$?; cat "$work/v1.err"
    [ $rc = 0 ] || fail "a version-1 checkpoint from another directory: exit code $rc"
    cmp -s "$work/here.out" "$work/v1.out" || fail "the version-1 checkpoint translates differently"
    # ... and with its vocabulary gone: exit 2 naming the file.
    rm "$work/tree/cache/spm/spm.model"
    (cd "$work/elsewhere" && "$translate" -m "$work/tree/results/run/best-model.ckpt" < "$work/in.txt" \
       > "$work/gone.out" 2> "$work/gone.err")
    rc=$?; cat "$work/gone.err"
    [ $rc = 2 ] || fail "vocabulary gone: exit code $rc, expected 2"
    grep -q "best-model.ckpt: its SentencePiece model \"cache/spm/spm.model\" was not found" "$work/gone.err" ||
      fail "vocabulary gone: the error does not name the missing file"
    grep -q -- "--vocab" "$work/gone.err" || fail "vocabulary gone: the error does not say how to go on (--vocab)"
    [ ! -s "$work/gone.out" ] || fail "vocabulary gone: output written"
    echo "ok: the checkpoint translates from anywhere; a version-1 one finds its vocabulary or names it"
    ;;
  *) fail "unknown group $group" ;;
esac
