#!/usr/bin/env bash
# oversim as an installed package: `cmake --install` of a build into a temporary prefix, then
# tests/installed/ (a separate CMake project) configured with only that prefix, built and run.
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
# Nothing of the tree: the consumer sees the prefix only.
cp -r "$src/tests/installed" "$tmp/consumer"
cmake -S "$tmp/consumer" -B "$tmp/consumer/build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER="$cxx" \
      -DCMAKE_PREFIX_PATH="$tmp/prefix" -DCMAKE_EXPORT_COMPILE_COMMANDS=ON > "$tmp/configure.log" || { cat "$tmp/configure.log"; exit 1; }
cmake --build "$tmp/consumer/build" > "$tmp/build.log" 2>&1 || { cat "$tmp/build.log"; exit 1; }
if grep -qF -- "$src/" "$tmp/consumer/build/compile_commands.json"; then echo "the consumer was compiled with the source tree on its include path"; exit 1; fi
"$tmp/consumer/build/consumer"
# A user's own designs in a user's own oversim command.
my="$tmp/consumer/build/my_oversim"
"$my" list variants | grep -q "^my_conditional " || { echo "my_oversim list variants does not list my_conditional"; exit 1; }
"$my" check --variant my_conditional --faults gc-pause --seeds 20 > "$tmp/holds.txt" 2>&1 || { echo "my_conditional did not hold:"; tail -5 "$tmp/holds.txt"; exit 1; }
set +e
"$my" check --variant my_broken --faults gc-pause --seeds 20 > "$tmp/broken.txt" 2>&1
status=$?
set -e
[ "$status" = 1 ] || { echo "my_broken under gc-pause exited $status, expected 1 (violated)"; tail -5 "$tmp/broken.txt"; exit 1; }
line=$(sed -n 's/^reproduce: //p' "$tmp/broken.txt" | head -1)
case "$line" in
  "cmake --build $tmp/consumer/build --target my_oversim && $my run --variant my_broken "*) ;;
  *) echo "the reproduce line does not rebuild and run my_oversim: $line"; exit 1 ;;
esac
set +e
bash -c "$line" > "$tmp/replay.txt" 2>&1
status=$?
set -e
[ "$status" = 1 ] && grep -q "^verdict: VIOLATED: no_oversell" "$tmp/replay.txt" || { echo "the reproduce line, run as printed, exited $status:"; tail -5 "$tmp/replay.txt"; exit 1; }
test -f "$tmp/prefix/lib/cmake/oversim/oversimConfigVersion.cmake"
test -x "$tmp/prefix/bin/oversim"
# Its gtest property tests: the holding one passes; the broken variant's fails, and the reproduce
# command in its message, run as printed, ends VIOLATED.
"$tmp/consumer/build/my_tests" --gtest_filter=MyDesigns.TheConditional* > "$tmp/gtest_holds.txt" 2>&1 || { echo "MyDesigns.TheConditional... failed:"; tail -20 "$tmp/gtest_holds.txt"; exit 1; }
grep -q "OK \] MyDesigns.TheConditionalDecrementNeverOversellsInAnyGeneratedSale" "$tmp/gtest_holds.txt" || { echo "the rapidcheck property did not run"; exit 1; }
set +e
"$tmp/consumer/build/my_tests" --gtest_filter=MyDesigns.TheBrokenVariantFails > "$tmp/gtest_broken.txt" 2>&1
status=$?
set -e
[ "$status" = 1 ] || { echo "MyDesigns.TheBrokenVariantFails exited $status, expected to fail"; tail -20 "$tmp/gtest_broken.txt"; exit 1; }
line=$(sed -n 's/^  reproduce: //p' "$tmp/gtest_broken.txt" | head -1)
case "$line" in
  "cmake --build $tmp/consumer/build --target my_oversim && $my run --variant my_broken "*) ;;
  *) echo "the gtest failure carries no reproduce line for my_oversim: $(cat "$tmp/gtest_broken.txt")"; exit 1 ;;
esac
set +e
bash -c "$line" > "$tmp/gtest_replay.txt" 2>&1
status=$?
set -e
[ "$status" = 1 ] && grep -q "^verdict: VIOLATED: no_oversell" "$tmp/gtest_replay.txt" || { echo "the gtest failure's reproduce line, run as printed, exited $status:"; tail -5 "$tmp/gtest_replay.txt"; exit 1; }
echo "installed_test: the package at $tmp/prefix builds and runs tests/installed"
