#!/usr/bin/env bash
# Sharded sweeps (issue 34): `--shard i/n` runs a contiguous block of the seeds (of explore's
# subtrees) and `oversim merge` gives exactly what one run over all of them gives: check's counts,
# first failing seed and shrunk counterexample (the whole JSON result, the text but for the
# merge's own lines, the emitted scenario), compare's table and cells, hash's lines, explore's
# walk. Also with --stop-at-first, an empty shard
# (more shards than seeds), shards given in any order, and the bad input merge refuses (exit 2,
# one line). Usage: shard_test.sh path/to/oversim
set -u
oversim="$1"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
failures=0
passes=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
pass() { passes=$((passes + 1)); }
# The JSON results compared key-sorted; compare's "jobs" is how the run was run, not what it found.
same_json() { cmp -s <(jq -S 'del(.jobs)' "$1") <(jq -S 'del(.jobs)' "$2"); }
# check's text without the lines only a merge prints or that time the run.
text_of() { grep -v -e '^merged: ' -e '^searched: ' -e '^scenario written to ' "$1" | sed 's/^shrunk in [0-9.]*s to/shrunk to/'; }

# check: shards <n> <flags...>: the whole run, then n shards merged in reverse order.
check_shards() {
  local n="$1" name="$2"
  shift 2
  local whole="$dir/$name-whole" status_whole status_merged i files=()
  "$oversim" check "$@" --json "$whole.json" --emit-scenario "$whole.toml" >"$whole.txt" 2>/dev/null
  status_whole=$?
  for i in $(seq 1 "$n"); do
    "$oversim" check "$@" --shard "$i/$n" --json "$dir/$name-$i.json" >/dev/null 2>&1
    files=("$dir/$name-$i.json" "${files[@]}")
  done
  "$oversim" merge "${files[@]}" --json "$dir/$name-merged.json" --emit-scenario "$dir/$name-merged.toml" >"$dir/$name-merged.txt" 2>/dev/null
  status_merged=$?
  if [ "$status_whole" != "$status_merged" ]; then fail "$name: merge exited $status_merged, the whole check $status_whole"; return; fi
  if ! same_json "$whole.json" "$dir/$name-merged.json"; then fail "$name: the merged JSON differs from the whole check's"; diff <(jq -S . "$whole.json") <(jq -S . "$dir/$name-merged.json") | head -20; return; fi
  if ! cmp -s <(text_of "$whole.txt") <(text_of "$dir/$name-merged.txt"); then fail "$name: the merged text differs"; diff <(text_of "$whole.txt") <(text_of "$dir/$name-merged.txt") | head -20; return; fi
  if [ -f "$whole.toml" ] && ! cmp -s <(tail -n +2 "$whole.toml") <(tail -n +2 "$dir/$name-merged.toml"); then fail "$name: the merged counterexample's scenario differs"; return; fi
  pass
}

# A violation in the middle shard, shrunk the same way; a sweep that holds; stop-at-first (the
# merged counts stop at the first failing seed, whatever the later shards counted); a layered
# design's numbers (compensations, the stock gap); more shards than seeds.
check_shards 3 rmw --variant redis_lock_read_modify_write --faults gc-pause --seeds 21..80
check_shards 4 holds --variant db_conditional_update --faults gc-pause --seeds 30
check_shards 4 late --variant redlock_read_modify_write --faults clock-jump --seeds 40
check_shards 5 first --variant redlock_read_modify_write --faults clock-jump --seeds 60 --stop-at-first --no-shrink
# Seed 15 fails first (shard 2 of 5); shards 3..5 ran and found more, and none of it counts.
if ! jq -e '.verdict.first_failing_seed == 15 and .verdict.executions == 15' "$dir/first-merged.json" >/dev/null; then
  fail "stop-at-first: the merge did not stop at seed 15: $(jq -c .verdict "$dir/first-merged.json")"
else
  pass
fi
check_shards 3 layers --variant prededuct_reconciled --faults failover --seeds 24 --no-shrink
check_shards 7 tiny --variant redis_lock_read_modify_write --faults gc-pause --seeds 4 --no-shrink
if ! jq -e '.shard.seeds == null' "$dir/tiny-7.json" >/dev/null; then fail "shard 7/7 of 4 seeds did not say it ran none"; else pass; fi

