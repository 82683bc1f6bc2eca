#!/usr/bin/env bash
# scenarios/: every shipped scenario file states its expected verdict, and `oversim check FILE`
# (and `run FILE`, where stated) ends with it: the exit status, the "expected: ... as FILE states"
# line, and each property under [expect] violated broken in the JSON result. Each violating file's
# shrunk counterexample, written with --emit-scenario, replays from the file to the same verdict
# and the same trace hash as its reproduce line.
# Usage: scenarios_test.sh path/to/oversim path/to/scenarios
set -u
oversim="$1"
dir="$2"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
passes=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

status_of() {  # the exit status of a verdict word
  case "$1" in holds) echo 0 ;; violated) echo 1 ;; incomplete) echo 4 ;; vacuous) echo 5 ;; unfired) echo 6 ;; *) echo "?" ;; esac
}
# The value of KEY under [expect] (a word, or the list's names separated by spaces).
expect_of() {
  awk -v key="$2" '/^\[/{t=$0; next} t=="[expect]" && $1==key {sub(/^[^=]*=[ ]*/, ""); gsub(/[\[\]",#]/, " "); print}' "$1" | awk '{$1=$1; print}'
}
hash_of() { sed -n 's/.*trace hash \([0-9a-f]*\).*/\1/p' "$1" | head -1; }

count=0
for file in "$dir"/*.toml; do
  count=$((count + 1))
  name=$(basename "$file")
  check_word=$(expect_of "$file" check)
  run_word=$(expect_of "$file" run)
  violated=$(expect_of "$file" violated)
  if [ -z "$check_word" ] && [ -z "$run_word" ]; then fail "$name states no expected verdict ([expect] check or run)"; continue; fi
  if [ -n "$check_word" ]; then
    "$oversim" check "$file" --json "$tmp/result.json" --emit-scenario "$tmp/cx.toml" >"$tmp/out.txt" 2>"$tmp/err.txt"
    status=$?
    if [ "$status" != "$(status_of "$check_word")" ]; then fail "check $name exited $status, expected $check_word: $(tail -3 "$tmp/out.txt") $(cat "$tmp/err.txt")"; continue; fi
    if ! grep -q "^expected: check $check_word, as .*$name states$" "$tmp/out.txt"; then fail "check $name did not confirm its expectation"; continue; fi
    for p in $violated; do
      n=$(jq -r --arg p "$p" '.properties[] | select(.name == $p) | .violated' "$tmp/result.json")
      if [ -z "$n" ] || [ "$n" = "null" ] || [ "$n" -eq 0 ]; then fail "check $name: $p not violated in the JSON result ($n)"; continue 2; fi
    done
    passes=$((passes + 1))
    if [ "$check_word" = violated ]; then
      # The shrunk counterexample as a file replays: exit 1, the same hash as its reproduce line.
      line=$(sed -n 's/^reproduce: oversim //p' "$tmp/out.txt")
      "$oversim" run "$tmp/cx.toml" --trace none >"$tmp/file-run.txt" 2>/dev/null
      s1=$?
      eval "\"$oversim\" $line --trace none" >"$tmp/line-run.txt" 2>/dev/null
      s2=$?
      h1=$(hash_of "$tmp/file-run.txt")
      h2=$(hash_of "$tmp/line-run.txt")
      if [ "$s1" != 1 ] || [ "$s2" != 1 ] || [ -z "$h1" ] || [ "$h1" != "$h2" ]; then
        fail "$name: the emitted counterexample replayed with exit $s1 hash $h1; its reproduce line exit $s2 hash $h2"
      elif ! grep -q "^expected: run violated, as .*cx.toml states$" "$tmp/file-run.txt"; then
        fail "$name: the emitted counterexample did not state its verdict"
      else
        passes=$((passes + 1))
      fi
    fi
  fi
  if [ -n "$run_word" ]; then
    "$oversim" run "$file" --trace none >"$tmp/out.txt" 2>"$tmp/err.txt"
    status=$?
    if [ "$status" != "$(status_of "$run_word")" ]; then fail "run $name exited $status, expected $run_word"; continue; fi
    if ! grep -q "^expected: run $run_word, as .*$name states$" "$tmp/out.txt"; then fail "run $name did not confirm its expectation"; continue; fi
    for p in $violated; do
      if ! grep -q "^$p .*VIOLATED\|^verdict: VIOLATED: .*$p" "$tmp/out.txt"; then fail "run $name: $p not violated"; continue 2; fi
    done
    passes=$((passes + 1))
  fi
done
[ "$count" -ge 10 ] || fail "only $count scenario files in $dir"

# A file whose expectation is wrong is told so, and keeps the verdict's exit status.
sed 's/^check = "holds"/check = "violated"/' "$dir/conditional-update-holds.toml" >"$tmp/wrong.toml"
"$oversim" check "$tmp/wrong.toml" --seeds 5 >"$tmp/out.txt" 2>/dev/null
status=$?
if [ "$status" != 0 ] || ! grep -q "^expected: NOT as stated: .*wrong.toml expects check to end violated; it ended holds$" "$tmp/out.txt"; then
  fail "a wrong expectation was not reported (exit $status)"
else
  passes=$((passes + 1))
fi

echo "$passes passed, $failures failed"
[ "$failures" -eq 0 ]
