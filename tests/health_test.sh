#!/usr/bin/env bash
# gRPC health checking (issue 15), process level on loopback: tarock-referee,
# tarock-arena, a C++ SDK bot, the stdio bridge and a Python SDK bot all serve
# grpc.health.v1.Health; each reports SERVING once ready (overall and for its
# own services), an unknown service is NOT_FOUND, and a referee and an arena
# given --drain_ms report NOT_SERVING after SIGTERM until they stop. The client
# is tarock-health-probe, plus a raw grpcio call for the Python bot's encoding.
# Nothing started here outlives the test.
# Usage: health_test.sh SOURCE_DIR BUILD_DIR
set -uo pipefail
src=$(cd "$1" && pwd)
build=$(cd "$2" && pwd)
bin=$build/bin
tmp=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill_tree "$p"; wait "$p" 2>/dev/null; done; rm -rf "$tmp"; }
trap cleanup EXIT
# shellcheck source=tests/testlib.sh
source "$src/tests/testlib.sh"

probe() { timeout 10 "$bin/tarock-health-probe" --addr "127.0.0.1:$1" "${@:2}"; }
expect_status() {  # expect_status WHAT EXIT_CODE PORT [PROBE FLAGS...]
  local what=$1 want=$2 port=$3; shift 3
  local out rc
  out=$(probe "$port" "$@" 2>&1); rc=$?
  [ "$rc" -eq "$want" ] && ok || bad "$what: exit $rc, want $want: $out"
}

rp=$(free_port)
"$bin/tarock-referee" --listen "127.0.0.1:$rp" --metrics_listen= --drain_ms=4000 \
  >"$tmp/referee.log" 2>&1 & referee=$!; pids+=("$referee")
bp=$(free_port)
"$bin/tarock-bot-random" --listen "127.0.0.1:$bp" >/dev/null 2>&1 & pids+=($!)
sp=$(free_port)
"$bin/tarock-stdio-bridge" --listen "127.0.0.1:$sp" -- /bin/cat >/dev/null 2>&1 & pids+=($!)
pp=$(free_port)
PYTHONPATH="$build/python" /usr/bin/python3 -m tarock_bot serve "$src/sdk/templates/python/my_bot.py" \
  --listen "127.0.0.1:$pp" >/dev/null 2>"$tmp/python.log" & pids+=($!)
for p in "$rp" "$bp" "$sp" "$pp"; do wait_port "$p" || bad "port $p never opened"; done
ap=$(free_port)
"$bin/tarock-arena" --data_dir "$tmp/arena" --listen "127.0.0.1:$ap" --http_listen= \
  --referees "127.0.0.1:$rp" --drain_ms=4000 >"$tmp/arena.log" 2>&1 & arena=$!; pids+=("$arena")
# The arena prints its address once the scheduler runs: SERVING from then on.
for _ in $(seq 100); do grep -q "arena listening" "$tmp/arena.log" && break; sleep 0.1; done

expect_status "referee" 0 "$rp"
expect_status "referee's Referee service" 0 "$rp" --service=tarock.v1.Referee
expect_status "referee's SeatGateway service" 0 "$rp" --service=tarock.v1.SeatGateway
expect_status "referee, unknown service" 3 "$rp" --service=no.such.Service
expect_status "arena" 0 "$ap"
expect_status "arena's Arena service" 0 "$ap" --service=tarock.v1.Arena
expect_status "arena's BotGateway service" 0 "$ap" --service=tarock.v1.BotGateway
expect_status "C++ SDK bot" 0 "$bp"
expect_status "C++ SDK bot's Bot service" 0 "$bp" --service=tarock.v1.Bot
expect_status "stdio bridge" 0 "$sp" --service=tarock.v1.Bot
expect_status "Python SDK bot" 0 "$pp"
expect_status "Python SDK bot's Bot service" 0 "$pp" --service=tarock.v1.Bot
expect_status "Python SDK bot, unknown service" 3 "$pp" --service=no.such.Service
out=$(probe "$pp" 2>&1)
[ "$out" = "status: SERVING" ] && ok || bad "probe prints '$out'"
# The Python bot's hand-made encoding, read by grpcio's own client with the
# messages compiled from proto/grpc/health/v1/health.proto by the build.
# (Loaded from its file: the package name grpc is grpcio's.)
out=$(timeout 20 /usr/bin/python3 - "$pp" "$build/gen-python/grpc/health/v1/health_pb2.py" <<'PY' 2>&1
import importlib.util, sys, grpc
spec = importlib.util.spec_from_file_location("health_pb2", sys.argv[2])
health_pb2 = importlib.util.module_from_spec(spec)
spec.loader.exec_module(health_pb2)
ch = grpc.insecure_channel(f"127.0.0.1:{sys.argv[1]}")
check = ch.unary_unary("/grpc.health.v1.Health/Check",
                       request_serializer=health_pb2.HealthCheckRequest.SerializeToString,
                       response_deserializer=health_pb2.HealthCheckResponse.FromString)
r = check(health_pb2.HealthCheckRequest(service="tarock.v1.Bot"), timeout=5)
print(health_pb2.HealthCheckResponse.ServingStatus.Name(r.status))
PY
)
[ "$out" = "SERVING" ] && ok || bad "grpcio client on the Python bot: $out"

# Draining: NOT_SERVING after SIGTERM while --drain_ms runs, then gone.
for who in referee arena; do
  if [ "$who" = referee ]; then pid=$referee port=$rp; else pid=$arena port=$ap; fi
  kill -TERM "$pid"
  sleep 0.5
  expect_status "$who draining" 4 "$port"
  out=$(probe "$port" 2>&1)
  [ "$out" = "status: NOT_SERVING" ] && ok || bad "$who draining prints '$out'"
  for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  kill -0 "$pid" 2>/dev/null && bad "$who still runs 10 s after SIGTERM" || ok
  expect_status "$who stopped" 2 "$port" --timeout_ms=300
done

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
