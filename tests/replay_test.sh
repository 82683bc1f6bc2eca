#!/usr/bin/env bash
# Every reproduce line replays: for each design under each fault profile (and with no faults),
# `check` finds its first failing seed (shrunk, and as found with --no-shrink) and `explore`
# its shortest violating execution; the reproduce line each prints is run as written, and the
# run must exit 1 with exactly the violations (property, time and step) the finder showed.
# Usage: replay_test.sh path/to/oversim [seeds]   (OVERSIM_REPLAY_JOBS designs at a time, default
# 2; OVERSIM_REPLAY_VARIANTS="a b" to replay only those designs)
set -u
oversim="$1"
seeds="${2:-20}"

# "name|time|step" for every violation a finder printed ("X violated at T step N: ...") or a
# run's property table shows ("X  always  yes  VIOLATED at T step N: ...").
violations() {
  sed -nE 's/^([a-z_]+) violated( \(not asserted\))? at +([0-9.]+s) step ([0-9]+):.*/\1|\3|\4/p; s/^([a-z_]+) +[a-z]+ +[a-z-]+ +VIOLATED at +([0-9.]+s) step ([0-9]+):.*/\1|\2|\3/p' | sort
}

replay() {  # replay <what found it> <finder output>
  local what="$1" out="$2" line want got status
  line=$(printf '%s\n' "$out" | sed -n 's/^reproduce: oversim //p' | tail -1)
  if [ -z "$line" ]; then
    echo "FAIL: $what exited 1 without a reproduce line"
    return
  fi
  want=$(printf '%s\n' "$out" | violations)
  local run_out
  run_out=$(eval "\"\$oversim\" $line --trace none" 2>/dev/null)
  status=$?
  got=$(printf '%s\n' "$run_out" | violations)
  if [ "$status" != 1 ] || [ "$want" != "$got" ]; then
    echo "FAIL: $what: 'oversim $line' exited $status (want 1); violations found: [$(echo $want)], replayed: [$(echo $got)]"
    return
  fi
  echo "OK $what"
}

# One design's reproduce lines: prints a line per replay ("OK ..." or "FAIL: ...").
one_design() {
  local v="$1" p shrink out status
  for p in $profiles; do
    for shrink in "" "--no-shrink"; do
      out=$("$oversim" check --variant "$v" --faults "$p" --seeds "$seeds" --jobs 1 --stop-at-first $shrink 2>/dev/null)
      status=$?
      case "$status" in
        1) replay "check --variant $v --faults $p $shrink" "$out" ;;
        0 | 2 | 4 | 5 | 6) ;;  # held, not applicable, or not a violation: nothing to replay
        *) echo "FAIL: check --variant $v --faults $p $shrink exited $status" ;;
      esac
      [ "$p" = none ] || break  # shrunk and as found for the faultless sale; shrunk for the profiles
    done
  done
  out=$("$oversim" explore --variant "$v" --buyers 2 --stock 1 --max-executions 2000 2>/dev/null)
  [ $? = 1 ] && replay "explore --variant $v --buyers 2 --stock 1" "$out"
  return 0
}

variants=${OVERSIM_REPLAY_VARIANTS:-$("$oversim" list variants | sed -nE 's/^([a-z][a-z0-9_]+) .*/\1/p')}
profiles="none $("$oversim" list faults | sed -nE 's/^([a-z][a-z-]+) +[a-z0-9].*/\1/p' | grep -vx none | tr '\n' ' ')"
export oversim seeds profiles
export -f one_design replay violations
results=$(printf '%s\n' $variants | xargs -P "${OVERSIM_REPLAY_JOBS:-2}" -I{} bash -c 'one_design "$1"' _ {})
printf '%s\n' "$results" | grep '^FAIL' || true
replayed=$(printf '%s\n' "$results" | grep -c '^OK' || true)
failures=$(printf '%s\n' "$results" | grep -c '^FAIL' || true)
echo "replay: $replayed reproduce lines replayed, $failures failed"
[ "$replayed" -gt 0 ] || { echo "FAIL: nothing was replayed"; exit 1; }
[ "$failures" = 0 ]
