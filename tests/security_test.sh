#!/usr/bin/env bash
# The arena's limits and authority (issue 13, docs/security.md), process level
# on loopback: rate limits on registrations and on API calls (gRPC
# RESOURCE_EXHAUSTED with retry-after, HTTP 429 with Retry-After), request
# size limits, the admin token required on an arena listening beyond loopback,
# the audit log, HTTPS on HTTP listeners beyond loopback, hostile HTTP clients
# (chunked bodies over the limit, slow headers), --trusted_proxies, and the referee's
# endpoint check when it dials a seat. Loopback is exempt from the rate limits
# by default, so the arenas here pass --rate_limit_exempt= to be limited.
# Nothing started here outlives the test.
# Usage: security_test.sh SOURCE_DIR BUILD_DIR
set -u
src=$(cd "$1" && pwd)
bin=$(cd "$2/bin" && pwd)
build=$(cd "$2" && pwd)
tmp=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill_tree "$p"; wait "$p" 2>/dev/null; done; rm -rf "$tmp"; }
trap cleanup EXIT
# shellcheck source=tests/testlib.sh
source "$src/tests/testlib.sh"
"$src/scripts/dev-certs.sh" "$tmp/certs" >/dev/null || { echo "dev-certs.sh failed"; exit 1; }
c=$tmp/certs

rp=$(free_port)
"$bin/tarock-referee" --listen "127.0.0.1:$rp" --metrics_listen= >"$tmp/referee.log" 2>&1 & pids+=($!)
wait_port "$rp" || bad "referee never opened"
# arena NAME GRPC_PORT FLAGS...: starts an arena with its own data directory.
arena() {
  local name=$1 port=$2; shift 2
  "$bin/tarock-arena" --referees "127.0.0.1:$rp" --data_dir "$tmp/$name" --listen "127.0.0.1:$port" \
    "$@" >"$tmp/$name.log" 2>&1 & pids+=($!)
  wait_port "$port" || bad "arena $name never opened: $(cat "$tmp/$name.log")"
}
cli() { local port=$1; shift; timeout 30 "$bin/tarock-arena-cli" --arena "127.0.0.1:$port" "$@"; }

# --- Registrations: a flood from one address is refused after the burst, and
# nothing of a refused one is stored.
ap=$(free_port)
arena reg "$ap" --http_listen= --rate_limit_exempt= --registrations_per_minute=6 --calls_per_second=100
added=0 refused=0 message=
for i in $(seq 1 12); do
  if out=$(cli "$ap" bots add "flood$i" --endpoint="127.0.0.1:$((20000 + i))" --variants=slovenian-4p \
           --owner=f 2>&1); then added=$((added + 1)); else refused=$((refused + 1)); message=$out; fi
done
[ "$added" -eq 5 ] && [ "$refused" -eq 7 ] && ok || bad "registration flood: $added added, $refused refused"
case "$message" in *"RESOURCE_EXHAUSTED: too many requests from 127.0.0.1 (bot registrations): retry in "*" s") ok ;;
  *) bad "registration refusal unclear: $message" ;; esac
n=$(cli "$ap" --json bots list --all | grep -o '"name": *"flood' | wc -l)
[ "$n" -eq 5 ] && ok || bad "the store has $n flood bots, not 5"
# Ordinary calls from the same address still pass.
cli "$ap" status >/dev/null && ok || bad "status refused after the registration flood"

# --- Calls: gRPC and HTTP, with their Retry-After.
cp_=$(free_port); hp=$(free_port)
arena calls "$cp_" --http_listen "127.0.0.1:$hp" --rate_limit_exempt= --calls_per_second=2
wait_port "$hp" || bad "http never opened"
/usr/bin/python3 - "$cp_" "$build/python" <<'EOF' && ok || bad "gRPC calls were not limited as specified"
import sys
sys.path.insert(0, sys.argv[2])
import grpc
from tarock_bot._generated import arena_pb2
channel = grpc.insecure_channel(f"127.0.0.1:{sys.argv[1]}")
status = channel.unary_unary("/tarock.v1.Arena/Status",
                             request_serializer=arena_pb2.StatusRequest.SerializeToString,
                             response_deserializer=arena_pb2.StatusResponse.FromString)
ok = refused = 0
retry = None
for _ in range(12):
    try:
        status(arena_pb2.StatusRequest(), timeout=10)
        ok += 1
    except grpc.RpcError as e:
        assert e.code() == grpc.StatusCode.RESOURCE_EXHAUSTED, e
        assert "too many requests from 127.0.0.1" in e.details(), e.details()
        retry = dict(e.trailing_metadata()).get("retry-after")
        refused += 1
