#!/usr/bin/env bash
# Real output of every command's --json, in every verdict kind it can end with, validated against
# docs/oversim-result.schema.json; and hand-broken copies that the schema must reject (so it is not
# a schema that accepts anything). And --junit: parsed as XML, a case per asserted property. Usage: json_schema_test.sh path/to/oversim path/to/schema
set -u
oversim="$1"
schema="$2"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
py=/usr/bin/python3
[ -x "$py" ] || py=python3
here=$(cd "$(dirname "$0")" && pwd)
failures=0
gen() {  # gen NAME WANT_STATUS args...: writes $tmp/NAME.json with --json
  local name="$1" want="$2"
  shift 2
  "$oversim" "$@" --json "$tmp/$name.json" >/dev/null 2>&1
  local status=$?
  if [ "$status" != "$want" ] || [ ! -s "$tmp/$name.json" ]; then echo "FAIL: oversim $* exited $status (expected $want) or wrote no JSON"; failures=$((failures + 1)); fi
}
gen run-violated 1 run --variant redis_lock_read_modify_write --faults gc-pause --trace none
gen run-holds 0 run --variant db_conditional_update --trace none
gen check-violated 1 check --variant redis_lock_read_modify_write --faults gc-pause --seeds 5
gen check-holds 0 check --variant db_conditional_update --faults gc-pause --seeds 5
gen check-unfired 6 check --variant db_conditional_update --buyers 2 --stock 2 --faults 'on 9th before_commit crash here' --seeds 2
gen check-vacuous 5 check --variant db_conditional_update --seeds 2 --require lock_contended
gen check-incomplete 4 check --variant redis_lock_conditional --buyers 200 --stock 200 --remote-call 100ms --horizon 6s --seeds 2
gen explore-exhaustive 0 explore --variant db_conditional_update
gen explore-violated 1 explore --variant redis_lock_read_modify_write
gen explore-incomplete 4 explore --variant redis_lock_read_modify_write --max-executions 3 --properties no_duplicate_order
gen compare 0 compare --variants db_conditional_update,redlock_conditional,db_decrement_mysql57 --faults none,acquire-pause --seeds 3
gen hash 0 hash --variants db_conditional_update,redis_lock_read_modify_write --faults none,gc-pause --seeds 2
# --format json: the same result on stdout, and nothing else there.
"$oversim" check --variant redis_lock_read_modify_write --faults gc-pause --seeds 5 --format json >"$tmp/stdout-check.json" 2>/dev/null
[ "$?" = 1 ] || { echo "FAIL: check --format json lost its exit status"; failures=$((failures + 1)); }
"$oversim" compare --variants db_conditional_update,redis_lock_conditional --faults none,gc-pause --seeds 2 --format json >"$tmp/stdout-compare.json" 2>/dev/null
"$oversim" run --variant db_conditional_update --format json >"$tmp/stdout-run.json" 2>/dev/null
"$py" "$here/validate_json.py" "$schema" "$tmp"/*.json || failures=$((failures + 1))
# Broken on purpose: each must be rejected.
jq '.verdict.holds = true' "$tmp/check-violated.json" >"$tmp/bad-holds.json"
jq 'del(.counterexample)' "$tmp/check-violated.json" >"$tmp/bad-no-cx.json"
jq '.verdict.exit_status = 0' "$tmp/explore-incomplete.json" >"$tmp/bad-status.json"
jq '.cells[0].properties.no_oversell.ci95 = [0, 2]' "$tmp/compare.json" >"$tmp/bad-ci.json"
jq '.scenario.horizon_ns = "600s"' "$tmp/run-holds.json" >"$tmp/bad-duration.json"
jq '.schema = "oversim-result/0"' "$tmp/hash.json" >"$tmp/bad-schema.json"
"$py" "$here/validate_json.py" --reject "$schema" "$tmp"/bad-*.json || failures=$((failures + 1))
# JUnit XML: a test case per asserted property; failures exactly where the verdict is not a pass.
junit() {  # junit NAME WANT_FAILURES args...
  local name="$1" want="$2"
  shift 2
  "$oversim" "$@" --junit "$tmp/$name.xml" >/dev/null 2>&1
  local got
  got=$("$py" -c 'import sys, xml.etree.ElementTree as E; r = E.parse(sys.argv[1]).getroot(); s = r.find("testsuite"); print(len(s.findall("testcase")), len(s.findall("testcase/failure")), r.get("failures"))' "$tmp/$name.xml" 2>&1)
  if [ "$got" != "$want" ]; then echo "FAIL: --junit of $*: cases, failures, failures attribute = '$got', expected '$want'"; failures=$((failures + 1)); fi
}
junit violated "7 2 2" check --variant redis_lock_read_modify_write --faults gc-pause --seeds 5
junit holds "7 0 0" check --variant db_conditional_update --faults gc-pause --seeds 5
junit vacuous "7 7 7" check --variant db_conditional_update --seeds 2 --require lock_contended
junit explore "1 1 1" explore --variant redis_lock_read_modify_write --properties no_oversell
if ! grep -q "reproduce: oversim run --variant redis_lock_read_modify_write" "$tmp/violated.xml"; then echo "FAIL: the JUnit failure does not carry the reproduce command"; failures=$((failures + 1)); fi
# A cell that does not apply says why (redlock's acquire-pause on a database-only design).
if ! jq -e '[.cells[] | select(.applies == false)] | length > 0' "$tmp/compare.json" >/dev/null; then echo "FAIL: compare's JSON has no cell that does not apply"; failures=$((failures + 1)); fi
echo "json_schema: $failures failed"
[ "$failures" -eq 0 ]
