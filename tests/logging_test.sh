#!/usr/bin/env bash
# Process-level test of the event log (docs/logging.md): a tarock-referee and a
# tarock-arena with --log_format=json, an admin token, registered bots (one of
# them faulting), a dead second referee (so matches are retried), a tournament
# run through the CLI and the JSON API called with the tokens in headers.
# Checks: every line of both logs is a JSON object with ts/level/component/msg;
# the events named in issue 16 are there with their ids; no token appears
# anywhere in either log. Nothing started here outlives the test.
# Usage: logging_test.sh BUILD_DIR
set -uo pipefail
bin=$(cd "$1/bin" && pwd)
tmp=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill_tree "$p"; wait "$p" 2>/dev/null; done; rm -rf "$tmp"; }
trap cleanup EXIT
# shellcheck source=tests/testlib.sh
source "$(dirname "${BASH_SOURCE[0]}")/testlib.sh"
free_port() { /usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_port() { for _ in $(seq 150); do (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0; sleep 0.1; done; return 1; }

admin="ADMIN-s3cret-$RANDOM$RANDOM"
rp=$(free_port); dead=$(free_port); ap=$(free_port); hp=$(free_port)
"$bin/tarock-referee" --listen "127.0.0.1:$rp" --metrics_listen= --log_format=json \
  > "$tmp/referee.out" 2> "$tmp/referee.log" & pids+=($!)
declare -A port
for b in r1 r2 r3; do
  port[$b]=$(free_port)
  "$bin/tarock-bot-random" --listen "127.0.0.1:${port[$b]}" > /dev/null 2>&1 & pids+=($!)
done
port[bad]=$(free_port)
"$bin/faulty_bot" --mode illegal --listen "127.0.0.1:${port[bad]}" > /dev/null 2>&1 & pids+=($!)
# The dead referee comes first in the list: the first match goes there, fails
# over and is retried on the live one.
"$bin/tarock-arena" --listen "127.0.0.1:$ap" --http_listen "127.0.0.1:$hp" --data_dir "$tmp/data" \
  --referees "127.0.0.1:$dead,127.0.0.1:$rp" --max_parallel 1 --admin_token "$admin" \
  --log_format=json > "$tmp/arena.out" 2> "$tmp/arena.log" & pids+=($!)
for p in "$rp" "$ap" "$hp" "${port[@]}"; do wait_port "$p" || bad "port $p never opened"; done

cli=("$bin/tarock-arena-cli" --arena "127.0.0.1:$ap")
tokens=()
for b in r1 r2 r3 bad; do
  out=$("${cli[@]}" bots add "$b" --endpoint "127.0.0.1:${port[$b]}" --variants slovenian-4p --owner "o-$b")
  t=$(echo "$out" | sed -n 's/^token //p')
  [ -n "$t" ] && ok || bad "no token for $b: $out"
  tokens+=("$t")
done
"${cli[@]}" bots update r1 --token "${tokens[0]}" --endpoint "127.0.0.1:${port[r1]}" > /dev/null \
  && ok || bad "bots update with the token"
timeout 120 "${cli[@]}" tournament run --variant slovenian-4p --bots r1,r2,r3,bad --deals 1 --hands 4 \
  --no_duplicate --admin_token "$admin" --wait > "$tmp/tournament.out" 2>&1 \
  && ok || bad "tournament run: $(cat "$tmp/tournament.out")"
for path in /api/bots /api/matches /api/tournaments; do
  curl -s -o /dev/null -H "Authorization: Bearer ${tokens[1]}" -H "X-Admin-Token: $admin" \
    "http://127.0.0.1:$hp$path" && ok || bad "GET $path"
done
sleep 0.5
for p in "${pids[@]}"; do kill_tree "$p"; wait "$p" 2>/dev/null; done
pids=()

# No secret in any log or output of the servers.
for secret in "$admin" "${tokens[@]}"; do
  grep -rqF -- "$secret" "$tmp/arena.log" "$tmp/referee.log" "$tmp/arena.out" "$tmp/referee.out" \
    && bad "a secret is in the logs: $(grep -rlF -- "$secret" "$tmp"/*.log "$tmp"/*.out)" || ok
done

# Every line parses; the events carry their ids.
/usr/bin/python3 - "$tmp/arena.log" "$tmp/referee.log" "127.0.0.1:$dead" <<'PY' && ok || bad "json log check"
import json, re, sys
def load(path):
    events = []
    for n, line in enumerate(open(path), 1):
        e = json.loads(line)  # raises on any line that is not JSON
        assert isinstance(e, dict), (path, n, line)
        assert list(e)[:4] == ["ts", "level", "component", "msg"], (path, n, line)
        assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", e["ts"]), e
        assert e["level"] in ("debug", "info", "warning", "error"), e
        events.append(e)
    return events
arena, referee = load(sys.argv[1]), load(sys.argv[2])
def find(events, msg, **kv):
    return [e for e in events if e["msg"].startswith(msg) and all(e.get(k) == v for k, v in kv.items())]
started = find(arena, "match started", component="scheduler", kind="tournament")
finished = find(arena, "match finished", component="scheduler")
assert started and finished, arena
assert all(e["tournament"] > 0 and e["match"] and e["variant"] == "slovenian-4p" for e in started), started
assert all(len(e["bots"].split(",")) == 4 for e in started), started
retried = find(arena, "referee failed", level="warning")
assert retried and retried[0]["referee"] == sys.argv[3] and retried[0]["attempt"] == 1, retried
assert any(e["match"] == retried[0]["match"] for e in finished), (retried, finished)
assert find(arena, "bot faulted", bot="bad"), arena
assert find(referee, "match started", component="referee"), referee
assert find(referee, "match finished", component="referee"), referee
faults = find(referee, "fault", level="warning", bot="bad", kind="illegal_action")
assert faults and all("seat" in f and f["match"] for f in faults), referee
PY

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
