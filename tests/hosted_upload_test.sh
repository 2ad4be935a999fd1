#!/usr/bin/env bash
# Large hosted uploads (issue 46, docs/hosting.md "Uploads"), real processes on
# loopback: a referee, an arena with the default --max_upload_bytes (32 MiB),
# a bot host and two reference bots. Checks:
#  - a Python bot with a ~30 MiB model file beside it (random bytes, loaded at
#    import), uploaded through the HTTP API (curl) and through the Python SDK
#    (`python3 -m tarock_bot upload`, Hosting.UploadVersionStream in pieces),
#    is fetched whole by the host (FetchVersion in pieces; the bot prints the
#    model's SHA-256, compared with the file's) and plays a match, 0 faults;
#    the host logs each seat's start cost (the model's load included);
#  - inside the sandbox that bot imports numpy (the model read as an array)
#    and tarock_engine (every decision is the engine's heuristic_action), and
#    sdk/templates/python/pimc_bot.py, uploaded as the template is, plays the
#    same ladder match (its searches over sampled worlds), 0 faults (issue 45);
#  - an upload over the limit is refused in one line and nothing is stored:
#    by Content-Length (413 before the body), chunked (the running count),
#    through the SDK (total_bytes) and the CLI;
#  - a truncated HTTP upload and a truncated gRPC stream store nothing; a
#    slow upload that announced 30 MiB holds nowhere near 30 MiB of the
#    arena's memory while it trickles.
# Needs root (the sandbox makes cgroups) and bwrap: skipped (exit 77) without.
# Usage: hosted_upload_test.sh SOURCE_DIR BUILD_DIR
set -uo pipefail
src=$(cd "$1" && pwd)
build=$(cd "$2" && pwd)
bin=$build/bin
# shellcheck source=tests/testlib.sh
source "$src/tests/testlib.sh"
setup_scratch

skip_without_sandbox
export PYTHONPATH=$build/python PYTHONDONTWRITEBYTECODE=1

start_referee || bad "referee never listened"
hp=$(free_port)
start_arena --http_listen "127.0.0.1:$hp" || bad "arena never listened"
arena_pid=${pids[-1]}
$cli hosts add host1 >"$tmp/host.txt" || bad "hosts add"
for b in bighttp bigsdk pimc; do
  $cli bots add "$b" --hosted --variants slovenian-4p --owner "owner-$b" >"$tmp/$b.txt" || bad "bots add $b"
done

# --- The bot: a zip with bot.py and model.npz (30 MiB of random bytes, stored).
/usr/bin/python3 - "$tmp" <<'EOF' || bad "make the zip"
import hashlib, os, sys, zipfile
d = sys.argv[1]
model = os.urandom(30 << 20)
open(f"{d}/model.sha256", "w").write(hashlib.sha256(model).hexdigest())
bot = '''import hashlib, os, sys, time
import numpy as np
import tarock_engine as te
from tarock_bot import Bot, Situation
t0 = time.monotonic()
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "model.npz"), "rb") as f:
    MODEL = f.read()
WEIGHTS = np.frombuffer(MODEL, dtype=np.uint8)
print("MODEL", WEIGHTS.size, hashlib.sha256(WEIGHTS.tobytes()).hexdigest(),
      "%.1f ms" % ((time.monotonic() - t0) * 1000), file=sys.stderr, flush=True)
print("IMPORTS numpy", np.__version__, "tarock_engine", te.__version__, file=sys.stderr, flush=True)
class Big(Bot):
    name = "big"
    def decide(self, s: Situation) -> str:
        return te.heuristic_action(s)
'''
with zipfile.ZipFile(f"{d}/big.zip", "w", zipfile.ZIP_STORED) as z:
    z.writestr("bot.py", bot)
    z.writestr("model.npz", model)
    z.writestr("tarock.json", '{"kind": "python", "entry": "bot.py"}')
# Over the default limit of 32 MiB.
with open(f"{d}/over.zip", "wb") as f:
    f.write(os.urandom((32 << 20) + 1))
EOF
size=$(stat -c %s "$tmp/big.zip")
[ "$size" -gt $((30 << 20)) ] && [ "$size" -lt $((32 << 20)) ] && ok || bad "big.zip is $size bytes"
no_versions() { [ -z "$($cli bots versions "$1")" ]; }

# --- Over the limit: one line each, nothing stored.
code=$(curl -s -o "$tmp/over1.txt" -w '%{http_code}' -H "Authorization: Bearer $(token_of bighttp)" \
  --data-binary @"$tmp/over.zip" "http://127.0.0.1:$hp/api/bots/bighttp/versions?filename=over.zip")
[ "$code" = 413 ] && [ "$(wc -l <"$tmp/over1.txt")" -eq 1 ] && ok || bad "HTTP over the limit: $code $(cat "$tmp/over1.txt")"
code=$(curl -s -o "$tmp/over2.txt" -w '%{http_code}' -H "Authorization: Bearer $(token_of bighttp)" \
  -H "Transfer-Encoding: chunked" --data-binary @"$tmp/over.zip" \
  "http://127.0.0.1:$hp/api/bots/bighttp/versions?filename=over.zip")
