#!/usr/bin/env bash
# Process-level tests of `tarock compare` (referee/tools/compare): the
# sequential test on duplicate deals between real bot processes.
#  - search against heuristic in slovenian-4p with h0 0, h1 3 accepts H1 (exit 0):
#    the full-size test (docs/benchmarks.md measures +3.25 per deal; it takes about
#    80-200 deals, 10-40 s here). The search bot runs with a fixed --seed, so the
#    run is reproducible;
#  - heuristic against itself never accepts H1 (exit 1 or 2);
#  - the report: parameters, per-deal differences, the LLR path, the bots' Hello
#    names; the decision and the differences do not depend on --concurrency, nor
#    on the referee being in process or a tarock-referee process (with a dead
#    referee first in --referee: its matches go to the next);
#  - the opponents design; errors (exit 3): an unreachable bot, a bad SPEC, bad
#    hypotheses, a bot that crashes, faults above --max_faults.
# Usage: compare_test.sh BUILD_DIR
set -uo pipefail
bin=$(cd "$1/bin" && pwd)
tarock="$bin/tarock"
tmp=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill_tree "$p"; wait "$p" 2>/dev/null; done; rm -rf "$tmp"; }
trap cleanup EXIT
# shellcheck source=tests/testlib.sh
source "$(dirname "${BASH_SOURCE[0]}")/testlib.sh"

# Bots with fixed seeds (a SPEC is an executable started with --listen ...).
printf '#!/bin/sh\nexec "%s" --seed 7 "$@"\n' "$bin/tarock-bot-search" > "$tmp/search"
printf '#!/bin/sh\nexec "%s" --seed 5 "$@"\n' "$bin/tarock-bot-random" > "$tmp/random"
printf '#!/bin/sh\nexec "%s" --mode crash --after 20 "$@"\n' "$bin/faulty_bot" > "$tmp/crasher"
printf '#!/bin/sh\nexec "%s" --mode illegal --after 5 --every 3 "$@"\n' "$bin/faulty_bot" > "$tmp/illegal"
chmod +x "$tmp/search" "$tmp/random" "$tmp/crasher" "$tmp/illegal"
heuristic="$bin/tarock-bot-heuristic"

check_report() {  # check_report FILE PYTHON-ASSERTIONS (d = the report)
  /usr/bin/python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
r = d['result']
assert len(d['differences']) == r['deals'] == len(d['llr_path']), r
$2
" "$1"
}

# 1. search against heuristic: H1 (exit 0).
start=$(date +%s)
timeout 600 "$tarock" compare --variant slovenian-4p --candidate "$tmp/search" --baseline "$heuristic" \
  --h0 0 --h1 3 --seed 1 --concurrency 2 --max_deals 3000 --report "$tmp/sh.json" \
  > "$tmp/sh.out" 2> "$tmp/sh.err"
rc=$?
echo "search vs heuristic: exit $rc in $(( $(date +%s) - start )) s"; cat "$tmp/sh.out"
[ $rc -eq 0 ] && ok || bad "search vs heuristic: exit $rc, want 0 (H1): $(cat "$tmp/sh.out" "$tmp/sh.err")"
grep -q "H1 accepted" "$tmp/sh.out" && ok || bad "summary lacks 'H1 accepted'"
grep -q "LLR" "$tmp/sh.err" && ok || bad "no progress on standard error"
check_report "$tmp/sh.json" "
assert r['decision'] == 'H1' and r['exit_status'] == 0, r
assert d['llr_path'][-1] >= d['sprt']['upper_bound'], d['llr_path'][-1]
assert all(x < d['sprt']['upper_bound'] for x in d['llr_path'][:-1])
assert d['sprt']['h0'] == 0 and d['sprt']['h1'] == 3 and d['variant'] == 'slovenian-4p'
assert d['seatings'] == ['CBCB', 'BCBC'], d['seatings']
names = {b['role']: b['hello_name'] for b in d['bots']}
assert names == {'candidate': 'search', 'baseline': 'heuristic'}, names
assert all(b['hello_version'] for b in d['bots']), d['bots']  # the SDK's default version
assert all(b['faults'] == 0 for b in d['bots'])
" && ok || bad "search vs heuristic report"

# 2. heuristic against itself: never H1.
timeout 300 "$tarock" compare --variant slovenian-4p --candidate "$heuristic" --baseline "$heuristic" \
  --h0 0 --h1 3 --seed 2 --concurrency 2 --max_deals 400 --quiet --report "$tmp/hh.json" > "$tmp/hh.out" 2>&1
