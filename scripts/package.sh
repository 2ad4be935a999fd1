#!/usr/bin/env bash
# Builds the Debian packages of Tarock Arena (docs/packages.md) with CPack:
#
#   tarock-tools_VERSION_ARCH.deb  tarock (match, check-bot, compare), the reference
#                                  bots, tarock-stdio-bridge, the Python SDK
#   tarock-arena_VERSION_ARCH.deb  tarock-arena, -arena-cli, -referee, -bothost,
#                                  tarock-health-probe, the systemd units
#
# Usage: scripts/package.sh [BUILD_DIR [OUT_DIR]]
#   BUILD_DIR  a build tree (default: build); configured as Release without tests and
#              benchmarks when it does not exist yet, and brought up to date
#   OUT_DIR    where the .deb files go (default: BUILD_DIR/packages)
# Environment: TAROCK_BUILD_JOBS=N limits the parallel compile jobs.
#
# Needs dpkg-dev (dpkg-shlibdeps finds each package's Depends from its binaries) and
# file; scripts/setup.sh installs both. Prints the path of each package and its
# Depends. Install them on Debian 12 with `apt install ./tarock-*.deb`.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
out=${2:-$build/packages}

for tool in dpkg-shlibdeps dpkg-deb file cpack; do
  if ! command -v "$tool" >/dev/null; then
    echo "package.sh: $tool is missing (scripts/setup.sh installs dpkg-dev and file)" >&2
    exit 1
  fi
done

if [ ! -f "$build/CMakeCache.txt" ]; then
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DTAROCK_BUILD_TESTS=OFF -DTAROCK_BUILD_BENCHMARKS=OFF >/dev/null
fi
cmake --build "$build" ${TAROCK_BUILD_JOBS:+-j "$TAROCK_BUILD_JOBS"} >/dev/null

mkdir -p "$out"
out=$(cd "$out" && pwd)
rm -f "$out"/tarock-tools_*.deb "$out"/tarock-arena_*.deb
# CPack installs each component into a staging folder under OUT_DIR/_CPack_Packages,
# strips the binaries, runs dpkg-shlibdeps and writes the packages.
if ! (cd "$build" && cpack -G DEB -B "$out" >"$out/cpack.log" 2>&1); then
  cat "$out/cpack.log" >&2
  echo "package.sh: cpack failed (log: $out/cpack.log)" >&2
  exit 1
fi
rm -rf "$out/_CPack_Packages"

shopt -s nullglob
debs=("$out"/tarock-tools_*.deb "$out"/tarock-arena_*.deb)
if [ ${#debs[@]} -ne 2 ]; then
  echo "package.sh: expected two packages in $out, found ${#debs[@]}" >&2
  exit 1
fi
for deb in "${debs[@]}"; do
  echo "$deb"
  echo "  Depends: $(dpkg-deb -f "$deb" Depends)"
done
