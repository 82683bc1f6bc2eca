#!/usr/bin/env bash
# Installs the Debian packages oversim builds with, skipping the ones already present.
set -euo pipefail
packages=(
  g++ clang libclang-rt-14-dev cmake ninja-build
  libboost-fiber-dev libboost-context-dev
  librapidcheck-dev libgtest-dev libgmock-dev
  libfmt-dev libcli11-dev nlohmann-json3-dev libtomlplusplus-dev libbenchmark-dev libjemalloc-dev
  jq python3-jsonschema chromium
  slurm-wlm munge python3-yaml
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all packages present"
  exit 0
fi
echo "install-deps: installing ${missing[*]}"
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "install-deps: done"