[ "$code" = 413 ] && ok || bad "HTTP chunked over the limit: $code $(head -c 200 "$tmp/over2.txt")"
out=$(TAROCK_BOT_TOKEN=$(token_of bigsdk) /usr/bin/python3 -m tarock_bot upload bigsdk "$tmp/over.zip" \
  --arena "127.0.0.1:$ap" 2>&1) && bad "SDK over the limit accepted"
[ "$(printf '%s\n' "$out" | wc -l)" -eq 1 ] && case "$out" in *"more than the limit"*) true ;; *) false ;; esac &&
  ok || bad "SDK over the limit: $out"
out=$($cli bots upload bigsdk --token "$(token_of bigsdk)" "$tmp/over.zip" 2>&1) && bad "CLI over the limit accepted"
[ "$(printf '%s\n' "$out" | wc -l)" -eq 1 ] && case "$out" in *"more than the limit"*) true ;; *) false ;; esac &&
  ok || bad "CLI over the limit: $out"

# --- Truncated and slow uploads: nothing stored, no 30 MiB held.
/usr/bin/python3 - "$hp" "$(token_of bighttp)" "$arena_pid" "127.0.0.1:$ap" "$(token_of bigsdk)" <<'EOF' >"$tmp/slow.txt" 2>&1 || bad "slow/truncated: $(cat "$tmp/slow.txt")"
import os, socket, sys, time
import grpc
from tarock_bot import _proto
hp, token, pid, arena, sdk_token = sys.argv[1:6]
def rss_kib():
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
head = (f"POST /api/bots/bighttp/versions?filename=t.zip HTTP/1.1\r\nHost: x\r\n"
        f"Authorization: Bearer {token}\r\nContent-Length: {30 << 20}\r\n\r\n").encode()
before = rss_kib()
s = socket.create_connection(("127.0.0.1", int(hp)))
s.sendall(head)
for _ in range(8):                 # 1 MiB, slowly
    s.sendall(os.urandom(128 << 10)); time.sleep(0.1)
during = rss_kib()
s.close()                          # truncated
grown = during - before
print("rss before", before, "during", during, "KiB")
if grown > 12 << 10:
    sys.exit(f"a slow upload that sent 1 MiB grew the arena by {grown} KiB")
# A gRPC stream that says 30 MiB and ends after 1 MiB.
h = _proto.hosting_pb2
ch = grpc.insecure_channel(arena)
rpc = ch.stream_unary("/tarock.v1.Hosting/UploadVersionStream",
                      request_serializer=lambda m: m.SerializeToString(),
                      response_deserializer=h.VersionInfo.FromString)
def pieces():
    yield h.UploadVersionRequest(bot="bigsdk", token=sdk_token, filename="t.zip",
                                 content=os.urandom(1 << 19), total_bytes=30 << 20)
    yield h.UploadVersionRequest(content=os.urandom(1 << 19))
try:
    rpc(pieces(), timeout=30)
    sys.exit("a truncated stream was accepted")
except grpc.RpcError as e:
    print("truncated stream:", e.details())
    if "ended after" not in e.details():
        sys.exit(f"truncated stream: {e.details()}")
EOF
grep -q "truncated stream: the upload ended after" "$tmp/slow.txt" && ok || bad "truncated gRPC: $(cat "$tmp/slow.txt")"
no_versions bighttp && no_versions bigsdk && ok || bad "a refused or truncated upload stored a version"

# --- The host, and the 30 MiB uploads through HTTP and the SDK.
mkdir -p "$tmp/host"
TAROCK_HOST_TOKEN=$(token_of host) "$bin/tarock-bothost" --arena "127.0.0.1:$ap" --name host1 \
  --work_dir "$tmp/host" --switch_wait_s 2 --check_timeout_s 30 --spares 1 >>"$tmp/host.log" 2>&1 &
pids+=($!)
t0=$(date +%s%N)
code=$(curl -s -o "$tmp/up-http.json" -w '%{http_code}' -H "Authorization: Bearer $(token_of bighttp)" \
  --data-binary @"$tmp/big.zip" "http://127.0.0.1:$hp/api/bots/bighttp/versions?filename=big.zip")
[ "$code" = 201 ] && ok || bad "HTTP upload: $code $(head -c 300 "$tmp/up-http.json")"
t1=$(date +%s%N)
TAROCK_BOT_TOKEN=$(token_of bigsdk) /usr/bin/python3 -m tarock_bot upload bigsdk "$tmp/big.zip" \
  --arena "127.0.0.1:$ap" >"$tmp/up-sdk.txt" 2>&1 && ok || bad "SDK upload: $(cat "$tmp/up-sdk.txt")"
