#!/usr/bin/env bash
# Sets up, builds, and runs every test: the libFuzzer targets for a bounded
# time each (scripts/fuzz.sh, clang, build-fuzz/), then everything under ctest.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/build.sh
./scripts/fuzz.sh
cd "${BUILD_DIR:-build}"
ctest --output-on-failure -j "$(nproc)" --timeout 900
