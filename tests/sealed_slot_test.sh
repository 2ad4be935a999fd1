#!/usr/bin/env bash
# A sealed table keeps its slot (docs/security.md, "Secret deals"; red team of
# 2026-11-29), process level on loopback: an arena with --max_parallel 2 runs a
# duplicate ladder of bridge sets (two tables a set) between six bots that hold
# the first decision of every match until the test opens its gate. One table
# ends while its twin is held: nothing public moves (no 'started' on the live
# feed, Status' and /metrics' running and queue counts, no set made); the twin
# ends: both 'finished', then the next set starts. Then the arena restarts
# while one table of the next set has ended and its twin is held: after the
# restart the two look alike and nothing else starts until the twin ends.
# Nothing started here outlives the test.
# Usage: sealed_slot_test.sh SOURCE_DIR BUILD_DIR
set -u
src=$(cd "$1" && pwd)
build=$(cd "$2" && pwd)
bin=$build/bin
# shellcheck source=tests/testlib.sh
source "$src/tests/testlib.sh"
setup_scratch
trap 'touch "$tmp/gates/all" 2>/dev/null; cleanup_scratch' EXIT
mkdir -p "$tmp/gates"

start_referee || bad "referee never opened"
hp=$(free_port)
# arena: the pid of the arena started last (it restarts on its database below).
arena_up() {
  start_arena --http_listen "127.0.0.1:$hp" --max_parallel 2 || bad "arena never opened: $(cat "$tmp/arena.log")"
  arena=${pids[-1]}
  wait_port "$hp" || bad "arena web never opened"
}
arena_up
cli() { timeout 30 "$bin/tarock-arena-cli" --arena "127.0.0.1:$ap" "$@"; }

for i in 1 2 3 4 5 6; do
  port=$(free_port)
  GATE_DIR=$tmp/gates PYTHONPATH=$build/python \
    /usr/bin/python3 -m tarock_bot serve "$src/tests/sealed_slot/gate_bot.py" --listen "127.0.0.1:$port" \
    >"$tmp/g$i.log" 2>&1 & pids+=($!)
  wait_port "$port" || bad "bot g$i never opened: $(cat "$tmp/g$i.log")"
  cli bots add "g$i" --endpoint "127.0.0.1:$port" --variants slovenian-3p --owner "o$i" >/dev/null ||
    bad "bots add g$i"
done
cli ladder start --variant=slovenian-3p --format=duplicate --hands=3 --per_decision_ms=60000 >/dev/null ||
  bad "ladder start"

export TAROCK_TEST_TMP=$tmp TAROCK_HTTP=127.0.0.1:$hp
check() { timeout 200 /usr/bin/python3 "$src/tests/sealed_slot/check.py" "$@"; }
if check slot; then ok; else
  bad "a sealed table's end showed (see above)"
  echo "--- arena log"; tail -20 "$tmp/arena.log"
fi
# An arena restart (second red team of 2026-11-29): one table of the next set
# ends, the arena restarts on its database; the ended table and its twin look
# alike and nothing else starts until the twin ends.
if check end_one; then
  kill -TERM "$arena"
  for _ in $(seq 100); do kill -0 "$arena" 2>/dev/null || break; sleep 0.1; done
  kill_tree "$arena"; wait "$arena" 2>/dev/null
  arena_up
  if check after_restart; then ok; else
    bad "a restart told which sealed table had ended (see above)"
    echo "--- arena log"; tail -20 "$tmp/arena.log"
  fi
else
  bad "no table ended before the restart (see above)"
fi
echo "$pass passed, $fail failed"
exit "$fail"
