#!/usr/bin/env bash
# The presets build with Ninja. A build directory configured another way (a plain `cmake -B
# build`, which picks Unix Makefiles) makes `cmake --preset` stop with "generator Ninja does not
# match the generator used previously". This clears such a directory's CMake cache (only the
# cache: the next configure rebuilds what it needs) and says so.
#   scripts/reset-stale-cache.sh build [build-clang ...]
set -euo pipefail
cd "$(dirname "$0")/.."
for dir in "$@"; do
  cache="$dir/CMakeCache.txt"
  [ -f "$cache" ] || continue
  generator=$(sed -n 's/^CMAKE_GENERATOR:INTERNAL=//p' "$cache")
  if [ "$generator" != "Ninja" ]; then
    echo "oversim: $dir was configured with '$generator'; the presets use Ninja: clearing $dir's CMake cache" >&2
    rm -rf "$cache" "$dir/CMakeFiles"
  fi
done
