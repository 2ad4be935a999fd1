#!/usr/bin/env bash
# Transport security (issue 13), process level on loopback: certificates from
# scripts/dev-certs.sh; a referee that accepts only clients with certificates
# from its CA and dials bots over TLS; an arena over TLS that runs a tournament
# on it; every kind of stranger refused (no client certificate, a certificate
# from another CA, plaintext); plaintext refused off loopback, listening and
# dialing; the referee's bearer token. Nothing started here outlives the test.
# Usage: tls_test.sh SOURCE_DIR BUILD_DIR
set -uo pipefail
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
as() { echo "--tls_cert=$c/$1.pem --tls_key=$c/$1.key"; }

# A mutual-TLS referee that dials bots over TLS, and four TLS bots.
rp=$(free_port)
# shellcheck disable=SC2046
"$bin/tarock-referee" --listen "127.0.0.1:$rp" --metrics_listen= $(as referee) \
  --tls_client_ca="$c/ca.pem" --tls_ca="$c/ca.pem" >"$tmp/referee.log" 2>&1 & pids+=($!)
bots=()
for name in north east south; do
  p=$(free_port); bots+=("$name=127.0.0.1:$p")
  # shellcheck disable=SC2046
  "$bin/tarock-bot-random" --listen "127.0.0.1:$p" $(as bot) >/dev/null 2>&1 & pids+=($!)
  wait_port "$p" || bad "bot port $p never opened"
done
# The fourth is the Python SDK's template, served over TLS too.
pyb() { PYTHONPATH="$build/python" /usr/bin/python3 -m tarock_bot "$@"; }
template=$src/sdk/templates/python/my_bot.py
p=$(free_port); bots+=("west=127.0.0.1:$p")
# shellcheck disable=SC2046
pyb serve "$template" --listen "127.0.0.1:$p" $(as bot) >/dev/null 2>"$tmp/west.log" & pids+=($!)
wait_port "$p" || bad "Python TLS bot port $p never opened"
wait_port "$rp" || bad "referee port never opened"

match() { timeout 60 "$bin/tarock" match --variant slovenian-4p --hands 4 --seed 3 --quiet \
            --referee "127.0.0.1:$rp" "$@" "${bots[@]}"; }
# shellcheck disable=SC2046
out=$(match --tls_ca="$c/ca.pem" $(as arena) --record "$tmp/m.json" 2>&1) && ok \
  || bad "match over mutual TLS failed: $out"
"$bin/tarock" replay "$tmp/m.json" >/dev/null && ok || bad "the TLS match's record does not replay"

# Strangers: no client certificate, one from another CA, plaintext.
out=$(match --tls_ca="$c/ca.pem" 2>&1) && bad "a client without a certificate ran a match" || ok
# shellcheck disable=SC2046
out=$(match --tls_ca="$c/ca.pem" $(as stranger) 2>&1) && bad "a certificate of another CA ran a match" || ok
out=$(match 2>&1) && bad "a plaintext client ran a match on a TLS referee" || ok
# A client that does not trust the referee's CA refuses it.
# shellcheck disable=SC2046
out=$(match --tls_ca="$c/other-ca.pem" $(as arena) 2>&1) && bad "a client accepted a referee its CA did not sign" || ok

# Plaintext off loopback: refused when listening and when dialing, with the flags named.
expect_error "referee on 0.0.0.0" "--tls_cert" "$bin/tarock-referee" --listen 0.0.0.0:0 --metrics_listen=
expect_error "bot on 0.0.0.0" "--allow_plaintext" "$bin/tarock-bot-random" --listen 0.0.0.0:0
expect_error "stdio bridge on 0.0.0.0" "--tls_cert" "$bin/tarock-stdio-bridge" --listen 0.0.0.0:0 -- /bin/cat
expect_error "Python bot on 0.0.0.0" "--tls_cert" pyb serve "$template" --listen 0.0.0.0:0
expect_error "Python bot with half a certificate" "--tls_key" pyb serve "$template" --tls_cert="$c/bot.pem"
expect_error "tarock to a remote referee" "--tls_ca" timeout 20 "$bin/tarock" match --variant slovenian-4p \
  --hands 4 --quiet --referee 192.0.2.1:7701 "${bots[@]}"
expect_error "arena-cli to a remote arena" "--tls_ca" "$bin/tarock-arena-cli" --arena 192.0.2.1:7700 status
expect_error "arena to a remote referee" "--tls_ca" "$bin/tarock-arena" --referees 192.0.2.1:7701 \
  --data_dir "$tmp/refused" --listen 127.0.0.1:0 --http_listen=