assert 4 <= ok <= 5 and refused >= 7, (ok, refused)  # a burst of 4 (plus a refill)
assert retry == "1", retry
EOF
sleep 2.5  # the address's bucket (shared by gRPC and HTTP) fills up again
/usr/bin/python3 - "$hp" <<'EOF' && ok || bad "HTTP calls were not limited as specified"
import json, sys, urllib.request, urllib.error
codes, retry, body = [], None, None
for _ in range(12):
    try:
        urllib.request.urlopen(f"http://127.0.0.1:{sys.argv[1]}/api/status", timeout=10)
        codes.append(200)
    except urllib.error.HTTPError as e:
        codes.append(e.code)
        retry, body = e.headers.get("Retry-After"), json.loads(e.read())
assert 4 <= codes.count(200) <= 5 and codes.count(429) >= 7, codes
assert retry == "1" and "too many requests" in body["error"], (retry, body)
EOF

# --- Request size: a body over --max_request_bytes gets 413; a gRPC message over it fails.
sp=$(free_port); shp=$(free_port)
arena size "$sp" --http_listen "127.0.0.1:$shp" --max_request_bytes=65536
wait_port "$shp" || bad "http never opened"
/usr/bin/python3 - "$shp" "$sp" "$build/python" <<'EOF' && ok || bad "request size limits not enforced"
import sys, urllib.request, urllib.error
sys.path.insert(0, sys.argv[3])
try:
    urllib.request.urlopen(urllib.request.Request(
        f"http://127.0.0.1:{sys.argv[1]}/api/play", data=b"x" * 200000, method="POST"), timeout=10)
    raise SystemExit("a 200 kB body was accepted")
except urllib.error.HTTPError as e:
    assert e.code == 413, e.code
import grpc
from tarock_bot._generated import arena_pb2
add = grpc.insecure_channel(f"127.0.0.1:{sys.argv[2]}").unary_unary(
    "/tarock.v1.Arena/AddBot", request_serializer=arena_pb2.AddBotRequest.SerializeToString,
    response_deserializer=arena_pb2.AddBotResponse.FromString)
try:
    add(arena_pb2.AddBotRequest(name="big", owner="x" * 200000, endpoint="127.0.0.1:9"), timeout=10)
    raise SystemExit("a 200 kB gRPC message was accepted")
except grpc.RpcError as e:
    assert e.code() == grpc.StatusCode.RESOURCE_EXHAUSTED, e
EOF
out=$(cli "$sp" --json bots list --all)
case "$out" in *'"big"'*) bad "the oversized registration was stored" ;; *) ok ;; esac

# --- Hostile HTTP clients (issue 29): a chunked body over --max_request_bytes
# gets 413 like a sized one; 100 clients trickling a header byte every 0.5 s
# (capped at 64 connections from their network, /24) leave other networks
# answered.
/usr/bin/python3 - "$shp" <<'EOF' && ok || bad "hostile HTTP clients were not held off"
import http.client, socket, sys, threading, time
port = int(sys.argv[1])
conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
conn.request("POST", "/api/play", body=iter([b"x" * 16384] * 32), encode_chunked=True,
             headers={"Transfer-Encoding": "chunked", "Content-Type": "application/json"})
r = conn.getresponse()
assert r.status == 413, r.status
conn.close()
slow = []
for _ in range(100):
    slow.append(socket.create_connection(("127.0.0.1", port), timeout=10))
stop = threading.Event()
def trickle():
    head = b"GET /api/status HTTP/1.1\r\nHost: x\r\nX-Pad: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\r\n"
    for i in range(len(head)):
        for s in slow:
            try:
                s.send(head[i:i + 1])
            except OSError:
                pass
        if stop.wait(0.5):
            return
