#!/usr/bin/env bash
# Runs each libFuzzer target from the ASan+UBSan clang build (build-asan) for a while, starting
# from the checked-in corpus in fuzz/corpus/<target>/ (new inputs go to a temp dir, so the tree
# stays clean). A crash, an ASan/UBSan report or a broken property fails with the input saved.
#   scripts/fuzz.sh [seconds per target, default 60] [build dir, default build-asan]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"
build="${2:-build-asan}"
# The build links clang's sanitizer runtime as a shared library (docs/architecture.md); libFuzzer
# pulls libstdc++ in ahead of it, so the runtime is preloaded to come first.
asan_so=$(clang++ -print-file-name=libclang_rt.asan-x86_64.so)
status=0
for target in fault_plan_fuzz scenario_fuzz scenario_file_fuzz; do
  bin="$build/fuzz/$target"
  if [ ! -x "$bin" ]; then
    echo "fuzz: $bin is missing (configure with -DOVERSIM_FUZZ=ON and clang++: cmake --preset asan)"
    exit 1
  fi
  name="${target%_fuzz}"
  work=$(mktemp -d)
  cp -r "fuzz/corpus/$name/." "$work/"
  echo "fuzz: $target for ${seconds}s from $(ls "fuzz/corpus/$name" | wc -l) corpus inputs"
  if LD_PRELOAD="$asan_so" ASAN_OPTIONS=detect_leaks=0:detect_stack_use_after_return=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
      "$bin" -max_total_time="$seconds" -max_len=4096 -timeout=10 -rss_limit_mb=4096 -artifact_prefix="$work/" \
      -dict="fuzz/$name.dict" "$work" > "$work.log" 2>&1; then
    grep -E "^#[0-9]+.*DONE|Done [0-9]+ runs" "$work.log" | tail -2
  else
    echo "fuzz: $target FAILED; last lines of its log:"
    tail -40 "$work.log"
    for crash in "$work"/crash-* "$work"/timeout-* "$work"/leak-*; do
      [ -e "$crash" ] && { echo "input $crash:"; od -c "$crash" | head -20; }
    done
    status=1
  fi
  rm -rf "$work" "$work.log"
done
exit $status
