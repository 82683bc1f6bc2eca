#!/usr/bin/env bash
# Regenerates tests/golden/fingerprints.tsv from a build's `oversim hash`. Run it only when a
# change is meant to change runs, and say in the commit why each changed line changed.
#   scripts/update-golden.sh [path/to/oversim]
set -euo pipefail
cd "$(dirname "$0")/.."
oversim="${1:-./build/oversim}"
out=tests/golden/fingerprints.tsv
{
  echo "# Golden fingerprints: design, profile, seed, run hash, violated properties, fault plan (tab separated)."
  echo "# Made by scripts/update-golden.sh ($oversim hash --variants all --faults all --seeds 1..3 --strategy random, default workload)."
  echo "# tests/golden_test.cpp replays every line in every build (g++, clang++, ASan+UBSan) and must match it exactly."
  "$oversim" hash --variants all --faults all --seeds 1..3 --strategy random --jobs 2
} > "$out"
echo "wrote $(grep -vc '^#' "$out") fingerprints to $out"
