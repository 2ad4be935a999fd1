#!/usr/bin/env bash
# Process-level test of tests in the arena (`tarock compare` as an arena job,
# docs/compare.md): a tarock-referee, bot processes and a tarock-arena on free
# loopback ports.
#  - `tarock-arena-cli test run --wait`: search (fixed seed) against heuristic in
#    slovenian-4p with h0 0, h1 3 accepts H1 (exit 0), with progress lines on
#    standard error and the summary on standard output;
#  - the test over gRPC (test show/list) and JSON (/api/tests, /api/tests/ID?path=1:
#    the LLR path, the bots' Hello names and versions), its matches under
#    /api/matches?test=ID, kind "test", unrated;
#  - restart: a second test (heuristic against random, a fixed 120 deals) is
#    stopped with the arena (SIGTERM) mid-way while `test run --wait` waits; a new
#    arena on the same data resumes it and the waiting CLI gets the result. Its
#    per-deal differences equal those of the same test run without a restart
#    (deals are a function of the seed; no finished match ran again);
#  - test stop, and errors (unknown bot, bad hypotheses: exit 3).
# Usage: arena_compare_test.sh BUILD_DIR
set -uo pipefail
bin=$(cd "$1/bin" && pwd)
cli="$bin/tarock-arena-cli"
tmp=$(mktemp -d)
pids=()
arena_pid=""
cleanup() {
  [ -n "$arena_pid" ] && kill "$arena_pid" 2>/dev/null && wait "$arena_pid" 2>/dev/null
  for p in "${pids[@]}"; do kill_tree "$p"; wait "$p" 2>/dev/null; done
  rm -rf "$tmp"
}
trap cleanup EXIT
# shellcheck source=tests/testlib.sh
source "$(dirname "${BASH_SOURCE[0]}")/testlib.sh"

rp=$(free_port)
"$bin/tarock-referee" --listen "127.0.0.1:$rp" --metrics_listen= >/dev/null 2>&1 & pids+=($!)
declare -A port
for b in search heuristic random; do port[$b]=$(free_port); done
"$bin/tarock-bot-search" --seed 7 --listen "127.0.0.1:${port[search]}" >/dev/null 2>&1 & pids+=($!)
"$bin/tarock-bot-heuristic" --bot_version=h-2 --listen "127.0.0.1:${port[heuristic]}" >/dev/null 2>&1 & pids+=($!)
"$bin/tarock-bot-random" --seed 5 --listen "127.0.0.1:${port[random]}" >/dev/null 2>&1 & pids+=($!)
for p in "$rp" "${port[@]}"; do wait_port "$p" || bad "port $p never opened"; done

ap=$(free_port) hp=$(free_port)
start_arena() {
  "$bin/tarock-arena" --listen "127.0.0.1:$ap" --http_listen "127.0.0.1:$hp" --data_dir "$tmp/data" \
    --referees "127.0.0.1:$rp" --max_parallel 2 >>"$tmp/arena.log" 2>&1 &
  arena_pid=$!
  wait_port "$ap" && wait_port "$hp" || bad "the arena never listened: $(tail -5 "$tmp/arena.log")"
}
start_arena
A=(--arena "127.0.0.1:$ap")
for b in search heuristic random; do
  "$cli" "${A[@]}" bots add "$b" --endpoint "127.0.0.1:${port[$b]}" --variants slovenian-4p --owner t \
    >/dev/null || bad "bots add $b"