expect_error "key without certificate" "go together" "$bin/tarock-bot-random" --listen 127.0.0.1:0 \
  --tls_key "$c/bot.key"
expect_error "missing certificate file" "cannot read" "$bin/tarock-bot-random" --listen 127.0.0.1:0 \
  --tls_cert "$c/none.pem" --tls_key "$c/bot.key"
# --allow_plaintext lets an operator on a trusted network listen anyway.
"$bin/tarock-bot-random" --listen 0.0.0.0:0 --allow_plaintext >"$tmp/allow.log" 2>&1 & allow=$!
pids+=($allow)
for _ in $(seq 50); do grep -q "listening" "$tmp/allow.log" && break; sleep 0.1; done
grep -q "listening on 0.0.0.0" "$tmp/allow.log" && ok || bad "--allow_plaintext did not listen: $(cat "$tmp/allow.log")"

# The arena over TLS: its gRPC API needs TLS, it runs matches on the
# mutual-TLS referee with its certificate as the client certificate.
ap=$(free_port)
# shellcheck disable=SC2046
"$bin/tarock-arena" --referees "127.0.0.1:$rp" --data_dir "$tmp/arena" --listen "127.0.0.1:$ap" \
  --http_listen= $(as arena) --tls_ca="$c/ca.pem" >"$tmp/arena.log" 2>&1 & pids+=($!)
wait_port "$ap" || bad "arena port never opened"
cli() { timeout 120 "$bin/tarock-arena-cli" --arena "127.0.0.1:$ap" --tls_ca="$c/ca.pem" "$@"; }
for b in "${bots[@]}"; do
  cli bots add "${b%%=*}" --endpoint="${b#*=}" --variants=slovenian-4p --owner=t >/dev/null \
    && ok || bad "bots add ${b%%=*} over TLS failed"
done
out=$(cli tournament run --variant=slovenian-4p --bots=north,east,south,west --deals=1 --hands=4 --wait 2>&1) \
  && ok || bad "tournament over TLS failed: $out"
out=$(cli --json matches --variant=slovenian-4p 2>&1)
echo "$out" | /usr/bin/python3 -c '
import json, sys
d = json.load(sys.stdin)
ms = d.get("matches", [])
assert ms and all(m["status"] == "done" for m in ms), d
' && ok || bad "tournament matches not all done: $out"
out=$(timeout 20 "$bin/tarock-arena-cli" --arena "127.0.0.1:$ap" status 2>&1) \
  && bad "a plaintext client reached the TLS arena" || ok

# Bots that dial in (docs/dial-in.md) over TLS to the same arena: a tournament.
for b in d1 d2 d3 d4; do
  token=$(cli --json bots add "$b" --dial_in --variants=slovenian-4p --owner=t |
          /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["token"])') \
    || bad "bots add $b --dial_in failed"
  if [ "$b" = d4 ]; then  # the Python SDK dials in over TLS too
    TAROCK_BOT_TOKEN=$token pyb connect "$template" --arena "127.0.0.1:$ap" --tls_ca="$c/ca.pem" \
      >"$tmp/$b.log" 2>&1 & pids+=($!)
  else
    TAROCK_BOT_TOKEN=$token "$bin/tarock-bot-random" --arena "127.0.0.1:$ap" --tls_ca="$c/ca.pem" \
      >"$tmp/$b.log" 2>&1 & pids+=($!)
  fi
done
for _ in $(seq 100); do
  [ "$(cli --json bots list | grep -o '"online": *true' | wc -l)" -eq 4 ] && break; sleep 0.1
done
out=$(cli --json tournament run --variant=slovenian-4p --bots=d1,d2,d3,d4 --deals=1 --hands=4 --wait 2>&1) \
  && ok || bad "dial-in tournament over TLS failed: $out"
echo "$out" | /usr/bin/python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["matches_done"] == 4 and not d.get("matches_failed"), d
' && ok || bad "dial-in tournament matches not all done: $out"
expect_error "dial-in to a remote arena in plaintext" "--tls_ca" \
  "$bin/tarock-bot-random" --arena 192.0.2.1:7700 --token x
expect_error "Python dial-in to a remote arena in plaintext" "--tls_ca" \
  pyb connect "$template" --arena 192.0.2.1:7700 --token x