# A scenario file's [expect] is stated by the merge, not by a shard (whose block may not fail).
source_dir=$(cd "$(dirname "$0")/.." && pwd)
for i in 1 2; do
  "$oversim" check "$source_dir/scenarios/etcd-guarded-unlock-retry.toml" --seeds 6 --shard "$i/2" --json "$dir/file-$i.json" >"$dir/file-$i.txt" 2>/dev/null
done
if grep -q '^expected: ' "$dir/file-1.txt" "$dir/file-2.txt"; then fail "a shard stated the scenario file's expectation"; else pass; fi
"$oversim" merge "$dir/file-1.json" "$dir/file-2.json" >"$dir/file-merged.txt" 2>/dev/null
if [ $? != 1 ] || ! grep -q '^expected: check violated, as .*etcd-guarded-unlock-retry.toml states' "$dir/file-merged.txt"; then
  fail "the merge of a scenario file's shards did not state its expectation: $(tail -2 "$dir/file-merged.txt")"
else
  pass
fi

# compare: the table and every cell's data.
"$oversim" compare --variants redis_lock_read_modify_write,db_conditional_update --faults none,gc-pause,failover --seeds 12 --json "$dir/cmp.json" >"$dir/cmp.txt" 2>/dev/null
for i in 1 2 3; do
  "$oversim" compare --variants redis_lock_read_modify_write,db_conditional_update --faults none,gc-pause,failover --seeds 12 --shard "$i/3" --json "$dir/cmp-$i.json" >/dev/null 2>&1
done
"$oversim" merge "$dir/cmp-2.json" "$dir/cmp-3.json" "$dir/cmp-1.json" --json "$dir/cmp-merged.json" >"$dir/cmp-merged.txt" 2>/dev/null
if ! same_json "$dir/cmp.json" "$dir/cmp-merged.json"; then fail "compare: the merged cells differ"; else pass; fi
if ! cmp -s <(grep -v '^merged: ' "$dir/cmp.txt") <(grep -v '^merged: ' "$dir/cmp-merged.txt"); then fail "compare: the merged table differs"; diff "$dir/cmp.txt" "$dir/cmp-merged.txt"; else pass; fi

# hash: the shards' lines one after another are the whole command's, and so is the merge.
"$oversim" hash --variants redis_lock_read_modify_write,db_conditional_update --faults none,gc-pause --seeds 5 >"$dir/hash.txt" 2>/dev/null
: >"$dir/hash-cat.txt"
for i in 1 2 3 4; do
  "$oversim" hash --variants redis_lock_read_modify_write,db_conditional_update --faults none,gc-pause --seeds 5 --shard "$i/4" --json "$dir/hash-$i.json" >>"$dir/hash-cat.txt" 2>/dev/null
done
if ! cmp -s "$dir/hash.txt" "$dir/hash-cat.txt"; then fail "hash: the shards' lines are not the whole command's"; else pass; fi
"$oversim" merge "$dir"/hash-[1-4].json >"$dir/hash-merged.txt" 2>/dev/null
if ! cmp -s "$dir/hash.txt" "$dir/hash-merged.txt"; then fail "hash: the merged lines differ"; else pass; fi

