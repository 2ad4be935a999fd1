#!/usr/bin/env bash
# A bot host's account of a seat (Hosting.ReportSeatLog: the seat's standard
# error and the decisions its bot was slow on, which can void a match) is
# taken only from the host the arena gave the seat to, once (issue 44's
# follow-up), real processes on loopback: a referee, an arena, a bot host
# (host1) playing a hosted awk bot in a ladder with three reference bots, and
# a second registered host (host2) whose token an attacker holds. Checks:
#  - host1's own token cannot report again on a seat it played (its real
#    report is stored first): ALREADY_EXISTS, the stored log unchanged;
#  - host1 killed, its lease out, host2 takes the bot with a HostSync and
#    reports on host1's seat: PERMISSION_DENIED, the stored log unchanged.
# Needs root (the sandbox makes cgroups) and bwrap: skipped (exit 77) without.
# Usage: seat_reports_test.sh SOURCE_DIR BUILD_DIR
set -uo pipefail
src=$(cd "$1" && pwd)
build=$(cd "$2" && pwd)
bin=$build/bin
# shellcheck source=tests/testlib.sh
source "$src/tests/testlib.sh"
setup_scratch

skip_without_sandbox

start_referee || bad "referee never listened"
start_arena --http_listen= --host_lease_s 2 --host_stale_s 1 || bad "arena never listened"
$cli hosts add host1 >"$tmp/host.txt" || bad "hosts add host1"
$cli hosts add host2 >"$tmp/host2.txt" || bad "hosts add host2"
$cli bots add awkb --hosted --variants slovenian-4p --owner me >"$tmp/awkb.txt" || bad "bots add"
mkdir -p "$tmp/host"
TAROCK_HOST_TOKEN=$(token_of host) "$bin/tarock-bothost" --arena "127.0.0.1:$ap" --name host1 \
  --work_dir "$tmp/host" --check_timeout_s 15 >>"$tmp/host.log" 2>&1 &
host_pid=$!
$cli bots upload awkb --token "$(token_of awkb)" "$src/sdk/templates/stdio/my_bot.awk" >/dev/null || bad "upload"
online() { $cli bots list | grep -q "^awkb  hosted (online"; }
for _ in $(seq 300); do online && break; sleep 0.1; done
online && ok || bad "the hosted bot never came online"
for b in rnd1 rnd2 rnd3; do
  "$bin/tarock-bot-random" --listen 127.0.0.1:0 >"$tmp/$b.log" 2>&1 & pids+=($!)
done
for b in rnd1 rnd2 rnd3; do
  for _ in $(seq 100); do grep -q listening "$tmp/$b.log" && break; sleep 0.1; done
  $cli bots add "$b" --endpoint "$(awk '{print $4}' "$tmp/$b.log")" --variants slovenian-4p --owner ref >/dev/null ||
    bad "bots add $b"
done
# One short match.
$cli ladder start --variant slovenian-4p --format match --max_matches 1 --hands 4 >/dev/null || bad "ladder start"

PYTHONPATH=$build/python timeout 120 /usr/bin/python3 - "127.0.0.1:$ap" "$(token_of host)" "$(token_of host2)" \
  "$(token_of awkb)" "$host_pid" >"$tmp/attack.txt" 2>&1 <<'EOF'
import os, signal, sys, time, grpc
from tarock_bot._generated import hosting_pb2 as h, arena_pb2 as a
addr, mine, other, bot_token, host_pid = sys.argv[1:]
ch = grpc.insecure_channel(addr)
def call(service, name, req, resp, token=None, timeout=10):
    md = [("authorization", "Bearer " + token)] if token else []
    return ch.unary_unary(f"/tarock.v1.{service}/{name}", request_serializer=req.SerializeToString,
                          response_deserializer=resp.FromString)(req, metadata=md, timeout=timeout)
def report(token, match, seat):
    req = h.ReportSeatLogRequest(bot="awkb", match_id=match, seat=seat, log=b"FORGED",
                                 decisions_reported=True, slow=[h.DecisionPlace(hand_index=0, action_index=0)])
    try:
        call("Hosting", "ReportSeatLog", req, h.ReportSeatLogResponse, token)
        return "OK"
    except grpc.RpcError as e:
        return e.code().name
def seat_log(match):
    try:
        return call("Hosting", "GetSeatLog", h.GetSeatLogRequest(match_id=match, bot="awkb", token=bot_token),
                    h.SeatLog).log
    except grpc.RpcError as e:
        return e.code().name
# The ladder's match, done, with host1's real report stored.
deadline = time.time() + 60
match = seat = None
while time.time() < deadline and match is None:
    done = call("Arena", "ListMatches", a.ListMatchesRequest(bot="awkb", status="done"), a.ListMatchesResponse)
    for m in done.matches:
        match, seat = m.id, next(s.seat for s in m.seats if s.bot == "awkb")
    time.sleep(0.2)
print("match", match, "seat", seat)
stored = None
while time.time() < deadline and not isinstance(stored, bytes):
    stored = seat_log(match)
    time.sleep(0.2)
print("stored", "FORGED" in str(stored), isinstance(stored, bytes))
print("again by host1:", report(mine, match, seat))
print("after again:", "FORGED" in str(seat_log(match)))
# host1 dies; host2 takes the bot once host1's lease is out and reports on host1's seat.
os.kill(int(host_pid), signal.SIGKILL)
held = []
deadline = time.time() + 30
while time.time() < deadline and "awkb" not in held:
    time.sleep(0.5)
    held = [b.bot for b in call("Hosting", "HostSync", h.HostSyncRequest(host="host2"), h.HostSyncResponse, other).bots]
print("host2 holds", held)
print("by host2:", report(other, match, seat))
print("after host2:", "FORGED" in str(seat_log(match)))
EOF
cat "$tmp/attack.txt"
grep -q "^stored False True" "$tmp/attack.txt" && ok || bad "host1's real report of its seat was not stored"
grep -q "^again by host1: ALREADY_EXISTS" "$tmp/attack.txt" && ok || bad "a second report of a seat was taken"
grep -q "^after again: False" "$tmp/attack.txt" && ok || bad "a second report replaced the first"
grep -q "^host2 holds \['awkb'\]" "$tmp/attack.txt" && ok || bad "host2 never took the bot over"
grep -q "^by host2: PERMISSION_DENIED" "$tmp/attack.txt" && ok || bad "host2 reported on host1's seat"
grep -q "^after host2: False" "$tmp/attack.txt" && ok || bad "host2's report replaced host1's"
echo "$pass passed, $fail failed"
exit "$fail"
