#!/usr/bin/env bash
# Sets up (scripts/setup.sh) and builds the project into build/ (Release).
# BUILD_DIR and BUILD_TYPE override the defaults.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
BUILD_DIR=${BUILD_DIR:-build}
# ccache (when installed) keys on paths relative to the checkout, so clones and
# worktrees in other folders share compiled objects.
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$PWD}"
cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE="${BUILD_TYPE:-Release}" >/dev/null
ninja -C "$BUILD_DIR"
