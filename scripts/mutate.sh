#!/usr/bin/env bash
# Mutation check: do oversim's tests fail when oversim breaks?
#
# Applies each one-line mutation listed in tests/mutations.txt to a copy of the tree, rebuilds
# incrementally (Release, g++), runs the whole test suite (stopping at the first failure) and
# reports which mutations survive. The working tree is never touched.
#
#   scripts/mutate.sh                   every mutation
#   scripts/mutate.sh NAME [NAME...]    only these
#   scripts/mutate.sh --list            the mutations and what each breaks
#
# Environment: OVERSIM_MUTATE_DIR (default /tmp/oversim-mutate) keeps the copy and its build
# between runs, so a second run rebuilds only what changed. Exit status: 0 when every mutation
# not marked equivalent was killed, 1 when one survived, 2 on bad input or a broken baseline.
set -euo pipefail

repo=${OVERSIM_MUTATE_REPO:-$(cd "$(dirname "$0")/.." && pwd)}
list="$repo/tests/mutations.txt"
work=${OVERSIM_MUTATE_DIR:-/tmp/oversim-mutate}
src="$work/src"
build="$work/build"
jobs=${OVERSIM_MUTATE_JOBS:-2}

die() { echo "mutate: $*" >&2; exit 2; }

# ---- parse the list into parallel arrays
names=(); files=(); finds=(); repls=(); breaks=(); equivs=()
cur=-1
while IFS= read -r line || [ -n "$line" ]; do
  case "$line" in
    "#"*|"") continue ;;
    "== "*) cur=$((cur + 1)); names[cur]=${line#== }; files[cur]=""; finds[cur]=""; repls[cur]=""; breaks[cur]=""; equivs[cur]="" ;;
    "file: "*) files[cur]=${line#file: } ;;
    "find: "*) finds[cur]=${line#find: } ;;
    "repl: "*) repls[cur]=${line#repl: } ;;
    "breaks: "*) breaks[cur]=${line#breaks: } ;;
    "equivalent: "*) equivs[cur]=${line#equivalent: } ;;
    *) die "$list: cannot read line: $line" ;;
  esac
