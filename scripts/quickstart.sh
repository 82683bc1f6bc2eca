#!/usr/bin/env bash
# Quick start, step one: install what is missing (Debian 12), build Release into ./build, and
# run the main job on its built-in default. Safe to run again: it installs nothing twice.
#   ./scripts/quickstart.sh                 (as root; a user with sudo: sudo ./scripts/quickstart.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
./scripts/reset-stale-cache.sh build
cmake --preset release >/dev/null
cmake --build --preset release --target oversim
exec ./build/oversim "$@"
