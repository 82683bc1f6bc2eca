#!/usr/bin/env bash
# The command's contract: exit statuses (0 holds, 1 violation, 2 bad usage with one line on
# stderr naming the problem), and determinism across processes (the same seed gives the same
# trace hash in two separate runs). Usage: cli_test.sh path/to/oversim
set -u
oversim="$1"
failures=0
passes=0

expect() {  # expect <status> <stderr-substring or -> <args...>
  local want="$1" needle="$2"
  shift 2
  local out err status
  err=$("$oversim" "$@" 2>&1 >/dev/null)
  status=$?
  if [ "$status" != "$want" ]; then
    echo "FAIL: oversim $* exited $status, expected $want; stderr: $err"
    failures=$((failures + 1))
    return
  fi
  if [ "$needle" != "-" ]; then
    if [ "$(printf '%s\n' "$err" | wc -l)" != 1 ] || [[ "$err" != *"$needle"* ]]; then
      echo "FAIL: oversim $*: expected one stderr line containing '$needle', got: $err"
      failures=$((failures + 1))
      return
    fi
  fi
  passes=$((passes + 1))
}

# Good runs and verdicts.
expect 0 - --version
expect 0 - list variants
expect 0 - list faults
expect 0 - list properties
expect 0 - run --variant article_recipe --faults chaos --seed 3 --trace none
expect 1 - run --variant read_modify_write --buyers 2 --stock 1 --trace none
expect 0 - check --variant db_conditional_update --faults gc-pause --seeds 5 --jobs 2
expect 1 - check --variant redis_lock_read_modify_write --faults gc-pause --seeds 10 --jobs 2
expect 0 - check --variant redis_lock_conditional --faults gc-pause --seeds 10
expect 1 - check --variant redis_lock_conditional --faults gc-pause --seeds 10 --properties lock_mutual_exclusion
expect 0 - compare --seeds 1 --variants db_conditional_update --faults none,gc-pause
expect 0 - demo --trace none

# Bad input: exit 2, one line naming the problem.
expect 2 "unknown variant 'nope'" run --variant nope
expect 2 "--variant is required" run
expect 2 "unknown profile 'gc-paws'" check --variant article_recipe --faults gc-paws
expect 2 "unknown fault 'explode'" run --variant article_recipe --faults 'at 1s explode db'
expect 2 "names unknown node 'app-7'" run --variant article_recipe --faults 'at 1s crash app-7'
expect 2 "'1.5s' is not a duration" run --variant article_recipe --faults 'at 1.5s crash db'
expect 2 "--lock-ttl: 'soon' is not a duration" run --variant article_recipe --lock-ttl soon
expect 2 "--double-click: '3/2' is not a ratio" run --variant article_recipe --double-click 3/2
expect 2 "--buyers: -1 is out of range" run --variant article_recipe --buyers -1
expect 2 "unknown property 'no_magic'" check --variant article_recipe --properties no_magic
expect 2 "is a 'sometimes' property" check --variant article_recipe --properties sold_out
expect 2 "unknown list 'things'" list things
expect 2 "--trace: unknown format 'xml'" run --variant article_recipe --trace xml
expect 2 "The following argument was not expected: --bogus" run --variant article_recipe --bogus
expect 2 "--seeds" check --variant article_recipe --seeds 0

# Determinism across processes: the same seed, the same hash, twice.
hash_of() { "$oversim" run "$@" --trace none | sed -n 's/.*trace hash \([0-9a-f]*\).*/\1/p'; }
a=$(hash_of --variant redis_lock_conditional --faults chaos --seed 7)
b=$(hash_of --variant redis_lock_conditional --faults chaos --seed 7)
c=$(hash_of --variant redis_lock_conditional --faults chaos --seed 8)
if [ -z "$a" ] || [ "$a" != "$b" ]; then echo "FAIL: two processes gave different hashes: '$a' vs '$b'"; failures=$((failures + 1)); else passes=$((passes + 1)); fi
if [ "$a" = "$c" ]; then echo "FAIL: seeds 7 and 8 gave the same hash $a"; failures=$((failures + 1)); else passes=$((passes + 1)); fi
d1=$("$oversim" demo --trace none | tail -1)
d2=$("$oversim" demo --trace none | tail -1)
if [ "$d1" != "$d2" ]; then echo "FAIL: demo hashes differ: $d1 vs $d2"; failures=$((failures + 1)); else passes=$((passes + 1)); fi
expect 0 - --check-determinism
# JSON lines: one object per line.
json=$("$oversim" run --variant article_recipe --seed 2 --trace json)
if [ -z "$json" ] || printf '%s\n' "$json" | grep -qv '^{"at_ns":[0-9]*,"step":[0-9]*,"node":".*","kind":".*","fields":{.*}}$'; then
  echo "FAIL: --trace json is not JSON lines"; failures=$((failures + 1)); else passes=$((passes + 1)); fi

echo "$passes passed, $failures failed"
[ "$failures" -eq 0 ]
