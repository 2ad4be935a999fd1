#!/usr/bin/env bash
# HOLE (low): docs/security.md, "Rate limits": "API calls (every gRPC method and
# every HTTP request) per client address: 20/s, bursts of 40". The arena's
# grpc.health.v1.Health service (Check, and Watch, a stream that is never idle)
# is outside the admission: a stranger's burst of 150 concurrent calls gets no
# RESOURCE_EXHAUSTED, while the same burst of Arena/ListBots is limited.
# The arena runs with --rate_limit_exempt= so that loopback counts as a stranger.
# Exits non-zero while Health calls are unlimited. Needs curl with HTTP/2.
set -uo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
bin=${BIN_DIR:-$src/build/bin}
source "$src/tests/testlib.sh"
setup_scratch
start_referee || { echo "referee did not start"; exit 2; }
hp=$(free_port)
start_arena --rate_limit_exempt= --http_listen "127.0.0.1:$hp" || { echo "arena did not start"; exit 2; }
printf '\x00\x00\x00\x00\x00' >"$tmp/empty"
burst() {  # burst METHOD: 150 calls at once; prints one grpc-status per call
  for _ in $(seq 150); do
    (curl -s --http2-prior-knowledge -o /dev/null -D - -X POST -H 'content-type: application/grpc' \
       -H 'te: trailers' --data-binary @"$tmp/empty" "http://127.0.0.1:$ap/$1" |
       grep -io 'grpc-status: *[0-9]*' | head -1) &
  done
  wait
}
arena_limited=$(burst tarock.v1.Arena/ListBots | grep -c 'grpc-status: *8')
sleep 3
health_limited=$(burst grpc.health.v1.Health/Check | grep -c 'grpc-status: *8')
echo "RESOURCE_EXHAUSTED of 150: Arena/ListBots $arena_limited, Health/Check $health_limited"
open=0
if [ "$arena_limited" -gt 0 ] && [ "$health_limited" -eq 0 ]; then
  echo "HOLE: grpc.health.v1.Health is not rate-limited per client address"; open=1
fi
# "Connections and descriptors": "the arena closes connections idle for 120 s"
# is the bound on a stranger's held connections (gRPC has no connection cap).
# A Health/Watch stream keeps a stranger's connection (and descriptor) forever.
# (WATCH=0 skips this 130-s part.)
if [ "${WATCH:-1}" = 1 ]; then
  timeout 135 curl -s --http2-prior-knowledge -N -o "$tmp/watch.out" -X POST -H 'content-type: application/grpc' \
    -H 'te: trailers' --data-binary @"$tmp/empty" "http://127.0.0.1:$ap/grpc.health.v1.Health/Watch"
  if [ $? -eq 124 ]; then
    echo "HOLE: a stranger's Health/Watch connection is still open after 135 s (idle close is 120 s)"; open=1
  fi
fi
exit $open