t = threading.Thread(target=trickle)
t.start()
try:
    time.sleep(1)
    start = time.monotonic()
    # Another address of their network (/24) is held off with them (503)...
    neighbour = socket.socket()
    neighbour.settimeout(10)
    neighbour.bind(("127.0.0.2", 0))
    neighbour.connect(("127.0.0.1", port))
    busy = neighbour.recv(4096)
    neighbour.close()
    assert busy.startswith(b"HTTP/1.1 503"), busy[:100]
    # ...and another network is answered.
    other = socket.socket()
    other.settimeout(10)
    other.bind(("127.0.1.2", 0))
    other.connect(("127.0.0.1", port))
    other.sendall(b"GET /api/status HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    reply = other.recv(4096)
    other.close()
    assert reply.startswith(b"HTTP/1.1 200"), reply[:100]
    assert time.monotonic() - start < 3, time.monotonic() - start
finally:
    stop.set()
    t.join()
    for s in slow:
        s.close()
EOF

# --- Behind a reverse proxy: --trusted_proxies=127.0.0.1 takes the client
# address from X-Forwarded-For, limits each forwarded client on its own, and
# exempts nobody through the proxy (loopback is exempt by default otherwise).
pp=$(free_port); php=$(free_port)
arena proxy "$pp" --http_listen "127.0.0.1:$php" --trusted_proxies=127.0.0.1 --calls_per_second=2
wait_port "$php" || bad "http never opened"
/usr/bin/python3 - "$php" <<'EOF' && ok || bad "the trusted proxy's forwarded addresses were not limited"
import json, sys, urllib.request, urllib.error
def burst(headers):
    codes, body = [], None
    for _ in range(12):
        req = urllib.request.Request(f"http://127.0.0.1:{sys.argv[1]}/api/status", headers=headers)
        try:
            urllib.request.urlopen(req, timeout=10)
            codes.append(200)
        except urllib.error.HTTPError as e:
            codes.append(e.code)
            body = json.loads(e.read())
    return codes, body
codes, body = burst({"X-Forwarded-For": "198.51.100.1, 203.0.113.5"})
assert 4 <= codes.count(200) <= 5 and codes.count(429) >= 7, codes
assert "too many requests from 203.0.113.5" in body["error"], body
codes, _ = burst({"X-Forwarded-For": "203.0.113.6"})  # another client: its own budget
assert codes.count(200) >= 4, codes
codes, body = burst({})  # the proxy's own address: not exempt through the proxy
assert codes.count(429) >= 7 and "from 127.0.0.1" in body["error"], (codes, body)
EOF

# --- The admin token: an arena beyond loopback without one refuses every
# administrative call, and says so when it starts.
np=$(free_port)
"$bin/tarock-arena" --referees "127.0.0.1:$rp" --data_dir "$tmp/open" --listen "0.0.0.0:$np" \
  --http_listen= --allow_plaintext --allow_bot_ranges=127.0.0.0/8 >"$tmp/open.log" 2>&1 & pids+=($!)
wait_port "$np" || bad "arena on 0.0.0.0 never opened"
grep -q "warning: listening beyond loopback without --admin_token" "$tmp/open.log" && ok \
  || bad "no warning: $(cat "$tmp/open.log")"
out=$(cli "$np" ladder start --variant=slovenian-4p 2>&1) && bad "a ladder started without an admin token" || {
  case "$out" in *"no admin token"*"--admin_token"*) ok ;; *) bad "admin refusal unclear: $out" ;; esac; }
# With a token: only the token's holder.
tp=$(free_port)
TAROCK_ADMIN_TOKEN=adm1n-s3cret "$bin/tarock-arena" --referees "127.0.0.1:$rp" --data_dir "$tmp/admin" \
  --listen "0.0.0.0:$tp" --http_listen= --allow_plaintext --allow_bot_ranges=127.0.0.0/8 >"$tmp/admin.log" 2>&1 & pids+=($!)
wait_port "$tp" || bad "arena with a token never opened"
grep -q "warning" "$tmp/admin.log" && bad "a warning although there is a token: $(cat "$tmp/admin.log")" || ok
for name in a1 a2 a3 a4; do
  cli "$tp" bots add "$name" --endpoint="127.0.0.1:$(free_port)" --variants=slovenian-4p --owner=o \
    >"$tmp/$name.token" 2>&1 || bad "bots add $name: $(cat "$tmp/$name.token")"
done
cli "$tp" ladder start --variant=slovenian-4p --admin_token=wrong >/dev/null 2>&1 \
  && bad "a wrong admin token started a ladder" || ok
TAROCK_ADMIN_TOKEN=adm1n-s3cret cli "$tp" ladder start --variant=slovenian-4p --format=match --max_matches=1 >/dev/null \
  && ok || bad "the admin token was refused"
tok=$(awk '/^token /{print $2}' "$tmp/a1.token")
cli "$tp" bots retire a2 --token="$tok" >/dev/null 2>&1 && bad "a1's token retired a2" || ok
cli "$tp" bots update a1 --token="$tok" --variants=slovenian-4p,slovenian-3p >/dev/null \
  && ok || bad "the owner could not update a1"

