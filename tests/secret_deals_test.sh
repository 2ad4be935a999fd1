#!/usr/bin/env bash
# Secret deals and the relay's gate (issue 28, docs/security.md "Secret deals"),
# process level on loopback. A spy bot writes down every message its seat gets
# in a ladder, a duplicate tournament and beside a person's play match; the
# test then checks that nothing it got, and nothing the public API served
# while a deal was still being played at some table, names the seed, the salt,
# a record or a card the seat may not see; that a finished deal's published
# seed reproduces it and opens the commitment served from the start; and that
# a stranger's stream for a person's relayed seat is refused while the seat
# plays on. Nothing started here outlives the test.
# Usage: secret_deals_test.sh SOURCE_DIR BUILD_DIR
set -u
src=$(cd "$1" && pwd)
build=$(cd "$2" && pwd)
bin=$build/bin
# shellcheck source=tests/testlib.sh
source "$src/tests/testlib.sh"
setup_scratch

start_referee || bad "referee never opened"
hp=$(free_port)
# One match at a time, so the tables of the tournament's duplicate set run one
# after another and the test can look between them.
start_arena --http_listen "127.0.0.1:$hp" --max_parallel 1 || bad "arena never opened: $(cat "$tmp/arena.log")"
arena_pid=${pids[-1]}
wait_port "$hp" || bad "arena web never opened"
cli() { timeout 30 "$bin/tarock-arena-cli" --arena "127.0.0.1:$ap" "$@"; }

for b in r1 r2 r3; do
  port=$(free_port)
  "$bin/tarock-bot-random" --listen "127.0.0.1:$port" >"$tmp/$b.log" 2>&1 & pids+=($!)
  wait_port "$port" || bad "bot $b never opened"
  cli bots add "$b" --endpoint "127.0.0.1:$port" --variants slovenian-4p --owner test >/dev/null ||
    bad "bots add $b"
done
sp=$(free_port)
SPY_LOG=$tmp/spy.jsonl SPY_GATE=$tmp/gate PYTHONPATH=$build/python \
  /usr/bin/python3 -m tarock_bot serve "$src/tests/secret_deals/spy_bot.py" --listen "127.0.0.1:$sp" \
  >"$tmp/spy.log" 2>&1 & pids+=($!)
wait_port "$sp" || bad "spy never opened: $(cat "$tmp/spy.log")"
cli bots add spy --endpoint "127.0.0.1:$sp" --variants slovenian-4p --owner test >/dev/null || bad "bots add spy"

export TAROCK_SRC=$src TAROCK_TEST_TMP=$tmp TAROCK_BIN=$bin TAROCK_HTTP=127.0.0.1:$hp TAROCK_GRPC=127.0.0.1:$ap
if timeout 240 /usr/bin/python3 "$src/tests/secret_deals/check.py" "$build/python"; then ok; else
  bad "secret deals (see above)"
  echo "--- arena log"; tail -20 "$tmp/arena.log"
fi
# The ratings rebuilt from the stored results after a restart are the live
# ones, with every duplicate table rated where its deal became public.
kill_tree "$arena_pid"; wait "$arena_pid" 2>/dev/null
if out=$(timeout 60 "$bin/tarock-arena" --data_dir "$tmp/arena" --verify_ratings 2>&1); then ok; else
  bad "the ratings rebuilt from the results differ from the live ones: $out"
fi
echo "$pass passed, $fail failed"
exit "$fail"