done
api() { /usr/bin/python3 -c "
import json, sys, urllib.request
d = json.load(urllib.request.urlopen('http://127.0.0.1:$hp' + sys.argv[1]))
$2
" "$1"; }

# 1. search against heuristic: H1, exit 0.
start=$(date +%s)
timeout 600 "$cli" "${A[@]}" test run --variant slovenian-4p --candidate search --baseline heuristic \
  --h0 0 --h1 3 --seed 1 --max_deals 3000 --wait > "$tmp/sh.out" 2> "$tmp/sh.err"
rc=$?
echo "arena test search vs heuristic: exit $rc in $(( $(date +%s) - start )) s"; cat "$tmp/sh.out"
[ $rc -eq 0 ] && ok || bad "search vs heuristic: exit $rc, want 0 (H1): $(cat "$tmp/sh.out" "$tmp/sh.err")"
grep -q "H1 accepted" "$tmp/sh.out" && ok || bad "summary lacks 'H1 accepted'"
grep -q "LLR" "$tmp/sh.err" && ok || bad "no progress lines on standard error"
api /api/tests/1?path=1 "
assert d['result'] == 'H1' and d['exit_status'] == 0 and d['status'] == 'done', d['result']
assert len(d['llr_path']) == len(d['differences']) == int(d['deals']), d['deals']
assert d['llr_path'][-1] >= d['upper_bound'] and all(x < d['upper_bound'] for x in d['llr_path'][:-1])
assert d['seatings'] == ['CBCB', 'BCBC'], d['seatings']
b = {x['role']: x for x in d['bots']}
assert b['candidate']['bot'] == 'search' and b['candidate']['hello_name'] == 'search', b
assert b['candidate']['hello_version'] != '', b  # the SDK's default version
assert b['baseline']['hello_name'] == 'heuristic' and b['baseline']['hello_version'] == 'h-2', b
" && ok || bad "/api/tests/1"
api "/api/matches?test=1&limit=1000" "
t = json.load(urllib.request.urlopen('http://127.0.0.1:$hp/api/tests/1'))
assert int(d['total']) == t['matches_total'] > 0, (d['total'], t['matches_total'])
assert all(m['kind'] == 'test' and int(m['test_id']) == 1 for m in d['matches'])
" && ok || bad "/api/matches?test=1"
api /api/bots/search "assert not d.get('ratings'), d" && ok || bad "a test's matches were rated"
"$cli" "${A[@]}" test list | grep -q "test 1 .*search vs heuristic .*H1" && ok || bad "test list: $("$cli" "${A[@]}" test list)"

# 2. Restart mid-test. The reference: heuristic against random, 120 deals.
run_fixed() {  # run_fixed SEED: a test that plays exactly 120 deals, waited for
  timeout 600 "$cli" "${A[@]}" test run --variant slovenian-4p --candidate heuristic --baseline random \
    --h0 0 --h1 3 --min_deals 120 --max_deals 120 --seed "$1" --wait --json
}
run_fixed 4 > "$tmp/ref.json" 2>/dev/null
ref_id=$(/usr/bin/python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['id'])" "$tmp/ref.json")
run_fixed 4 > "$tmp/resumed.json" 2> "$tmp/resumed.err" &
waiter=$!
id=$((ref_id + 1))
for _ in $(seq 300); do  # until a quarter of its 60 matches are done
  n=$("$cli" "${A[@]}" test show $id --json 2>/dev/null | /usr/bin/python3 -c \
      "import json,sys; print(json.load(sys.stdin).get('matches_done', 0))" 2>/dev/null)
  [ "${n:-0}" -ge 15 ] && break
  sleep 0.1
done
kill "$arena_pid"; wait "$arena_pid"
arena_pid=""
done_at_stop=$(/usr/bin/python3 -c "
import sqlite3, sys; db = sqlite3.connect(sys.argv[1])
print(db.execute(\"SELECT COUNT(*) FROM matches WHERE test_id = ? AND status = 'done'\", ($id,)).fetchone()[0])
print(db.execute('SELECT status FROM tests WHERE id = ?', ($id,)).fetchone()[0])" "$tmp/data/arena.db" | tr '\n' ' ')
echo "at the stop: $done_at_stop(done matches, test status)"
case "$done_at_stop" in *" running ") ok ;; *) bad "the test was not stopped mid-way: $done_at_stop" ;; esac
sleep 1
start_arena
wait $waiter; rc=$?
ref_rc=$(/usr/bin/python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['exit_status'])" "$tmp/ref.json")
echo "the reference test: exit $ref_rc; the resumed one: exit $rc"
[ $rc -eq "$ref_rc" ] && ok || bad "the waiting CLI: exit $rc, the reference $ref_rc: $(cat "$tmp/resumed.err")"
/usr/bin/python3 -c "
import json, sys, urllib.request
get = lambda i: json.load(urllib.request.urlopen('http://127.0.0.1:$hp/api/tests/%d?path=1' % i))
a, b = get($ref_id), get($id)
w = json.load(open(sys.argv[1]))
assert b['status'] == 'done' and w['result'] == b['result'] == a['result'], (a['result'], b['result'])
assert int(b['deals']) == 120 and b['differences'] == a['differences'], 'differences differ'
assert b['llr_path'] == a['llr_path']
assert b['matches_done'] == b['matches_total'] == 60, (b['matches_done'], b['matches_total'])
" "$tmp/resumed.json" && ok || bad "the resumed test differs from the uninterrupted one"

# 3. test stop; errors.
"$cli" "${A[@]}" test run --variant slovenian-4p --candidate heuristic --baseline random --h1 3 \
  --min_deals 100000 --max_deals 100000 > "$tmp/long.out" || bad "test run without --wait"
long=$(grep -o 'test [0-9]*' "$tmp/long.out" | cut -d' ' -f2)
sleep 1
"$cli" "${A[@]}" test stop "$long" | grep -q "stopped at" && ok || bad "test stop"
api "/api/tests/$long" "assert d['result'] == 'stopped' and d['status'] == 'done', d" && ok || bad "stopped test"
sleep 0.5
api "/api/status" "assert d['queue_depth'] == 0, d" && ok || bad "a stopped test left matches queued"
"$cli" "${A[@]}" test run --variant slovenian-4p --candidate nobody --baseline random --wait \
  >/dev/null 2>"$tmp/err"; rc=$?
[ $rc -eq 3 ] && grep -q "nobody" "$tmp/err" && ok || bad "unknown bot: exit $rc $(cat "$tmp/err")"
"$cli" "${A[@]}" test run --variant slovenian-4p --candidate heuristic --baseline random --h0 3 --h1 1 \
  --wait >/dev/null 2>"$tmp/err"; rc=$?
[ $rc -eq 3 ] && ok || bad "h1 < h0: exit $rc $(cat "$tmp/err")"
"$cli" help test | grep -q -- "--candidate" && ok || bad "help test"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
