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
test -f "$tmp/prefix/lib/cmake/oversim/oversimConfigVersion.cmake"
test -x "$tmp/prefix/bin/oversim"
echo "installed_test: the package at $tmp/prefix builds and runs tests/installed"
