#!/usr/bin/env bash
# Same seed, same run, whatever the compiler: runs every design under every fault profile for
# 200 seeds with two builds of oversim (g++ and clang++ in CI) and diffs one fingerprint line per
# run (design, profile, seed, run hash, violated properties, fault plan). Any difference fails
# and is printed.
#   scripts/cross-compiler-check.sh build/oversim build-clang/oversim [seeds, default 1..150]
set -euo pipefail
a="$1"
b="$2"
seeds="${3:-1..150}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "cross-compiler check: $a vs $b, every design x every profile x seeds $seeds"
"$a" hash --variants all --faults all --seeds "$seeds" --jobs 2 > "$tmp/a.tsv"
"$b" hash --variants all --faults all --seeds "$seeds" --jobs 2 > "$tmp/b.tsv"
runs=$(wc -l < "$tmp/a.tsv")
if ! diff "$tmp/a.tsv" "$tmp/b.tsv" > "$tmp/diff"; then
  differ=$(grep -c '^<' "$tmp/diff" || true)
  echo "cross-compiler check: $differ of $runs runs differ between the two builds (first 20):"
  head -40 "$tmp/diff"
  exit 1
fi
echo "cross-compiler check: all $runs runs identical"