done < "$list"
total=${#names[@]}
[ "$total" -gt 0 ] || die "$list lists no mutations"
for i in "${!names[@]}"; do
  [ -n "${files[i]}" ] && [ -n "${finds[i]}" ] && [ -n "${breaks[i]}" ] || die "mutation '${names[i]}' needs file, find, repl and breaks"
done

if [ "${1:-}" = "--list" ]; then
  for i in "${!names[@]}"; do printf '%-36s %-32s %s\n' "${names[i]}" "${files[i]}" "${breaks[i]}"; done
  exit 0
fi

selected=()
if [ $# -gt 0 ]; then
  for want in "$@"; do
    found=""
    for i in "${!names[@]}"; do [ "${names[i]}" = "$want" ] && found=$i; done
    [ -n "$found" ] || die "unknown mutation '$want' (see scripts/mutate.sh --list)"
    selected+=("$found")
  done
else
  selected=("${!names[@]}")
fi

# ---- the copy: tracked files of the working tree, copied only when they differ (keeps the
# incremental build incremental)
mkdir -p "$src"
cd "$repo"
git ls-files -z | while IFS= read -r -d '' f; do
  [ -f "$f" ] || continue
  # A fresh mtime, so the build sees the change even when the copy was restored from a mutation.
  if ! cmp -s "$f" "$src/$f" 2>/dev/null; then mkdir -p "$src/$(dirname "$f")"; cp "$f" "$src/$f"; fi
done

# Replaces the single occurrence of FIND with REPL in FILE ("\n" means a newline). Prints the
# number of occurrences it found; changes the file only when there was exactly one.
apply_mutation() {
  FIND="$2" REPL="$3" perl -0777 -i -pe '
    BEGIN { ($f, $r) = ($ENV{FIND}, $ENV{REPL}); $f =~ s/\\n/\n/g; $r =~ s/\\n/\n/g; }
    $n = () = /\Q$f\E/g;
    s/\Q$f\E/$r/ if $n == 1;
    END { print STDERR "$n\n"; }' "$1" 2>&1 >/dev/null | tail -1
}

build_it() { cmake --build "$build" -j "$jobs" >"$work/build.log" 2>&1; }
# The golden fingerprints fail on any change of behaviour, so they run last: a mutation they alone
# kill changed runs without any test of meaning noticing, and the report says so.
run_tests() { ctest --test-dir "$build" -j "$jobs" --stop-on-failure --timeout 900 -E '^Golden\.' >"$work/test.log" 2>&1; }
run_golden() { ctest --test-dir "$build" -j "$jobs" --timeout 900 -R '^Golden\.' >"$work/test.log" 2>&1; }
first_failure() { grep -E '\*\*\*(Failed|Timeout|Exception)|Failed  |\(Failed\)|\(Timeout\)' "$work/test.log" | head -1 | sed -E 's/^ *[0-9]+\/[0-9]+ Test +#[0-9]+: //; s/ \.{3,}.*//; s/ *#.*//' ; }

# Every selected mutation must apply exactly once before anything is built.
for i in "${selected[@]}"; do
  [ -f "$src/${files[i]}" ] || die "mutation '${names[i]}': no file ${files[i]}"
  n=$(FIND="${finds[i]}" perl -0777 -ne '$f = $ENV{FIND}; $f =~ s/\\n/\n/g; $n = () = /\Q$f\E/g; print $n' "$src/${files[i]}")
  [ "$n" = "1" ] || die "mutation '${names[i]}': its find text occurs $n times in ${files[i]} (must be once)"
done

if [ ! -f "$build/build.ninja" ]; then
  cmake -S "$src" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DOVERSIM_BENCH=OFF >"$work/configure.log" 2>&1 || die "configure failed: $work/configure.log"
fi
echo "mutate: baseline build and tests in $build"
build_it || die "the unmutated tree does not build: $work/build.log"
run_tests && run_golden || die "the unmutated tree fails its tests: $work/test.log"

report="$work/report.txt"
: >"$report"
killed=0; survived=0; equivalent=0; stillborn=0; golden_only=0
start=$(date +%s)
for i in "${selected[@]}"; do
  f="$src/${files[i]}"
  [ -f "$f" ] || die "mutation '${names[i]}': no file ${files[i]}"
  cp -p "$f" "$work/original"
  n=$(apply_mutation "$f" "${finds[i]}" "${repls[i]}")
  if [ "$n" != "1" ]; then
    cp -p "$work/original" "$f"
    die "mutation '${names[i]}': its find text occurs $n times in ${files[i]} (must be once)"
  fi
  t0=$(date +%s)
  if ! build_it; then
    verdict="stillborn"; detail="does not compile"; stillborn=$((stillborn + 1))
  elif ! run_tests; then
    verdict="killed"; detail="by $(first_failure)"; killed=$((killed + 1))
  elif ! run_golden; then
    verdict="killed"; detail="only by the golden fingerprints (runs changed; no test of meaning noticed)"; killed=$((killed + 1)); golden_only=$((golden_only + 1))
  elif [ -n "${equivs[i]}" ]; then
    verdict="equivalent"; detail="${equivs[i]}"; equivalent=$((equivalent + 1))
  else
    verdict="SURVIVED"; detail="every test passed"; survived=$((survived + 1))
  fi
  cp -p "$work/original" "$f"
  touch "$f"
  line=$(printf '%-10s %-36s %4ss  %s' "$verdict" "${names[i]}" "$(( $(date +%s) - t0 ))" "$detail")
  echo "$line" | tee -a "$report"
done
# Leave the copy built as the tree is.
build_it || true

counted=$((killed + survived))
rate="n/a"
[ "$counted" -gt 0 ] && rate=$(awk -v k="$killed" -v c="$counted" 'BEGIN { printf "%.1f%%", 100 * k / c }')
summary="mutate: ${#selected[@]} mutations: $killed killed ($golden_only only by the golden fingerprints), $survived survived, $equivalent equivalent, $stillborn stillborn; kill rate $rate (killed / (killed + survived)) in $(( $(date +%s) - start ))s"
echo "$summary" | tee -a "$report"
echo "mutate: report in $report"
[ "$survived" -eq 0 ]
