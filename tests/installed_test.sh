#!/usr/bin/env bash
# oversim as an installed package: `cmake --install` of a build into a temporary prefix, then two
# separate CMake projects configured with only that prefix, built and run:
# - tests/installed/: the API used from outside (the harness gives the verdict table's verdicts);
# - examples/my_design/: a team's own designs, its oversim command (my_oversim) and its property
#   tests; its tests pass, its broken variant's deliberately failing test fails, and the reproduce
#   line in that failure, run as printed, rebuilds my_oversim and ends VIOLATED. So does the one
#   my_oversim check prints.
# It fails if a target, a header or a dependency is missing from the package, or if the harness
# gives another verdict from outside the tree.
# Usage: installed_test.sh <build dir> <source dir> <C++ compiler>
set -euo pipefail
build="$1"
src="$2"
cxx="$3"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cmake --install "$build" --prefix "$tmp/prefix" > "$tmp/install.log"
test -f "$tmp/prefix/lib/cmake/oversim/oversimConfigVersion.cmake"
test -x "$tmp/prefix/bin/oversim"
# Nothing of the tree: each project sees the prefix only.
configure_and_build() {  # <project dir in the tree> <copy>
  cp -r "$1" "$2"
  cmake -S "$2" -B "$2/build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER="$cxx" \
        -DCMAKE_PREFIX_PATH="$tmp/prefix" -DCMAKE_EXPORT_COMPILE_COMMANDS=ON > "$tmp/configure.log" || { cat "$tmp/configure.log"; exit 1; }
  cmake --build "$2/build" > "$tmp/build.log" 2>&1 || { cat "$tmp/build.log"; exit 1; }
  if grep -qF -- "$src/" "$2/build/compile_commands.json"; then echo "$2 was compiled with the source tree on its include path"; exit 1; fi
}
configure_and_build "$src/tests/installed" "$tmp/consumer"
"$tmp/consumer/build/consumer"

ex="$tmp/my_design"
configure_and_build "$src/examples/my_design" "$ex"
my="$ex/build/my_oversim"
rebuild="cmake --build $ex/build --target my_oversim && $my run --variant my_recipe_trusting_lock "
# The project's own command: its designs listed, checked, and a violation's reproduce line run.
"$my" list variants | grep -q "^my_recipe " || { echo "my_oversim list variants does not list my_recipe"; exit 1; }
"$my" check --variant my_recipe --faults gc-pause --seeds 20 > "$tmp/holds.txt" 2>&1 || { echo "my_recipe did not hold:"; tail -5 "$tmp/holds.txt"; exit 1; }
set +e
"$my" check --variant my_recipe_trusting_lock --faults gc-pause --seeds 20 > "$tmp/broken.txt" 2>&1
status=$?
set -e
[ "$status" = 1 ] || { echo "my_recipe_trusting_lock under gc-pause exited $status, expected 1 (violated)"; tail -5 "$tmp/broken.txt"; exit 1; }
line=$(sed -n 's/^reproduce: //p' "$tmp/broken.txt" | head -1)
case "$line" in
  "$rebuild"*) ;;
  *) echo "the reproduce line does not rebuild and run my_oversim: $line"; exit 1 ;;
esac
set +e
bash -c "$line" > "$tmp/replay.txt" 2>&1
status=$?
set -e
[ "$status" = 1 ] && grep -q "^verdict: VIOLATED: no_oversell" "$tmp/replay.txt" || { echo "the reproduce line, run as printed, exited $status:"; tail -5 "$tmp/replay.txt"; exit 1; }

# Its tests, as its CI runs them: all pass (the broken variant's failing test is disabled).
(cd "$ex/build" && ctest --output-on-failure > "$tmp/ctest.txt" 2>&1) || { echo "examples/my_design's tests failed:"; tail -40 "$tmp/ctest.txt"; exit 1; }
grep -q "100% tests passed" "$tmp/ctest.txt" || { echo "examples/my_design's ctest did not pass"; cat "$tmp/ctest.txt"; exit 1; }
for t in MyRecipe.HoldsWhenALeaseExpiresUnderItsHolder MyRecipe.NeverOversellsInAnyGeneratedSale MyRecipeTrustingLock.TheHarnessCatchesIt; do
  grep -q "$t .*Passed" "$tmp/ctest.txt" || { echo "$t did not run and pass"; cat "$tmp/ctest.txt"; exit 1; }
done
# The broken variant's test, run on purpose: it fails, and the reproduce line its message carries,
# run as printed, ends VIOLATED.
set +e
"$ex/build/my_tests" --gtest_also_run_disabled_tests --gtest_filter=MyRecipeTrustingLock.DISABLED_Oversells > "$tmp/gtest_broken.txt" 2>&1
status=$?
set -e
[ "$status" = 1 ] || { echo "MyRecipeTrustingLock.DISABLED_Oversells exited $status, expected to fail"; tail -20 "$tmp/gtest_broken.txt"; exit 1; }
line=$(sed -n 's/^  reproduce: //p' "$tmp/gtest_broken.txt" | head -1)
case "$line" in
  "$rebuild"*) ;;
  *) echo "the gtest failure carries no reproduce line for my_oversim: $(cat "$tmp/gtest_broken.txt")"; exit 1 ;;
esac
set +e
bash -c "$line" > "$tmp/gtest_replay.txt" 2>&1
status=$?
set -e
[ "$status" = 1 ] && grep -q "^verdict: VIOLATED: no_oversell" "$tmp/gtest_replay.txt" || { echo "the gtest failure's reproduce line, run as printed, exited $status:"; tail -5 "$tmp/gtest_replay.txt"; exit 1; }
echo "installed_test: the package at $tmp/prefix builds and runs tests/installed and examples/my_design"
