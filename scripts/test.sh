#!/usr/bin/env bash
# Sets up, builds, and runs every test: the libFuzzer targets for a bounded
# time each (scripts/fuzz.sh, clang, build-fuzz/), then everything under ctest.
# A test whose environment cannot exist on this machine exits 77 after a line
# "SKIP: why": ctest reports it as skipped, and the reasons are printed last.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/build.sh
./scripts/fuzz.sh
cd "${BUILD_DIR:-build}"
status=0
ctest --output-on-failure -j "$(nproc)" --timeout 900 || status=$?
# ctest shows no output of a skipped test: its reason, from ctest's log.
awk '/^[0-9]+\/[0-9]+ Test: /{name=$3} /^SKIP: /{print "skipped " name ": " substr($0, 7)}' \
  Testing/Temporary/LastTest.log 2>/dev/null || true
exit $status
