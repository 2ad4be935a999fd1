#!/usr/bin/env bash
# What a stranger cannot do at the doors that need no token (issue 44, the
# review of 2026-11-29), process level on loopback:
#  - grpc.health.v1.Health on the arena is under the per-address rate limit of
#    every other unauthenticated call (a burst of Check calls is refused with
#    RESOURCE_EXHAUSTED and a retry-after trailer, as Arena/ListBots is);
#  - Health/Watch streams are bounded: at most 4 open per client network (the
#    fifth refused, a slot free again once one ends), and each ends after the
#    connection idle time (--max_connection_idle_ms, 1.5 s here), after which
#    the connection is closed as idle: a stranger's Watch keeps no connection
#    open (the arena and the referee alike);
#  - bot endpoints in special-purpose ranges that are not globally reachable
#    (IANA's registries: site-local, documentation, benchmarking, discard,
#    6to4 relays, SRv6, ...) are refused with the range named, nothing stored.
# The loopback exemption from the rate limits is off where the limits are
# tested (--rate_limit_exempt=), so loopback counts as a stranger. Every wait
# is bounded; nothing started here outlives the test.
# Usage: stranger_doors_test.sh SOURCE_DIR BUILD_DIR
set -uo pipefail
src=$(cd "$1" && pwd)
build=$(cd "$2" && pwd)
bin=$build/bin
# shellcheck source=tests/testlib.sh
source "$src/tests/testlib.sh"
setup_scratch

start_referee || { echo "the referee never listened"; exit 1; }
# A: loopback exempt from the rate limits as by default, idle close at 1.5 s.
start_arena --http_listen= --max_connection_idle_ms=1500 || { cat "$tmp/arena.log"; exit 1; }
ap_idle=$ap
cli_idle=$cli
# B: loopback counts as a stranger; the default idle close (120 s).
ap_limited=$(free_port)
"$bin/tarock-arena" --data_dir "$tmp/arena-limited" --listen "127.0.0.1:$ap_limited" \
  --referees "127.0.0.1:$rp" --http_listen= --rate_limit_exempt= >"$tmp/arena-limited.log" 2>&1 &
pids+=($!)
for _ in $(seq 100); do grep -qs "arena listening" "$tmp/arena-limited.log" && break; sleep 0.1; done
grep -q "arena listening" "$tmp/arena-limited.log" || { cat "$tmp/arena-limited.log"; exit 1; }
# A referee with an idle close of 1.5 s.
rp_idle=$(free_port)
"$bin/tarock-referee" --listen "127.0.0.1:$rp_idle" --metrics_listen= --max_connection_idle_ms=1500 \
  >"$tmp/referee-idle.log" 2>&1 & pids+=($!)
wait_port "$rp_idle" || bad "the second referee never listened"

cat >"$tmp/health.py" <<'PY'
"""health.py HEALTH_PB2 COMMAND ADDRESS: one stranger's health calls; prints
what it saw, one fact a line, and exits 0 (the shell test judges)."""
import importlib.util, sys, threading, time
import grpc
spec = importlib.util.spec_from_file_location("health_pb2", sys.argv[1])
pb = importlib.util.module_from_spec(spec)
spec.loader.exec_module(pb)
command, address = sys.argv[2], sys.argv[3]
channel = grpc.insecure_channel(address)
check = channel.unary_unary("/grpc.health.v1.Health/Check",
                            request_serializer=pb.HealthCheckRequest.SerializeToString,
                            response_deserializer=pb.HealthCheckResponse.FromString)
watch = channel.unary_stream("/grpc.health.v1.Health/Watch",
                             request_serializer=pb.HealthCheckRequest.SerializeToString,
                             response_deserializer=pb.HealthCheckResponse.FromString)
list_bots = channel.unary_unary("/tarock.v1.Arena/ListBots", request_serializer=lambda _: b"",
                                response_deserializer=lambda b: b)


def burst(call, request):
    """200 calls one after another: how many were refused, and a retry-after."""
    refused, retry = 0, None
    for _ in range(200):
        try:
            call(request, timeout=10)
        except grpc.RpcError as e:
            if e.code() == grpc.StatusCode.RESOURCE_EXHAUSTED:
                refused += 1
                retry = retry or dict(e.trailing_metadata() or ()).get("retry-after")
    return refused, retry


if command == "burst":
    refused, retry = burst(list_bots, None)
    print(f"listbots_refused {refused} retry {retry}")
    time.sleep(3)  # the address's bucket refills (20/s, bursts of 40)
    refused, retry = burst(check, pb.HealthCheckRequest())
    print(f"check_refused {refused} retry {retry}")
elif command == "lifetime":
    # One Watch: its first status, then when the stream ends; then when the
    # connection is closed (the channel leaves READY: the server's GOAWAY).
    states = []
    channel.subscribe(lambda s: states.append((time.monotonic(), s)), try_to_connect=True)
    start = time.monotonic()
    stream = watch(pb.HealthCheckRequest(), timeout=30)
    first = None
    try:
        for r in stream:
            first = first or pb.HealthCheckResponse.ServingStatus.Name(r.status)
        print(f"ended {stream.code().name} after {time.monotonic() - start:.1f} first {first}")
    except grpc.RpcError as e:
        print(f"ended {e.code().name} after {time.monotonic() - start:.1f} first {first}")
    ended = time.monotonic()
    deadline = ended + 20
    while time.monotonic() < deadline:
        if any(t >= ended and s != grpc.ChannelConnectivity.READY for t, s in states):
            break
        time.sleep(0.05)
    closed = [t for t, s in states if t >= ended and s != grpc.ChannelConnectivity.READY]
    print(f"connection_closed_after {closed[0] - ended:.1f}" if closed else "connection_open")