# explore: the tree's subtrees dealt to the shards; merged, the whole walk's result (executions,
# reductions, fixed draws, counts, the shortest counterexample and its tie-break): a design that
# holds, one that breaks, --first (the walk stops in the first shard with a violation), a context
# bound, more shards than the tree has subtrees at its first level.
explore_shards() {
  local n="$1" name="explore-$2"
  shift 2
  local status_whole status_merged i files=()
  "$oversim" explore "$@" --json "$dir/$name-whole.json" >"$dir/$name-whole.txt" 2>/dev/null
  status_whole=$?
  for i in $(seq 1 "$n"); do
    "$oversim" explore "$@" --shard "$i/$n" --json "$dir/$name-$i.json" >/dev/null 2>&1
    files=("$dir/$name-$i.json" "${files[@]}")
  done
  "$oversim" merge "${files[@]}" --json "$dir/$name-merged.json" >"$dir/$name-merged.txt" 2>/dev/null
  status_merged=$?
  if [ "$status_whole" != "$status_merged" ]; then fail "explore $name: merge exited $status_merged, the whole walk $status_whole"; return; fi
  if ! same_json "$dir/$name-whole.json" "$dir/$name-merged.json"; then fail "explore $name: the merged JSON differs"; diff <(jq -S . "$dir/$name-whole.json") <(jq -S . "$dir/$name-merged.json") | head -20; return; fi
  if ! cmp -s <(grep -v -e '^merged: ' -e '^explored: ' "$dir/$name-whole.txt") <(grep -v -e '^merged: ' -e '^explored: ' "$dir/$name-merged.txt"); then fail "explore $name: the merged text differs"; return; fi
  if ! cmp -s <(grep '^explored: ' "$dir/$name-whole.txt" | sed 's/, [0-9.]*s wall//') <(grep '^explored: ' "$dir/$name-merged.txt" | sed 's/, [0-9.]*s wall//'); then fail "explore $name: the explored line differs"; return; fi
  pass
}
explore_shards 3 rmw --variant redis_lock_read_modify_write
explore_shards 4 holds --variant redis_lock_conditional
explore_shards 5 first --variant redis_lock_read_modify_write --first
explore_shards 7 bounded --variant redis_lock_plain_del --buyers 3 --max-deviations 1
explore_shards 40 many --variant db_conditional_update

expect2() {  # expect2 <stderr-substring> <args...>: exit 2 with one line naming the problem
  local needle="$1" err status
  shift
  err=$("$oversim" "$@" 2>&1 >/dev/null)
  status=$?
  if [ "$status" != 2 ] || [ "$(printf '%s\n' "$err" | wc -l)" != 1 ] || [[ "$err" != *"$needle"* ]]; then
    fail "oversim $*: exit $status, stderr '$err'; expected exit 2 and one line with '$needle'"
  else
    pass
  fi
}
expect2 "merge: shards missing: 2 of 3" merge "$dir/rmw-1.json" "$dir/rmw-3.json"
expect2 "merge: shard 1/3 given twice" merge "$dir/rmw-1.json" "$dir/rmw-1.json" "$dir/rmw-2.json" "$dir/rmw-3.json"
expect2 "are shards of different sweeps" merge "$dir/rmw-1.json" "$dir/layers-2.json" "$dir/layers-3.json"
expect2 "is not a shard file" merge "$dir/rmw-whole.json"
expect2 "merge: cannot read" merge "$dir/nothing.json"
expect2 "is one shard of a sweep" report "$dir/rmw-1.json" --html "$dir/x.html"
expect2 "--shard: give --json FILE" check --variant db_conditional_update --shard 1/2
expect2 "--shard: --html is drawn from all the shards" check --variant db_conditional_update --shard 1/2 --json "$dir/x.json" --html "$dir/x.html"
expect2 "--shard: --first-seed random draws a range per shard" check --variant db_conditional_update --shard 1/2 --json "$dir/x.json" --first-seed random
expect2 "--shard: '3' is not i/n" check --variant db_conditional_update --shard 3 --json "$dir/x.json"
expect2 "--shard: 3 is out of range" check --variant db_conditional_update --shard 3/2 --json "$dir/x.json"
expect2 "--shard: 0 is out of range" compare --variants db_conditional_update --shard 0/2 --json "$dir/x.json"
expect2 "--shard: give --json FILE" explore --variant db_conditional_update --shard 1/2
expect2 "--shard: --junit is drawn from all the shards" explore --variant db_conditional_update --shard 1/2 --json "$dir/x.json" --junit "$dir/x.xml"
expect2 "merge: shards missing: 1 of 3" merge "$dir/rmw-2.json" "$dir/rmw-3.json"
# A shard file whose sweep was cut short is refused, naming what it lacks.
jq 'del(.result.metrics.answer_times)' "$dir/rmw-2.json" >"$dir/cut-2.json"
expect2 "has no 'metrics.answer_times'" merge "$dir/rmw-1.json" "$dir/cut-2.json" "$dir/rmw-3.json"

echo "$passes passed, $failures failed"
[ "$failures" -eq 0 ]
