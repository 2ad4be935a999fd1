#!/usr/bin/env bash
# Builds the libFuzzer targets (tests/fuzz) with clang into build-fuzz/ and runs
# each as a ctest test: the committed seeds and regressions once, then fuzzing
# for FUZZ_SECONDS (default 20) each. Needs clang and libfuzzer-14-dev
# (scripts/setup.sh installs them). FUZZ_BUILD_DIR overrides build-fuzz.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh >/dev/null
dir=${FUZZ_BUILD_DIR:-build-fuzz}
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$PWD}"  # as in scripts/build.sh
# -O1 and line tables only (not -O2 -g): the sanitizers' reports keep their file
# and line, and the build of every library with ASan and UBSan takes less time.
CXX=clang++ cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only -DNDEBUG" \
  -DTAROCK_BUILD_FUZZERS=ON -DTAROCK_BUILD_TESTS=OFF -DTAROCK_BUILD_BENCHMARKS=OFF \
  -DTAROCK_FUZZ_SECONDS="${FUZZ_SECONDS:-20}" >/dev/null
ninja -C "$dir" fuzzers
cd "$dir"
status=0
ctest --output-on-failure -j "$(nproc)" -R '^fuzz_' --timeout 600 || status=$?
echo "fuzzing summary (executions and coverage per target):"
cat tests/fuzz/work/*/summary.txt 2>/dev/null | sed 's/^/  /'
exit $status
