#!/usr/bin/env bash
# Quick start, step two: build and run the whole test suite through ctest in three builds, then
# check that they agree and fuzz briefly:
#   1. Release with g++ (./build)
#   2. Release with clang++ (./build-clang)
#   3. every design x every profile that applies x 100 seeds (23,600 runs) hashed by both builds and
#      diffed (same seed, same run, whatever the compiler)
#   4. ASan+UBSan with clang++ (./build-asan), which also builds the libFuzzer targets; its ctest
#      leaves out the verdict table's failover, partition and clock-drift rows (long, widened
#      sales: 60% of the table's time under ASan), its retries rows (the next longest) and its
#      ZooKeeper rows, which the two Release
#      builds run, and whose code paths the golden, fast-path and ZooKeeper story tests still run
#      under ASan for every design and profile; and the Release-only tests: the reproduce-line
#      replay, the HTML report in Chromium, the scenario files (13 minutes under ASan; cli_test
#      feeds bad scenario files to the ASan build), the RedLock profile shrink cases, the shard
#      merges of every command (shard_test.cpp's merges run under ASan) and the explorer's walk of
#      every design at two buyers (5 minutes under ASan; explore_test's other walks run there)
#   5. each fuzz target for OVERSIM_FUZZ_SECONDS (default 45) from the checked-in corpus
# The golden-fingerprint and determinism tests run in every build.
set -euo pipefail
cd "$(dirname "$0")/.."
# Each step's wall time, so a CI run shows where its minutes went.
step() {
  local start=$SECONDS
  "$@"
  echo "test.sh: $* took $((SECONDS - start))s (total ${SECONDS}s)"
}
step ./scripts/reset-stale-cache.sh build build-clang build-asan
step cmake --workflow --preset release
step cmake --workflow --preset clang
step ./scripts/cross-compiler-check.sh build/oversim build-clang/oversim 1..100
step cmake --workflow --preset asan
step ./scripts/fuzz.sh "${OVERSIM_FUZZ_SECONDS:-45}" build-asan
