#!/usr/bin/env bash
# compare_bench: how many deals `tarock compare` needs to decide, over several
# seeds, beside the fixed number of deals a tarock-strength table needs.
#
#   referee/bench/compare_bench.sh [--build build] [--seeds 10] [--variant slovenian-4p]
#       [--h0 0] [--h1 3] [--concurrency 2] [--search_flags "--iterations 400"]
#       [--baseline heuristic]
#
# Runs `tarock compare --candidate search --baseline heuristic` once per seed
# 1..N (the search bot's own --seed is the same seed, so every run replays
# exactly) and prints per run the decision, deals, time and deals/s, then the
# mean, the median, the min and max of the deals to a decision, how many runs
# accepted H1, and the total time. Every run's report is kept in the output
# directory ($TMPDIR/compare_bench.XXXX, printed at the end).
set -uo pipefail
build=build seeds=10 variant=slovenian-4p h0=0 h1=3 concurrency=2
search_flags="" baseline=heuristic
while [ $# -gt 0 ]; do
  case "$1" in
    --build) build=$2; shift 2 ;;
    --seeds) seeds=$2; shift 2 ;;
    --variant) variant=$2; shift 2 ;;
    --h0) h0=$2; shift 2 ;;
    --h1) h1=$2; shift 2 ;;
    --concurrency) concurrency=$2; shift 2 ;;
    --search_flags) search_flags=$2; shift 2 ;;
    --baseline) baseline=$2; shift 2 ;;
    *) echo "compare_bench: unknown argument $1" >&2; exit 2 ;;
  esac
done
bin=$(cd "$build/bin" && pwd) || exit 2
out=$(mktemp -d "${TMPDIR:-/tmp}/compare_bench.XXXX")
echo "variant $variant, search ($search_flags) vs $baseline, h0 $h0, h1 $h1, alpha = beta = 0.05," \
     "concurrency $concurrency, seeds 1..$seeds"
printf '%-5s %-13s %6s %8s %8s %9s\n' seed decision deals seconds deals/s mean
for seed in $(seq 1 "$seeds"); do
  printf '#!/bin/sh\nexec "%s" --seed %s %s "$@"\n' "$bin/tarock-bot-search" "$seed" "$search_flags" \
    > "$out/search-$seed"
  chmod +x "$out/search-$seed"
  "$bin/tarock" compare --variant "$variant" --candidate "$out/search-$seed" \
    --baseline "$bin/tarock-bot-$baseline" --h0 "$h0" --h1 "$h1" --seed "$seed" \
    --concurrency "$concurrency" --quiet --report "$out/report-$seed.json" > "$out/out-$seed.txt" 2>&1
  /usr/bin/python3 - "$out/report-$seed.json" "$seed" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["result"]
print("%-5s %-13s %6d %8.1f %8.2f %+9.2f" % (sys.argv[2], r["decision"], r["deals"], r["seconds"],
                                              r["deals_per_second"], r["mean"]))
PY
done
/usr/bin/python3 - "$out" "$seeds" <<'PY'
import json, statistics, sys
out, seeds = sys.argv[1], int(sys.argv[2])
rs = [json.load(open("%s/report-%d.json" % (out, s)))["result"] for s in range(1, seeds + 1)]
deals = [r["deals"] for r in rs]
secs = sum(r["seconds"] for r in rs)
print("deals to a decision: mean %.1f, median %.1f, min %d, max %d; H1 %d of %d, H0 %d, inconclusive %d"
      % (statistics.mean(deals), statistics.median(deals), min(deals), max(deals),
         sum(r["decision"] == "H1" for r in rs), len(rs), sum(r["decision"] == "H0" for r in rs),
         sum(r["decision"] == "inconclusive" for r in rs)))
print("time: %.1f s in all, %.1f s per run; hands per run: mean %.1f"
      % (secs, secs / len(rs), statistics.mean(r["hands"] for r in rs)))
print(json.dumps({"deals": deals, "mean": statistics.mean(deals), "median": statistics.median(deals),
                  "seconds": secs}))
PY
echo "reports: $out"
