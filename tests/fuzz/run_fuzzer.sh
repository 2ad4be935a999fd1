#!/usr/bin/env bash
# Runs one libFuzzer target as a test: first every committed seed and
# regression input once (a crash there is a regression), then fuzzing for
# SECONDS from them. New inputs go to WORK (the build tree), never to the
# source tree. Prints executions, coverage and corpus size on one line.
# Usage: run_fuzzer.sh BINARY FUZZ_SOURCE_DIR WORK_DIR SECONDS
set -euo pipefail
bin=$1 src=$2 work=$3 seconds=$4
name=$(basename "$bin")
seeds=$src/corpus/$name regressions=$src/regressions/$name
rm -f "$work/summary.txt"
mkdir -p "$work/corpus" "$work/artifacts"
inputs=()
for d in "$seeds" "$regressions"; do
  [ -d "$d" ] && inputs+=("$d")
done
# 1. Replay: each committed input once.
files=()
for d in "${inputs[@]}"; do
  while IFS= read -r -d '' f; do files+=("$f"); done < <(find "$d" -type f -print0)
done
if [ ${#files[@]} -gt 0 ]; then
  "$bin" -runs=1 "${files[@]}" >"$work/replay.log" 2>&1 || {
    cat "$work/replay.log"; echo "$name: a committed input fails"; exit 1; }
fi
# 2. Fuzz from them for a bounded time.
log=$work/fuzz.log
if ! "$bin" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=8192 \
    -print_final_stats=1 -artifact_prefix="$work/artifacts/" \
    "$work/corpus" "${inputs[@]}" >"$log" 2>&1; then
  tail -n 60 "$log"
  echo "$name: crash; the input is in $work/artifacts/ — add it to tests/fuzz/regressions/$name/"
  exit 1
fi
runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo '?')
cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | grep -o '[0-9]*' || echo '?')
ft=$(grep -o 'ft: [0-9]*' "$log" | tail -1 | grep -o '[0-9]*' || echo '?')
corpus=$(find "$work/corpus" -type f | wc -l)
echo "$name: ${#files[@]} committed inputs replayed; $runs executions in ${seconds} s;" \
     "coverage $cov edges ($ft features); $corpus new corpus inputs" | tee "$work/summary.txt"
