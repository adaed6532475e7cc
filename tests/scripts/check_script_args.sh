#!/usr/bin/env bash
# The long-running scripts refuse bad arguments with exit 2 and one line before they start
# anything: scripts/run-repro-suite.sh with a model it does not know (it used to train nothing
# and exit 0), scripts/measure-profile.sh with bad STEPS or a missing config (exit 1, and its
# /tmp/sl-profile.* folder stayed behind).   Usage: check_script_args.sh REPO
set -u
repo=$1
fail() { echo "FAIL: $*"; exit 1; }
expect2() {  # expect2 WHAT MESSAGE COMMAND...
  local what=$1 msg=$2; shift 2
  local err rc
  err=$("$@" 2>&1 >/dev/null); rc=$?
  [[ $rc == 2 ]] || fail "$what: exit $rc, want 2 ($err)"
  [[ $err == *"$msg"* ]] || fail "$what: stderr lacks \"$msg\": $err"
  [[ $(wc -l <<<"$err") == 1 ]] || fail "$what: more than one line: $err"
}
expect2 "run-repro-suite.sh, model Transformer" "Transformer: expected transformer, rnn or both" \
  bash "$repo/scripts/run-repro-suite.sh" /bin/true Transformer
before=$(ls -d /tmp/sl-profile.* 2>/dev/null | wc -l)
expect2 "measure-profile.sh, STEPS abc" "STEPS 'abc': want a positive integer" \
  bash "$repo/scripts/measure-profile.sh" /bin/true abc
expect2 "measure-profile.sh, a missing config" "nope.json: no such config" \
  bash "$repo/scripts/measure-profile.sh" /bin/true 5 nope.json
[[ $(ls -d /tmp/sl-profile.* 2>/dev/null | wc -l) == "$before" ]] || fail "measure-profile.sh left a /tmp/sl-profile.* folder"
echo "OK: script arguments"