# --- The audit log: who, from where, what, when; refusals too; no secret.
out=$(cli "$tp" audit 2>&1) && bad "the audit log without the admin token: $out" || ok
audit=$(TAROCK_ADMIN_TOKEN=adm1n-s3cret cli "$tp" --json audit)
echo "$audit" | /usr/bin/python3 -c '
import json, sys
entries = json.load(sys.stdin)["entries"]
seen = [(e["action"], e["target"], e["outcome"], e["actor"]) for e in entries]
assert all(e["client"] == "127.0.0.1" and e["at"].endswith("Z") for e in entries), entries
for want in [("AddBot", "bot:a1", "ok", "anyone (owner o)"),
             ("StartLadder", "ladder", "PERMISSION_DENIED", "unknown"),
             ("StartLadder", "ladder:1", "ok", "admin"),
             ("RetireBot", "bot:a2", "PERMISSION_DENIED", "unknown"),
             ("UpdateBot", "bot:a1", "ok", "owner of a1")]:
    assert want in seen, (want, seen)
assert entries[0]["id"] > entries[-1]["id"]  # newest first
' && ok || bad "the audit log lacks what happened: $audit"
[ -n "$tok" ] || bad "no token for a1"
case "$audit" in *adm1n-s3cret*|*"$tok"*) bad "the audit log shows a secret" ;; *) ok ;; esac
n=$(TAROCK_ADMIN_TOKEN=adm1n-s3cret cli "$tp" --json audit --target=bot:a1 | grep -c '"action"')
[ "$n" -eq 2 ] && ok || bad "audit --target=bot:a1 gave $n entries, not 2"

# --- HTTPS beyond loopback; plaintext HTTP there is refused.
expect_error "arena HTTP on 0.0.0.0 in plaintext" "--tls_cert" "$bin/tarock-arena" \
  --referees "127.0.0.1:$rp" --data_dir "$tmp/x" --listen "127.0.0.1:$(free_port)" --http_listen 0.0.0.0:0
expect_error "referee /metrics on 0.0.0.0 in plaintext" "--tls_cert" "$bin/tarock-referee" \
  --listen "127.0.0.1:0" --metrics_listen 0.0.0.0:0
hsp=$(free_port); hsh=$(free_port)
arena https "$hsp" --http_listen "0.0.0.0:$hsh" --tls_cert="$c/arena.pem" --tls_key="$c/arena.key"
wait_port "$hsh" || bad "https never opened"
# The line comes after the port opens: wait for it (bounded).
for _ in $(seq 100); do grep -q "http on https://0.0.0.0:$hsh" "$tmp/https.log" && break; sleep 0.1; done
grep -q "http on https://0.0.0.0:$hsh" "$tmp/https.log" && ok || bad "the arena does not say https: $(cat "$tmp/https.log")"
curl -sf --cacert "$c/ca.pem" "https://127.0.0.1:$hsh/api/status" | grep -q queue_depth && ok \
  || bad "HTTPS /api/status failed"
curl -sf --max-time 5 "http://127.0.0.1:$hsh/api/status" >/dev/null && bad "plain HTTP answered on the HTTPS port" || ok
curl -sf --max-time 5 --cacert "$c/other-ca.pem" "https://127.0.0.1:$hsh/api/status" >/dev/null \
  && bad "a client trusting another CA accepted the arena" || ok

# --- The referee checks bot endpoints when it dials: a referee beyond
# loopback refuses loopback bots unless allowed.
bots=()
for name in n e s w; do
  p=$(free_port); bots+=("$name=127.0.0.1:$p")
  "$bin/tarock-bot-random" --listen "127.0.0.1:$p" >/dev/null 2>&1 & pids+=($!)
  wait_port "$p" || bad "bot never opened"
done
wp=$(free_port)
"$bin/tarock-referee" --listen "0.0.0.0:$wp" --metrics_listen= --allow_plaintext >"$tmp/wide.log" 2>&1 & pids+=($!)
wait_port "$wp" || bad "referee on 0.0.0.0 never opened"
out=$(timeout 60 "$bin/tarock" match --variant slovenian-4p --hands 4 --quiet --json \
      --referee "127.0.0.1:$wp" "${bots[@]}" 2>&1)
case "$out" in *"loopback"*"--allow_bot_ranges"*) ok ;; *) bad "the referee dialed loopback bots: $out" ;; esac
ap2=$(free_port)
"$bin/tarock-referee" --listen "0.0.0.0:$ap2" --metrics_listen= --allow_plaintext \
  --allow_bot_ranges=127.0.0.0/8 >/dev/null 2>&1 & pids+=($!)
wait_port "$ap2" || bad "allowing referee never opened"
timeout 60 "$bin/tarock" match --variant slovenian-4p --hands 4 --quiet --referee "127.0.0.1:$ap2" \
  "${bots[@]}" >/dev/null 2>&1 && ok || bad "--allow_bot_ranges did not allow the loopback bots"

# No secret in any process's output: the admin token, a bot's token.
grep -qs -e adm1n-s3cret -e "$tok" "$tmp"/*.log && bad "a log shows a secret" || ok

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
