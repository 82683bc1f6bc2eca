#!/usr/bin/env bash
# Quick start, step two: build and run the whole test suite through ctest, twice: the Release
# build (./build) and the ASan+UBSan build (./build-asan). Determinism tests run in both.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake --workflow --preset release
cmake --workflow --preset asan