elif command == "count":
    # Four Watch streams held open, a fifth; then one of the four ended and
    # another tried.
    streams, firsts = [], []
    for _ in range(4):
        s = watch(pb.HealthCheckRequest(), timeout=60)
        streams.append(s)
        firsts.append(pb.HealthCheckResponse.ServingStatus.Name(next(s).status))
    print("held " + ",".join(firsts))
    fifth = watch(pb.HealthCheckRequest(), timeout=20)
    try:
        r = next(fifth)
        print(f"fifth accepted {r.status}")
        fifth.cancel()
    except grpc.RpcError as e:
        print(f"fifth {e.code().name}: {e.details()}")
    streams[0].cancel()
    for _ in range(100):  # the arena forgets the cancelled stream
        again = watch(pb.HealthCheckRequest(), timeout=20)
        try:
            next(again)
            print("after_cancel accepted")
            again.cancel()
            break
        except grpc.RpcError as e:
            if e.code() != grpc.StatusCode.RESOURCE_EXHAUSTED:
                print(f"after_cancel {e.code().name}")
                break
            time.sleep(0.1)
    else:
        print("after_cancel refused")
    for s in streams[1:]:
        s.cancel()
PY
health() { timeout 60 /usr/bin/python3 "$tmp/health.py" "$build/gen-python/grpc/health/v1/health_pb2.py" "$@" 2>&1; }

# --- Watch streams per network (arena B): four held, the fifth refused, a
# slot free again once one ends.
out=$(health count "127.0.0.1:$ap_limited")
echo "$out"
grep -q "^held SERVING,SERVING,SERVING,SERVING$" <<<"$out" && ok || bad "four Watch streams not held: $out"
grep -q "^fifth RESOURCE_EXHAUSTED: 4 health Watch streams are open from your network (127.0.0.0/24" <<<"$out" &&
  ok || bad "a fifth Watch stream of one network was not refused: $out"
grep -q "^after_cancel accepted$" <<<"$out" && ok || bad "no Watch slot after one ended: $out"

# --- Rate limits (arena B): Health/Check is limited like Arena/ListBots.
sleep 3
out=$(health burst "127.0.0.1:$ap_limited")
echo "$out"
read -r _ lb_refused _ lb_retry < <(grep "^listbots_refused" <<<"$out")
read -r _ ck_refused _ ck_retry < <(grep "^check_refused" <<<"$out")
[ "${lb_refused:-0}" -gt 0 ] && ok || bad "the control: Arena/ListBots was not limited: $out"
[ "${ck_refused:-0}" -gt 0 ] && ok || bad "Health/Check is not rate-limited per address: $out"
[ "${ck_retry:-None}" != None ] && [ "${ck_retry:-0}" -ge 1 ] && ok ||
  bad "a refused Health/Check has no retry-after: $out"

# --- Watch lifetime and the idle close (arena A and the second referee).
for who in arena referee; do
  [ "$who" = arena ] && port=$ap_idle || port=$rp_idle
  out=$(health lifetime "127.0.0.1:$port")
  echo "$who: $out"
  read -r _ code _ after _ first < <(grep "^ended" <<<"$out")
  [ "${code:-}" = OK ] && [ "${first:-}" = SERVING ] && ok ||
    bad "$who: a Watch stream did not get SERVING and end with OK: $out"
  # 1.5 s, ended within a second after by the timer: 1.2 .. 10 s on a loaded machine.
  awk -v a="${after:-99}" 'BEGIN { exit !(a >= 1.2 && a <= 10) }' && ok ||
    bad "$who: a Watch stream lasted ${after:-?} s with an idle time of 1.5 s: $out"
  grep -q "^connection_closed_after" <<<"$out" && ok ||
    bad "$who: the connection stayed open after its Watch ended: $out"
done

# --- Bot endpoints in special-purpose ranges (arena A, whose policy allows
# loopback only): refused, naming the range; nothing stored.
i=0
for e in '[fec0::1]:7801=fec0::/10' '[2001:db8::1]:7801=2001:db8::/32' '192.0.2.1:7801=192.0.2.0/24' \
         '198.51.100.1:7801=198.51.100.0/24' '203.0.113.1:7801=203.0.113.0/24' \
         '[2001:2::1]:7801=2001:2::/48' '198.18.0.1:7801=198.18.0.0/15' '[100::1]:7801=100::/64' \
         '[3fff::1]:7801=3fff::/20' '192.88.99.1:7801=192.88.99.0/24' '[5f00::1]:7801=5f00::/16' \
         '[2001:20::1]:7801=2001::/23' '[4000::1]:7801=4000::/2' '[64:ff9b::c000:201]:7801=192.0.2.0/24'; do
  i=$((i + 1))
  expect_error "endpoint ${e%%=*}" "may not be in ${e#*=} " \
    timeout 20 $cli_idle bots add "special$i" --endpoint "${e%%=*}" --variants slovenian-4p --owner x
done
timeout 20 $cli_idle bots list --all | grep -q special && bad "a refused bot was stored: $($cli_idle bots list --all)" || ok
# The control: a globally reachable address is taken (nothing dials it here).
timeout 20 $cli_idle bots add public1 --endpoint '[2606:4700:4700::1111]:7801' --variants slovenian-4p \
  --owner x >/dev/null && ok || bad "a public IPv6 endpoint was refused"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
