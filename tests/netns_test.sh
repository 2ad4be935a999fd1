#!/usr/bin/env bash
# Across network namespaces (issue 13): the arena, the referee, the bots and a
# stranger each in their own network namespace with their own address, joined
# through a bridge by veth pairs; every connection TLS (mutual between the arena
# and the referee). A ladder runs to completion; then a plaintext client, a
# client with a certificate of another CA, a bot endpoint in a forbidden range
# and a flood of registrations are each refused as specified, and the refused
# attempts change nothing in the store. Needs root (CI runs as root); otherwise
# it says why and is skipped (exit 77). Everything it creates goes at the end.
# Usage: netns_test.sh SOURCE_DIR BUILD_DIR
set -u
src=$(cd "$1" && pwd)
bin=$(cd "$2/bin" && pwd)
if [ "$(id -u)" -ne 0 ]; then echo "SKIP: network namespaces need root"; exit 77; fi
if ! command -v ip >/dev/null || ! ip netns list >/dev/null 2>&1; then
  echo "SKIP: no 'ip netns' (iproute2) here"; exit 77
fi
tag=$(( $$ % 100000 ))
sw=tsw$tag                                  # the switch: a bridge in its own namespace
names=(arena ref bots stranger)
declare -A ns addr
i=1
for n in "${names[@]}"; do ns[$n]=t${n:0:3}$tag; addr[$n]=10.213.$((tag % 250)).$i; i=$((i + 1)); done
tmp=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill_tree "$p"; wait "$p" 2>/dev/null; done
  for n in "${names[@]}"; do ip netns del "${ns[$n]}" 2>/dev/null; done
  ip netns del "$sw" 2>/dev/null
  rm -rf "$tmp"
}
trap cleanup EXIT
# shellcheck source=tests/testlib.sh
source "$src/tests/testlib.sh"

ip netns add "$sw" || { echo "SKIP: cannot create a network namespace here"; exit 77; }
ip -n "$sw" link add br0 type bridge && ip -n "$sw" link set br0 up || { echo "cannot make the bridge"; exit 1; }
for n in "${names[@]}"; do
  ip netns add "${ns[$n]}" || { echo "cannot create namespace ${ns[$n]}"; exit 1; }
  ip link add "v${n:0:3}$tag" type veth peer name "s${n:0:3}$tag" || { echo "cannot make a veth pair"; exit 1; }
  ip link set "v${n:0:3}$tag" netns "${ns[$n]}"
  ip link set "s${n:0:3}$tag" netns "$sw"
  ip -n "$sw" link set "s${n:0:3}$tag" master br0 up
  ip -n "${ns[$n]}" link set lo up
  ip -n "${ns[$n]}" addr add "${addr[$n]}/24" dev "v${n:0:3}$tag"
  ip -n "${ns[$n]}" link set "v${n:0:3}$tag" up
done
in_ns() { local n=$1; shift; ip netns exec "${ns[$n]}" "$@"; }
# wait_port NS ADDRESS PORT
wait_port() {
  for _ in $(seq 100); do
    in_ns "$1" bash -c "exec 3<>/dev/tcp/$2/$3" 2>/dev/null && return 0; sleep 0.1
  done
  return 1
}
# (every check below crosses namespaces: the first ones fail if they cannot reach each other)

"$src/scripts/dev-certs.sh" "$tmp/certs" "${addr[arena]}" "${addr[ref]}" "${addr[bots]}" >/dev/null \
  || { echo "dev-certs.sh failed"; exit 1; }
c=$tmp/certs
as() { echo "--tls_cert=$c/$1.pem --tls_key=$c/$1.key"; }
A=${addr[arena]} R=${addr[ref]} B=${addr[bots]}

# The referee: matches only from clients its CA signed; bots dialed over TLS;
# it may dial the bots' host and the arena (which relays some seats).
# shellcheck disable=SC2046
in_ns ref "$bin/tarock-referee" --listen "$R:7701" --metrics_listen= $(as referee) \
  --tls_client_ca="$c/ca.pem" --tls_ca="$c/ca.pem" --allow_bot_ranges="$B/32,$A/32" \
  >"$tmp/referee.log" 2>&1 & pids+=($!)
