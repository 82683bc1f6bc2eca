#!/usr/bin/env bash
# The verdict table's "holds" cells, checked far past the 40 seeds the unit test runs: every design
# under every profile for seeds 41..LAST (default 1040), then every cell that tests/verdicts_test.cpp
# marks H (held) but some run violated is reported with how often and its first seed. A cell is only
# as true as its evidence: docs/testing.md records the last run of this script.
#
#   scripts/sweep-holds.sh [oversim binary, default build/oversim] [LAST, default 1040]
#   JOBS=2 (OS threads); VARIANTS=a,b (default all): only these designs;
#   STRATEGY=random (default; the table's own) or swarm or pct: how the sweep searches
# Exit status: 0 when every H cell held, 1 when one did not, 2 on bad use.
set -euo pipefail
cd "$(dirname "$0")/.."
oversim=${1:-build/oversim}
last=${2:-1040}
jobs=${JOBS:-2}
strategy=${STRATEGY:-random}
[[ -x "$oversim" ]] || { echo "sweep-holds: no oversim binary at $oversim (build first)" >&2; exit 2; }
[[ "$last" =~ ^[0-9]+$ && "$last" -gt 40 ]] || { echo "sweep-holds: LAST must be a seed above 40, got '$last'" >&2; exit 2; }
runs=$(mktemp)
trap 'rm -f "$runs"' EXIT
start=$(date +%s)
# --force: a long sweep is this script's job (LAST 5040 is past the 2h-of-CPU limit of a command,
# docs/guide.md#limits); the estimate still goes to stderr first.
"$oversim" hash --variants "${VARIANTS:-all}" --faults all --seeds "41..$last" --strategy "$strategy" --jobs "$jobs" --force > "$runs"
if grep -q $'\terror: ' "$runs"; then grep $'\terror: ' "$runs" | head -5 >&2; exit 2; fi
awk -F'\t' -v strategy="$strategy" -v seeds=$((last - 40)) -v elapsed=$(( $(date +%s) - start )) '
  BEGIN { split("no_oversell no_duplicate_order no_lost_order no_told_wrong ledger_conservation lock_mutual_exclusion no_foreign_unlock no_lost_update progress compensation_converges no_vanished_stock", col, " ") }
  FNR == NR {
    # the table rows of tests/verdicts_test.cpp: {"design", "profile", H, V, ...
    if ($0 !~ /^    \{"[a-z0-9_]+", "[a-z-]+", [HV],/) next
    line = $0; gsub(/[{}"]/, "", line); sub(/^ +/, "", line); n = split(line, f, ", ")
    key = f[1] SUBSEP f[2]; hrow[key] += 0
    for (i = 1; i <= 11; i++) if (f[i + 2] ~ /^ *H$/) { held[key, col[i]] = 1; hrow[key]++ }
    next
  }
  {
    key = $1 SUBSEP $2
    if ((key in hrow) && !(key in swept)) { swept[key] = 1; rows++; hcells += hrow[key] }
    if ($5 == "-") next
    n = split($5, v, ",")
    for (i = 1; i <= n; i++) if ((key, v[i]) in held) {
      bad[key, v[i]]++
      if (!((key, v[i]) in first) || $3 + 0 < first[key, v[i]]) first[key, v[i]] = $3 + 0
    }
  }
  END {
    for (k in bad) { split(k, p, SUBSEP); printf "%s / %s: %s is H in the table but was violated in %d of %d seeds (first seed %d)\n", p[1], p[2], p[3], bad[k], seeds, first[k]; failed++ }
    # Only the rows this sweep ran (VARIANTS narrows it) count as checked.
    printf "sweep-holds: %d H cells in %d rows, seeds 41..%d (%d runs each), strategy %s, %ds: %s\n", hcells, rows, seeds + 40, seeds, strategy, elapsed, failed ? failed " did not hold" : "every one held"
    exit failed ? 1 : 0
  }' tests/verdicts_test.cpp "$runs"