t2=$(date +%s%N)
echo "uploads of $size bytes: HTTP $(( (t1 - t0) / 1000000 )) ms, SDK $(( (t2 - t1) / 1000000 )) ms"
sha=$(sha256sum "$tmp/big.zip" | cut -d' ' -f1)
grep -q "\"sha256\":\"$sha\"" "$tmp/up-http.json" && ok || bad "HTTP upload's sha256: $(head -c 300 "$tmp/up-http.json")"
grep -q "sha256 ${sha:0:16}" "$tmp/up-sdk.txt" && ok || bad "SDK upload's sha256: $(cat "$tmp/up-sdk.txt")"
# The search template, uploaded as the template is (docs/hosting.md).
$cli bots upload pimc --token "$(token_of pimc)" "$src/sdk/templates/python/pimc_bot.py" >"$tmp/up-pimc.txt" 2>&1 &&
  ok || bad "upload pimc_bot.py: $(cat "$tmp/up-pimc.txt")"
ready() { $cli bots versions "$1" | head -1 | grep -q " ready "; }
for _ in $(seq 600); do ready bighttp && ready bigsdk && ready pimc && break; sleep 0.2; done
ready bighttp && ready bigsdk && ready pimc && ok ||
  bad "not ready: $($cli bots versions bighttp --token "$(token_of bighttp)" | tail -5) $($cli bots versions bigsdk --token "$(token_of bigsdk)" | tail -5) $(tail -5 "$tmp/host.log")"

# The same file again (issue 48): the current version answers, with a one-line
# note, through the CLI, the Python SDK and HTTP (200, "unchanged"); no new version.
pv=$($cli bots versions pimc | head -1 | awk '{print $2}')
out=$($cli bots upload pimc --token "$(token_of pimc)" "$src/sdk/templates/python/pimc_bot.py" 2>&1)
grep -q "^unchanged: the upload is byte-identical to version ${pv#v} (ready)" <<<"$out" && ok ||
  bad "CLI re-upload: $out (current: $pv)"
out=$(TAROCK_BOT_TOKEN=$(token_of pimc) /usr/bin/python3 -m tarock_bot upload pimc \
  "$src/sdk/templates/python/pimc_bot.py" --arena "127.0.0.1:$ap" 2>&1)
grep -q "^unchanged: the upload is byte-identical to version ${pv#v} (ready)" <<<"$out" && ok ||
  bad "SDK re-upload: $out"
code=$(curl -s -o "$tmp/again.json" -w '%{http_code}' -H "Authorization: Bearer $(token_of pimc)" \
  --data-binary @"$src/sdk/templates/python/pimc_bot.py" \
  "http://127.0.0.1:$hp/api/bots/pimc/versions?filename=pimc_bot.py")
[ "$code" = 200 ] && grep -q '"unchanged":true' "$tmp/again.json" && grep -q "\"id\":${pv#v}," "$tmp/again.json" &&
  ok || bad "HTTP re-upload: $code $(cat "$tmp/again.json")"
[ "$($cli bots versions pimc | grep -c .)" -eq 1 ] && ok || bad "a re-upload stored a version: $($cli bots versions pimc)"

"$bin/tarock-bot-heuristic" --listen 127.0.0.1:0 >"$tmp/heur.log" 2>&1 & pids+=($!)
for _ in $(seq 100); do grep -q listening "$tmp/heur.log" && break; sleep 0.1; done
$cli bots add heur --endpoint "$(awk '{print $4}' "$tmp/heur.log")" --variants slovenian-4p --owner ref >/dev/null
for _ in $(seq 100); do [ "$($cli bots list | grep -c 'online')" -ge 4 ] && break; sleep 0.1; done
$cli ladder start --variant slovenian-4p --format match --max_matches 1 --hands 4 >/dev/null
for _ in $(seq 600); do $cli ladder list | grep -q "^ladder 1 .*stopped" && break; sleep 0.2; done
$cli ladder stop --variant slovenian-4p >/dev/null 2>&1
faults=$($cli matches --limit 10 | awk '$1 == "seat" {f += $9} END {print f + 0}')
for b in bighttp bigsdk pimc; do
  $cli matches --limit 10 | awk -v b=$b '$1 == "seat" && $3 == b' | grep -q . && ok || bad "$b played no seat: $($cli matches --limit 10)"
done
[ "$faults" -eq 0 ] && ok || bad "$faults faults: $($cli matches --limit 10)"
# The model arrived whole: each bot's process read the model's SHA-256.
want=$(cat "$tmp/model.sha256")
for b in bighttp bigsdk; do
  grep -qh "MODEL $((30 << 20)) $want" "$tmp"/host/logs/$b/*.log && ok ||
    bad "$b's model: $(grep -h MODEL "$tmp"/host/logs/$b/*.log | head -2)"
  grep -qh "IMPORTS numpy [0-9.]* tarock_engine [0-9.]*" "$tmp"/host/logs/$b/*.log && ok ||
    bad "$b's imports: $(grep -h -e IMPORTS -e Error "$tmp"/host/logs/$b/*.log | head -4)"
done
grep "first answer" "$tmp/host.log" | head -4
grep -q "ms after the program's start" "$tmp/host.log" && ok || bad "the host logs no start cost: $(tail -5 "$tmp/host.log")"
echo "hosted_upload_test: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