for k in 1 2 3 4; do
  # shellcheck disable=SC2046
  in_ns bots "$bin/tarock-bot-random" --listen "$B:780$k" $(as bot) >/dev/null 2>"$tmp/bot$k.log" & pids+=($!)
done
wait_port ref "$R" 7701 || bad "referee never opened: $(cat "$tmp/referee.log")"
for k in 1 2 3 4; do wait_port bots "$B" "780$k" || bad "bot $k never opened: $(cat "$tmp/bot$k.log")"; done
# The arena: TLS on gRPC and HTTPS; its certificate is its client certificate
# to the referee; bots only on the bots' host; everyone rate limited.
# shellcheck disable=SC2046
TAROCK_ADMIN_TOKEN=netns-admin in_ns arena "$bin/tarock-arena" --referees "$R:7701" --data_dir "$tmp/arena" \
  --listen "$A:7700" --http_listen "$A:8700" $(as arena) --tls_ca="$c/ca.pem" \
  --allow_bot_ranges="$B/32" --rate_limit_exempt= --registrations_per_minute=6 \
  >"$tmp/arena.log" 2>&1 & pids+=($!)
wait_port arena "$A" 7700 || bad "arena never opened: $(cat "$tmp/arena.log")"
grep -q "warning" "$tmp/arena.log" && bad "arena warned: $(cat "$tmp/arena.log")" || ok

# cli_from NS ARGS...: tarock-arena-cli from a namespace; cli: from the stranger's.
cli_from() { local n=$1; shift; in_ns "$n" timeout 30 "$bin/tarock-arena-cli" --arena "$A:7700" "$@"; }
cli() { cli_from stranger "$@"; }
# The owner registers the bots from the bots' host.
for k in 1 2 3 4; do
  cli_from bots --tls_ca="$c/ca.pem" bots add "b$k" --endpoint="$B:780$k" --variants=slovenian-4p --owner=o \
    >/dev/null || bad "bots add b$k over TLS"
done
TAROCK_ADMIN_TOKEN=netns-admin cli --tls_ca="$c/ca.pem" ladder start --variant=slovenian-4p --format=match --max_matches=4 \
  --hands=4 >/dev/null || bad "ladder start over TLS"
done_=0
for _ in $(seq 600); do
  done_=$(cli --tls_ca="$c/ca.pem" --json status | /usr/bin/python3 -c \
    'import json,sys; print(json.load(sys.stdin).get("matches_done", 0))')
  [ "$done_" -ge 4 ] && break; sleep 0.2
done
[ "$done_" -eq 4 ] && ok || bad "the ladder across namespaces did not finish: $done_ matches done"
failed=$(cli --tls_ca="$c/ca.pem" --json status | /usr/bin/python3 -c \
  'import json,sys; print(json.load(sys.stdin).get("matches_failed", 0))')
[ "$failed" -eq 0 ] && ok || bad "$failed matches failed"
lb=$(cli --tls_ca="$c/ca.pem" --json leaderboard --variant=slovenian-4p)
[ "$(echo "$lb" | grep -c '"bot": "b')" -eq 4 ] && ok || bad "the leaderboard lacks the four bots: $lb"
in_ns stranger curl -sf --max-time 10 --cacert "$c/ca.pem" "https://$A:8700/api/status" \
  | grep -q queue_depth && ok || bad "HTTPS from the stranger's namespace failed"

# What the store holds now; the refusals below must not change it (but the
# flood's first registrations, which the limit lets through).
snapshot() { TAROCK_ADMIN_TOKEN=netns-admin cli --tls_ca="$c/ca.pem" --json bots list --all |
             /usr/bin/python3 -c 'import json,sys; print(sorted(b["name"] for b in json.load(sys.stdin).get("bots", [])))'; }
before=$(snapshot)

# A plaintext client: refused by the client itself, and by the server when forced.
out=$(cli status 2>&1) && bad "a plaintext client was let through" || {
  case "$out" in *"refusing to connect in plaintext"*) ok ;; *) bad "plaintext: unclear error: $out" ;; esac; }
