#!/usr/bin/env bash
# A match tried again is dealt again (docs/security.md, "Secret deals"), with
# real processes on loopback. A spy bot at a ladder match (a deal of its own)
# writes down its cards and holds its first decision; the referee running the
# match is SIGKILLed meanwhile. The arena runs the match again on the other
# referee, and the test checks that the spy was dealt other cards the second
# time, that the commitment served during the first attempt was replaced, and
# that the published seed opens the new commitment and is the deal the record
# (and the spy) played. Nothing started here outlives the test.
# Usage: redeal_test.sh SOURCE_DIR BUILD_DIR
set -u
src=$(cd "$1" && pwd)
build=$(cd "$2" && pwd)
bin=$build/bin
# shellcheck source=tests/testlib.sh
source "$src/tests/testlib.sh"
setup_scratch

r1=$(free_port); r2=$(free_port)
"$bin/tarock-referee" --listen "127.0.0.1:$r1" --metrics_listen= >"$tmp/r1.log" 2>&1 & pids+=($!)
r1_pid=$!
"$bin/tarock-referee" --listen "127.0.0.1:$r2" --metrics_listen= >"$tmp/r2.log" 2>&1 & pids+=($!)
r2_pid=$!
wait_port "$r1" && wait_port "$r2" || bad "a referee never opened"
ap=$(free_port); hp=$(free_port)
"$bin/tarock-arena" --referees "127.0.0.1:$r1,127.0.0.1:$r2" --data_dir "$tmp/arena" \
  --listen "127.0.0.1:$ap" --http_listen "127.0.0.1:$hp" --max_parallel 1 >"$tmp/arena.log" 2>&1 & pids+=($!)
wait_port "$ap" && wait_port "$hp" || { bad "the arena never listened"; tail "$tmp/arena.log"; exit 1; }
cli=("$bin/tarock-arena-cli" --arena "127.0.0.1:$ap")
for b in r1 r2 r3; do
  p=$(free_port)
  "$bin/tarock-bot-random" --listen "127.0.0.1:$p" >/dev/null 2>&1 & pids+=($!)
  wait_port "$p" || bad "bot $b never opened"
  "${cli[@]}" bots add "$b" --endpoint "127.0.0.1:$p" --variants slovenian-4p --owner test >/dev/null ||
    bad "bots add $b"
done
sp=$(free_port)
SPY_LOG=$tmp/spy.jsonl SPY_GATE=$tmp/gate SPY_HOLD_FIRST=1 PYTHONPATH=$build/python \
  /usr/bin/python3 -m tarock_bot serve "$src/tests/secret_deals/spy_bot.py" --listen "127.0.0.1:$sp" \
  >"$tmp/spy.log" 2>&1 & pids+=($!)
wait_port "$sp" || bad "spy never opened: $(cat "$tmp/spy.log")"
"${cli[@]}" bots add spy --endpoint "127.0.0.1:$sp" --variants slovenian-4p --owner test >/dev/null ||
  bad "bots add spy"
"${cli[@]}" ladder start --variant slovenian-4p --format match --max_matches 1 --hands 4 >/dev/null ||
  bad "ladder start"

api() { curl -sf --max-time 10 "http://127.0.0.1:$hp$1"; }
# The first attempt: the spy holds its first decision.
for _ in $(seq 300); do grep -q '"decision"' "$tmp/spy.jsonl" 2>/dev/null && break; sleep 0.1; done
grep -q '"decision"' "$tmp/spy.jsonl" 2>/dev/null || { bad "the spy was never asked"; exit 1; }
first_commitment=$(api /api/matches/L1-1 | /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["seed_commitment"])')
[ ${#first_commitment} -eq 64 ] && ok || bad "no commitment served during the first attempt: $first_commitment"
referee=$(sed -n 's/.*"match started".*match=L1-1 .*referee=127.0.0.1:\([0-9]*\) .*/\1/p' "$tmp/arena.log" | head -1)
case "$referee" in
  "$r1") kill -9 "$r1_pid" ;;
  "$r2") kill -9 "$r2_pid" ;;
  *) bad "cannot tell which referee runs the match: '$referee'"; tail "$tmp/arena.log"; exit 1 ;;
esac
touch "$tmp/gate"  # the held decision returns (its stream is gone)

for _ in $(seq 600); do
  [ "$(api /api/matches/L1-1 | /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin).get("status"))' 2>/dev/null)" = done ] && break
  sleep 0.1
done
grep -q '"match dealt afresh for its next attempt".*match=L1-1' "$tmp/arena.log" && ok ||
  bad "the arena did not deal the match afresh: $(grep L1-1 "$tmp/arena.log" | tail -5)"
if api /api/matches/L1-1 >"$tmp/match.json" &&
   /usr/bin/python3 - "$tmp/spy.jsonl" "$tmp/match.json" "$first_commitment" <<'PY'; then ok; else bad "the retried match (see above)"; fi
import hashlib, json, sys
spy = [json.loads(l) for l in open(sys.argv[1])]
m = json.load(open(sys.argv[2]))
first = sys.argv[3]
fail = 0
def check(cond, what):
    global fail
    if not cond:
        print("FAIL:", what); fail = 1
check(m.get("status") == "done" and m.get("deal_public") is True, f"not done and public: {m.get('status')}")
hands = [e for e in spy if e["kind"] == "hand_start" and e["match"] == "L1-1" and e["hand_index"] == 0]
starts = [e for e in spy if e["kind"] == "match_start" and e["match"] == "L1-1"]
check(len(hands) == 2 and len(starts) == 2, f"the spy saw {len(starts)} starts and {len(hands)} first hands, not 2")
if len(hands) == 2:
    check(sorted(hands[0]["cards"]) != sorted(hands[1]["cards"]), "the second attempt dealt the spy the same cards")
check(m["seed_commitment"] != first, "the commitment of the first attempt's deal was kept")
seed = int(m["seed"])
check(hashlib.sha256(f"tarock-seed:v1:{seed}:{m['seed_salt']}".encode()).hexdigest() == m["seed_commitment"],
      "the published seed and salt do not open the commitment")
record = m["record"]
check(record["seed"] == seed, "the record names another seed")
if len(hands) == 2 and starts:
    seat = starts[-1]["seat"]
    played = record["deals"][0]["hands"][seat]
    check(sorted(played) == sorted(hands[1]["cards"]),
          f"the record's hand for the spy {sorted(played)} is not the one it was dealt {sorted(hands[1]['cards'])}")
sys.exit(fail)
PY
echo "$pass passed, $fail failed"
exit "$fail"