out=$(TAROCK_BOT_TOKEN=x timeout 20 pyb connect "$template" --arena "127.0.0.1:$ap" 2>&1) \
  && bad "a Python bot dialed in to the TLS arena in plaintext" || ok

# The bearer token, where certificates are not used (plaintext on loopback).
tp=$(free_port)
TAROCK_REFEREE_TOKEN=s3cret-token "$bin/tarock-referee" --listen "127.0.0.1:$tp" --metrics_listen= \
  >/dev/null 2>&1 & pids+=($!)
pb=()
for name in a b c d; do
  p=$(free_port); pb+=("$name=127.0.0.1:$p")
  "$bin/tarock-bot-random" --listen "127.0.0.1:$p" >/dev/null 2>&1 & pids+=($!)
  wait_port "$p" || bad "bot port never opened"
done
wait_port "$tp" || bad "token referee never opened"
tmatch() { timeout 60 "$bin/tarock" match --variant slovenian-4p --hands 4 --quiet \
             --referee "127.0.0.1:$tp" "$@" "${pb[@]}" 2>&1; }
out=$(tmatch) && bad "a call without the token ran a match" || {
  case "$out" in *"token"*) ok ;; *) bad "no token: unclear error: $out" ;; esac; }
out=$(tmatch --referee_token=wrong) && bad "a wrong token ran a match" || ok
out=$(tmatch --referee_token=s3cret-token) && ok || bad "the right token was refused: $out"
grep -rq "s3cret-token" "$tmp"/*.log && bad "a log shows the token" || ok

# A bot tells the arena's referees from strangers: registered, it gets a
# referee secret; started with it, it plays the arena's matches and refuses a
# referee the arena did not send (here `tarock match` run by someone else).
pp=$(free_port); sp=$(free_port); port=$(free_port)
"$bin/tarock-referee" --listen "127.0.0.1:$pp" --metrics_listen= >/dev/null 2>&1 & pids+=($!)
"$bin/tarock-arena" --referees "127.0.0.1:$pp" --data_dir "$tmp/arena2" --listen "127.0.0.1:$sp" \
  --http_listen= >"$tmp/arena2.log" 2>&1 & pids+=($!)
wait_port "$sp" || bad "second arena never opened"
out=$(timeout 30 "$bin/tarock-arena-cli" --arena "127.0.0.1:$sp" bots add guarded \
      --endpoint="127.0.0.1:$port" --variants=slovenian-4p --owner=t)
secret=$(echo "$out" | awk '/^referee_secret /{print $2}')
[ ${#secret} -eq 64 ] && ok || bad "bots add printed no referee secret: $out"
[ "$(stat -c %a "$tmp/arena2/referee-secret.key")" = 600 ] && ok || bad "the arena's key file is not 0600"
TAROCK_REFEREE_SECRET=$secret "$bin/tarock-bot-heuristic" --listen "127.0.0.1:$port" \
  >/dev/null 2>"$tmp/guarded.log" & pids+=($!)
wait_port "$port" || bad "guarded bot never opened"
# The same with the Python SDK (the secret as a flag here; the variable works too).
pyport=$(free_port)
out=$(timeout 30 "$bin/tarock-arena-cli" --arena "127.0.0.1:$sp" bots add pyguarded \
      --endpoint="127.0.0.1:$pyport" --variants=slovenian-4p --owner=t)
pysecret=$(echo "$out" | awk '/^referee_secret /{print $2}')
[ ${#pysecret} -eq 64 ] && [ "$pysecret" != "$secret" ] && ok || bad "pyguarded got no secret of its own: $out"
pyb serve "$template" --listen "127.0.0.1:$pyport" --referee_secret="$pysecret" \
  >/dev/null 2>"$tmp/pyguarded.log" & pids+=($!)
wait_port "$pyport" || bad "Python guarded bot never opened"
# And with the stdio bridge (the awk template), which then starts no program for a stranger.
stport=$(free_port)
out=$(timeout 30 "$bin/tarock-arena-cli" --arena "127.0.0.1:$sp" bots add stguarded \
      --endpoint="127.0.0.1:$stport" --variants=slovenian-4p --owner=t)
stsecret=$(echo "$out" | awk '/^referee_secret /{print $2}')
[ ${#stsecret} -eq 64 ] && ok || bad "stguarded got no secret: $out"
TAROCK_REFEREE_SECRET=$stsecret "$bin/tarock-stdio-bridge" --listen "127.0.0.1:$stport" \
  -- awk -W interactive -f "$src/sdk/templates/stdio/my_bot.awk" >/dev/null 2>"$tmp/stguarded.log" & pids+=($!)
wait_port "$stport" || bad "stdio guarded bot never opened"
others=()
for name in r1 r2 r3; do
  p=$(free_port); others+=("$p")
  "$bin/tarock-bot-random" --listen "127.0.0.1:$p" >/dev/null 2>&1 & pids+=($!)
  wait_port "$p" || bad "bot port never opened"
  timeout 30 "$bin/tarock-arena-cli" --arena "127.0.0.1:$sp" bots add "$name" \
    --endpoint="127.0.0.1:$p" --variants=slovenian-4p --owner=t >/dev/null || bad "bots add $name"
done
out=$(timeout 120 "$bin/tarock-arena-cli" --arena "127.0.0.1:$sp" --json tournament run \
      --variant=slovenian-4p --bots=guarded,pyguarded,stguarded,r1 --deals=1 --hands=4 --wait 2>&1) \
  && ok || bad "the guarded bots' tournament failed: $out"
echo "$out" | /usr/bin/python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["matches_done"] == 4 and not d.get("matches_failed"), d
' && ok || bad "the guarded bots' matches not all done: $out"
out=$(timeout 30 "$bin/tarock-arena-cli" --arena "127.0.0.1:$sp" --json bots show guarded 2>&1)
echo "$out" | /usr/bin/python3 -c '
import json, sys
d = json.load(sys.stdin)
assert int(d.get("matches", d.get("rating", {}).get("matches", 0)) or 0) >= 0, d
' && ok || bad "bots show guarded: $out"
grep -q "refused" "$tmp/guarded.log" && bad "the guarded bot refused its own arena's referee: $(cat "$tmp/guarded.log")" || ok
grep -q "refused" "$tmp/pyguarded.log" && bad "the Python guarded bot refused its own arena's referee: $(cat "$tmp/pyguarded.log")" || ok
grep -q "refused" "$tmp/stguarded.log" && bad "the stdio guarded bot refused its own arena's referee: $(cat "$tmp/stguarded.log")" || ok
out=$(timeout 60 "$bin/tarock" match --variant slovenian-4p --hands 4 --quiet --json \
      g="127.0.0.1:$port" p="127.0.0.1:$pyport" s="127.0.0.1:$stport" a="127.0.0.1:${others[0]}" 2>&1)
echo "$out" | /usr/bin/python3 -c '
import json, sys
d = json.load(sys.stdin)
for name in ("g", "p", "s"):
    g = [b for b in d["bots"] if b["bot"] == name][0]
    assert g["faults"] > 0 and g["faults"] == g["decisions"], g  # every decision a fault
' && ok || bad "a stranger referee got answers from a guarded bot: $out"
grep -q "refused a stream: the referee presented no proof" "$tmp/guarded.log" && ok \
  || bad "the guarded bot did not say why it refused: $(cat "$tmp/guarded.log")"
grep -q "refused a stream: the referee presented no proof" "$tmp/pyguarded.log" && ok \
  || bad "the Python guarded bot did not say why it refused: $(cat "$tmp/pyguarded.log")"
grep -q "refused a stream: the referee presented no proof" "$tmp/stguarded.log" && ok \
  || bad "the stdio guarded bot did not say why it refused: $(cat "$tmp/stguarded.log")"
grep -q -e "$secret" -e "$pysecret" -e "$stsecret" "$tmp"/*.log && bad "a log shows a referee secret" || ok

# Endpoint policy against request forgery: metadata, link-local and private
# addresses are refused at registration (loopback is allowed only because this
# arena listens on loopback), and nothing is stored.
for endpoint in 169.254.169.254:80 10.0.0.7:7801 "[fe80::1]:7801" 192.168.1.2:7801; do
  expect_error "endpoint $endpoint" "--allow_bot_ranges" timeout 30 "$bin/tarock-arena-cli" \
    --arena "127.0.0.1:$sp" bots add "ssrf$RANDOM" --endpoint="$endpoint" --variants=slovenian-4p --owner=t
done
out=$(timeout 30 "$bin/tarock-arena-cli" --arena "127.0.0.1:$sp" --json bots list --all 2>&1)
case "$out" in *ssrf*) bad "a refused endpoint was stored: $out" ;; *) ok ;; esac

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
