#!/usr/bin/env bash
# The HTML report in a real browser: check's report of a counterexample and compare's report of
# a table with several violating cells, opened offline in headless Chromium (every host name
# unresolvable). No script or console error; one timeline per counterexample, whose lanes are
# exactly the run's buyers and nodes (from its full text trace) and whose belief bars are one per
# lock acquisition in that trace; a screenshot that is not blank; no network address in the file.
# `oversim report` draws the same page from the saved JSON.
# Usage: html_report_test.sh path/to/oversim [compare args...]
set -u
oversim="$1"
shift
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
py=/usr/bin/python3
[ -x "$py" ] || py=python3
here=$(cd "$(dirname "$0")" && pwd)
browser=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$browser" ]; then echo "FAIL: chromium is not installed (scripts/install-deps.sh installs it)"; exit 1; fi
failures=0

# The lanes and belief bars a timeline must show, from each counterexample's full text trace.
expect_of() {  # expect_of RESULT.json OUT.json
  "$py" - "$oversim" "$1" "$2" <<'PY'
import json, re, shlex, subprocess, sys
oversim, result, out = sys.argv[1:4]
r = json.load(open(result))
cxs = [r["counterexample"]] if "counterexample" in r else [c["counterexample"] for c in r.get("cells", []) if "counterexample" in c]
timelines = []
for cx in cxs:
    args = shlex.split(cx["reproduce"])[1:] + ["--trace", "text"]
    text = subprocess.run([oversim] + args, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True).stdout
    buyers, apps, servers, beliefs = [], [], [], 0
    for line in text.splitlines():
        m = re.match(r"\s+\d+\.\d+s #\d+\s+(\S+)\s+(\S+)(.*)", line)
        if not m:
            continue
        node, kind, rest = m.groups()
        b = re.search(r"\bbuyer=(r\d+)#", rest)
        if b and b.group(1) not in buyers:
            buyers.append(b.group(1))
        if node != "-":
            group = apps if node.startswith("app-") else servers
            if node not in group:
                group.append(node)
        if kind == "lock-held":
            beliefs += 1
    timelines.append({"lanes": ["faults"] + buyers + apps + servers, "beliefs": beliefs})
json.dump({"timelines": timelines}, open(out, "w"))
print(f"expect: {len(timelines)} timelines")
PY
}

open_in_browser() {  # open_in_browser PAGE.html NAME
  local page="$1" name="$2"
  local flags=(--headless --no-sandbox --disable-gpu --hide-scrollbars --no-first-run --host-resolver-rules="MAP * ~NOTFOUND" --user-data-dir="$tmp/profile-$name")
  timeout 120 "$browser" "${flags[@]}" --enable-logging=stderr --v=0 --dump-dom "file://$page" >"$tmp/$name.dom" 2>"$tmp/$name.console"
  timeout 120 "$browser" "${flags[@]}" --window-size=1300,900 --screenshot="$tmp/$name.png" "file://$page" >/dev/null 2>&1
  if grep -Eo '(src|href)="(https?:)?//[^"]*"' "$page" | head -3 | grep -q .; then echo "FAIL: $name: the page loads something from the network"; failures=$((failures + 1)); fi
  expect_of "$tmp/$name.json" "$tmp/$name.expect.json" >/dev/null
  "$py" "$here/html_check.py" "$tmp/$name.dom" "$tmp/$name.console" "$tmp/$name.png" "$tmp/$name.expect.json" || failures=$((failures + 1))
}

"$oversim" check --variant redis_lock_read_modify_write --faults failover --seeds 20 --html "$tmp/check.html" --json "$tmp/check.json" >/dev/null 2>&1
[ "$?" = 1 ] || { echo "FAIL: check did not find the failover oversell"; failures=$((failures + 1)); }
open_in_browser "$tmp/check.html" check

if [ "$#" -gt 0 ]; then
  "$oversim" compare "$@" --html "$tmp/compare.html" --json "$tmp/compare.json" >/dev/null 2>&1 || { echo "FAIL: compare $*"; failures=$((failures + 1)); }
else
  "$oversim" compare --html "$tmp/compare.html" --json "$tmp/compare.json" >/dev/null 2>&1 || { echo "FAIL: compare"; failures=$((failures + 1)); }
fi
n=$(jq '[.cells[] | select(.counterexample)] | length' "$tmp/compare.json")
[ "${n:-0}" -ge 2 ] || { echo "FAIL: compare's report has $n counterexamples"; failures=$((failures + 1)); }
open_in_browser "$tmp/compare.html" compare

# oversim report draws the same page from the saved result.
"$oversim" report "$tmp/check.json" --html "$tmp/again.html" >/dev/null 2>&1
cmp -s "$tmp/check.html" "$tmp/again.html" || { echo "FAIL: oversim report drew a different page from the saved JSON"; failures=$((failures + 1)); }
echo "html_report: $failures failed"
[ "$failures" -eq 0 ]