out=$(cli --allow_plaintext bots add p1 --endpoint="$B:7801" --variants=slovenian-4p --owner=x 2>&1) \
  && bad "a plaintext client registered a bot" || ok
in_ns stranger curl -sf --max-time 5 "http://$A:8700/api/status" >/dev/null 2>&1 && bad "plain HTTP answered" || ok
# Certificates of another CA: the referee refuses such a client; a client that
# trusts another CA refuses the arena.
# shellcheck disable=SC2046
out=$(in_ns stranger timeout 30 "$bin/tarock" match --variant slovenian-4p --hands 4 --quiet \
      --referee "$R:7701" --tls_ca="$c/ca.pem" $(as stranger) \
      "n=$B:7801" "e=$B:7802" "s=$B:7803" "w=$B:7804" 2>&1) \
  && bad "a client with another CA's certificate ran a match on the referee" || ok
out=$(cli --tls_ca="$c/other-ca.pem" bots add p2 --endpoint="$B:7801" --variants=slovenian-4p --owner=x 2>&1) \
  && bad "a client trusting another CA registered a bot" || ok
# Bot endpoints in forbidden ranges: metadata, link-local, the referee's host,
# loopback (tried from the referee's host, a client of its own, so that the
# stranger's registration budget is left for the flood below).
for endpoint in 169.254.169.254:80 "$R:7701" "[fe80::1]:80" 127.0.0.1:7801; do
  out=$(cli_from ref --tls_ca="$c/ca.pem" bots add evil --endpoint="$endpoint" --variants=slovenian-4p --owner=x 2>&1) \
    && bad "endpoint $endpoint was accepted" || {
    case "$out" in *PERMISSION_DENIED*"--allow_bot_ranges"*) ok ;; *) bad "endpoint $endpoint: unclear: $out" ;; esac; }
done
[ "$(snapshot)" = "$before" ] && ok || bad "a refused attempt changed the store: $before -> $(snapshot)"
# A flood of registrations: the burst (5) passes, the rest is refused.
added=0 refused=0
for k in $(seq 1 15); do
  if cli --tls_ca="$c/ca.pem" bots add "flood$k" --endpoint="$B:7801" --variants=slovenian-4p --owner=f \
       >/dev/null 2>"$tmp/flood.err"; then added=$((added + 1)); else refused=$((refused + 1)); fi
done
[ "$added" -eq 5 ] && [ "$refused" -eq 10 ] && ok || bad "flood: $added added, $refused refused"
grep -q "RESOURCE_EXHAUSTED: too many requests from ${addr[stranger]} (bot registrations)" "$tmp/flood.err" \
  && ok || bad "flood refusal unclear: $(cat "$tmp/flood.err")"
after=$(snapshot)
expected=$(/usr/bin/python3 -c "import ast; print(sorted(ast.literal_eval('''$before''') + ['flood%d' % k for k in range(1, 6)]))")
[ "$after" = "$expected" ] && ok || bad "the store after the flood: $after, expected $expected"
# The audit log saw it all, with the stranger's address.
audit=$(TAROCK_ADMIN_TOKEN=netns-admin cli --tls_ca="$c/ca.pem" --json audit --limit=1000)
echo "$audit" | /usr/bin/python3 -c "
import json, sys
e = json.load(sys.stdin)['entries']
def n(client, outcome):
    return sum(1 for x in e if x['action'] == 'AddBot' and x['client'] == client and x['outcome'] == outcome)
assert n('$B', 'ok') == 4 and n('${addr[stranger]}', 'ok') == 5, e
assert n('$R', 'PERMISSION_DENIED') == 4, e
assert any(x['action'] == 'StartLadder' and x['actor'] == 'admin' and x['client'] == '${addr[stranger]}' for x in e), e
" && ok || bad "the audit log does not match: $audit"

# No secret in any process's output (the admin token, the bots' tokens).
grep -rqs -e netns-admin "$tmp"/*.log && bad "a log shows the admin token" || ok

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
