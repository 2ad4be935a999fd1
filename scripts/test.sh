#!/usr/bin/env bash
# Sets up, builds, and runs every test: the libFuzzer targets for a bounded
# time each (scripts/fuzz.sh, clang, build-fuzz/), then everything under ctest.
# A test whose environment cannot exist on this machine exits 77 after a line
# "SKIP: why": ctest reports it as skipped, and the reasons are printed last.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/build.sh
./scripts/fuzz.sh
src=$PWD
cd "${BUILD_DIR:-build}"
# ctest starts the longest tests first when it knows how long each takes
# (without that, a long test that starts last keeps one slot busy alone at the
# end): a build that has not run ctest yet starts from the times of a full run
# (tests/ctest_costs.txt, ctest's own CTestCostData format), then keeps its own.
if [ ! -f Testing/Temporary/CTestCostData.txt ] && [ -f "$src/tests/ctest_costs.txt" ]; then
  mkdir -p Testing/Temporary
  cp "$src/tests/ctest_costs.txt" Testing/Temporary/CTestCostData.txt
fi
status=0
ctest --output-on-failure -j "$(nproc)" --timeout 900 || status=$?
# ctest shows no output of a skipped test: its reason, from ctest's log.
awk '/^[0-9]+\/[0-9]+ Test: /{name=$3} /^SKIP: /{print "skipped " name ": " substr($0, 7)}' \
  Testing/Temporary/LastTest.log 2>/dev/null || true
exit $status