rc=$?
{ [ $rc -eq 1 ] || [ $rc -eq 2 ]; } && ok || bad "heuristic vs itself: exit $rc, want 1 or 2: $(cat "$tmp/hh.out")"
check_report "$tmp/hh.json" "assert r['decision'] in ('H0', 'inconclusive'), r" && ok || bad "hh report"
# ... in 3 seats too, and with the 5-player dealer sitting out.
for v in slovenian-3p slovenian-5p; do
  timeout 300 "$tarock" compare --variant $v --candidate "$heuristic" --baseline "$heuristic" \
    --h0 0 --h1 3 --seed 3 --max_deals 200 --quiet > "$tmp/hh.out" 2>&1
  rc=$?
  { [ $rc -eq 1 ] || [ $rc -eq 2 ]; } && ok || bad "$v heuristic vs itself: exit $rc: $(cat "$tmp/hh.out")"
done

# 3. Deterministic for a seed: concurrency 1 and 3, and a tarock-referee process.
rp=$(free_port)
"$bin/tarock-referee" --listen "127.0.0.1:$rp" --metrics_listen= >/dev/null 2>&1 & pids+=($!)
wait_port "$rp" || bad "referee port never opened"
for run in "c1:--concurrency 1" "c3:--concurrency 3" "remote:--concurrency 2 --referee 127.0.0.1:1,127.0.0.1:$rp"; do
  name=${run%%:*}
  # shellcheck disable=SC2086
  timeout 300 "$tarock" compare --variant slovenian-4p --candidate "$heuristic" --baseline "$tmp/random" \
    --h0 0 --h1 200 --seed 9 --max_deals 40 --quiet ${run#*:} --report "$tmp/$name.json" > "$tmp/$name.out" 2>&1
  echo "$name: exit $?"
done
/usr/bin/python3 -c "
import json, sys
a, b, c = (json.load(open(f)) for f in sys.argv[1:])
assert a['differences'] == b['differences'] == c['differences'], 'differences differ'
assert a['llr_path'] == b['llr_path'] == c['llr_path']
assert a['result']['decision'] == b['result']['decision'] == c['result']['decision']
assert len(a['differences']) > 4
" "$tmp/c1.json" "$tmp/c3.json" "$tmp/remote.json" && ok || bad "not deterministic: $(cat "$tmp"/c1.out "$tmp"/c3.out "$tmp"/remote.out)"

# 4. Against fixed opponents: the candidate and then the baseline in every seat.
timeout 300 "$tarock" compare --variant slovenian-3p --candidate "$heuristic" --baseline "$tmp/random" \
  --opponents "$heuristic" --h0 0 --h1 50 --seed 4 --max_deals 600 --quiet --report "$tmp/op.json" > "$tmp/op.out" 2>&1
rc=$?
[ $rc -eq 0 ] && ok || bad "opponents: exit $rc, want 0: $(cat "$tmp/op.out")"
check_report "$tmp/op.json" "
assert d['design'] == 'opponents', d['design']
assert d['seatings'] == ['C00', 'B00', '0C0', '0B0', '00C', '00B'], d['seatings']
assert [b['role'] for b in d['bots']] == ['candidate', 'baseline', 'opponent-0']
" && ok || bad "opponents report"

# 5. Errors: exit 3 with one line on standard error.
expect_exit3() {  # expect_exit3 NAME FRAGMENT ARGS...
  local name=$1 fragment=$2; shift 2
  local out rc
  out=$(timeout 120 "$tarock" compare --variant slovenian-4p --quiet "$@" 2>&1 >/dev/null); rc=$?
  [ $rc -eq 3 ] || { bad "$name: exit $rc, want 3: $out"; return; }
  case "$out" in *"$fragment"*) ok ;; *) bad "$name: '$out' lacks '$fragment'" ;; esac
}
expect_exit3 unreachable "baseline" --candidate "$heuristic" --baseline 127.0.0.1:1 --connect_timeout_ms 2000
expect_exit3 bad-spec "no/such/bot" --candidate "$heuristic" --baseline "$tmp/no/such/bot"
expect_exit3 hypotheses "--h1 must be greater" --candidate "$heuristic" --baseline "$heuristic" --h0 3 --h1 1
expect_exit3 no-baseline "--baseline" --candidate "$heuristic"
expect_exit3 crash "has exited" --candidate "$tmp/crasher" --baseline "$heuristic" --h1 1000 --max_deals 400
expect_exit3 max-faults "more than --max_faults 4" --candidate "$tmp/illegal" --baseline "$heuristic" \
  --h1 1000 --max_deals 400 --max_faults 4
pgrep -f "$tmp/" >/dev/null && bad "bots left running" || ok

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
