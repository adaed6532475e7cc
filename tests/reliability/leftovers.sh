#!/usr/bin/env bash
# The reliability tests must not leave a temporary file (*.tmp, *.tmp.<pid>) or a results
# lock (.lock) behind (issue 31). `start` (the ctest fixture's setup) marks the time; `check`
# (its cleanup, after every reliability test that ran) lists such files under WORKDIR newer
# than the mark and fails if there are any.
# Usage: leftovers.sh start|check WORKDIR
set -uo pipefail
mode=$1 work=$2
mark=$work/.leftovers-start
case $mode in
  start)
    mkdir -p "$work" && touch "$mark" && echo "marked $mark" ;;
  check)
    [ -f "$mark" ] || { echo "FAIL: no start mark $mark"; exit 1; }
    left=$(find "$work" -newer "$mark" -type f \( -name '*.tmp' -o -name '*.tmp.*' -o -name .lock \) | sort)
    if [ -n "$left" ]; then
      echo "FAIL: left behind by the reliability tests:"
      echo "$left"
      exit 1
    fi
    echo "ok: no *.tmp, *.tmp.<pid> or .lock file left under $work" ;;
  *) echo "usage: leftovers.sh start|check WORKDIR"; exit 2 ;;
esac
