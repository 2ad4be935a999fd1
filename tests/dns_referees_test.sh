#!/usr/bin/env bash
# Referees found by DNS (issue 15), process level: the arena given
# --referees=dns:///referee.tarock.test:7701 plays a ladder on every address
# the name resolves to, and follows the name as it changes. The name lives in
# /etc/hosts, so the test runs in its own mount and network namespace
# (unshare) with a private hosts file bind-mounted over /etc/hosts, listing
# the name for 127.0.0.2 and 127.0.0.3, where two referees listen; then a
# third address (127.0.0.4, a third referee) is added and gets matches, and
# 127.0.0.2 is removed and gets no new match although its referee still runs.
# Root only (skipped, exit 77, otherwise). Nothing started here outlives the
# test; the namespaces go with it.
# Usage: dns_referees_test.sh SOURCE_DIR BUILD_DIR
set -uo pipefail
src=$(cd "$1" && pwd)
build=$(cd "$2" && pwd)
bin=$build/bin
if [ "$(id -u)" -ne 0 ]; then echo "SKIP: a private /etc/hosts and network namespace need root"; exit 77; fi
if [ "${TAROCK_DNS_TEST_INSIDE:-}" != 1 ]; then
  if ! unshare --mount --net --propagation private true 2>/dev/null; then
    echo "SKIP: cannot create mount and network namespaces here (unshare)"; exit 77
  fi
  TAROCK_DNS_TEST_INSIDE=1 exec unshare --mount --net --propagation private -- bash "$0" "$@"
fi

tmp=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill_tree "$p"; wait "$p" 2>/dev/null; done; rm -rf "$tmp"; }
trap cleanup EXIT
# shellcheck source=tests/testlib.sh
source "$src/tests/testlib.sh"
wait_addr() { for _ in $(seq 100); do (exec 3<>"/dev/tcp/$1/$2") 2>/dev/null && return 0; sleep 0.1; done; return 1; }
# until_true SECONDS COMMAND...: polls the command every 0.2 s.
until_true() {
  local end=$((SECONDS + $1)); shift
  while [ $SECONDS -lt "$end" ]; do "$@" && return 0; sleep 0.2; done; return 1
}

ip link set lo up || { echo "cannot bring up loopback in the new namespace"; exit 1; }
name=referee.tarock.test
hosts=$tmp/hosts
printf '127.0.0.1 localhost\n127.0.0.2 %s\n127.0.0.3 %s\n' "$name" "$name" >"$hosts"
mount --bind "$hosts" /etc/hosts || { echo "cannot bind-mount /etc/hosts"; exit 1; }
# Rewritten in place (the bind mount holds the inode; mv would not show).
set_hosts() { printf '%s\n' "$@" >"$hosts"; }
got=$(getent hosts "$name" | awk '{print $1}' | sort -u | tr '\n' ' ')
[ "$got" = "127.0.0.2 127.0.0.3 " ] && ok || bad "the name resolves to '$got'"

start_referee() {
  "$bin/tarock-referee" --listen "$1:7701" --metrics_listen= >"$tmp/referee-$1.log" 2>&1 &
  pids+=($!)
  wait_addr "$1" 7701 || bad "referee on $1 never listened"
}
start_referee 127.0.0.2
start_referee 127.0.0.3
ap=$(free_port)
"$bin/tarock-arena" --data_dir "$tmp/arena" --listen "127.0.0.1:$ap" --http_listen= \
  --referees "dns:///$name:7701" --referee_resolve_interval=300ms --max_parallel=2 \
  >"$tmp/arena.out" 2>"$tmp/arena.log" & pids+=($!)
wait_port "$ap" || bad "arena never listened"
cli() { timeout 30 "$bin/tarock-arena-cli" --arena "127.0.0.1:$ap" "$@"; }
for i in 1 2 3; do
  p=$(free_port)
  "$bin/tarock-bot-random" --listen "127.0.0.1:$p" >/dev/null 2>&1 & pids+=($!)
  wait_port "$p" || bad "bot $i never listened"
  cli bots add "b$i" --endpoint="127.0.0.1:$p" --variants=slovenian-3p --owner=t >/dev/null \
    || bad "bots add b$i"
done
cli ladder start --variant=slovenian-3p --format=match --hands=3 >/dev/null || bad "ladder start"

# Matches finished on a referee, and matches started on it after line $2 of the log.
finished_on() { grep 'msg="match finished"' "$tmp/arena.log" | grep -c "referee=$1:7701"; }
started_after() { tail -n "+$(($2 + 1))" "$tmp/arena.log" | grep 'msg="match started"' | grep -c "referee=$1:7701"; }
has_finished() { [ "$(finished_on "$1")" -gt 0 ]; }
until_true 60 has_finished 127.0.0.2 && ok || bad "no match finished on 127.0.0.2"
until_true 60 has_finished 127.0.0.3 && ok || bad "no match finished on 127.0.0.3"

# Scaled up: a third referee appears under the name.
start_referee 127.0.0.4
set_hosts "127.0.0.1 localhost" "127.0.0.2 $name" "127.0.0.3 $name" "127.0.0.4 $name"
until_true 60 has_finished 127.0.0.4 && ok || bad "no match finished on 127.0.0.4 after it joined"

# Scaled down: 127.0.0.2 leaves the name (its referee still runs, as a pod
# that is terminating would): from the pool change on, no match starts there.
set_hosts "127.0.0.1 localhost" "127.0.0.3 $name" "127.0.0.4 $name"
left() { grep 'msg="referee pool changed"' "$tmp/arena.log" | grep -q 'left=127.0.0.2:7701'; }
until_true 30 left && ok || bad "the arena never dropped 127.0.0.2"
mark=$(grep -n 'msg="referee pool changed"' "$tmp/arena.log" | grep 'left=127.0.0.2:7701' | tail -1 | cut -d: -f1)
mark=${mark:-0}
more() { [ $(( $(started_after 127.0.0.3 "$mark") + $(started_after 127.0.0.4 "$mark") )) -ge 6 ]; }
until_true 60 more && ok || bad "fewer than 6 matches started after the pool change"
n=$(started_after 127.0.0.2 "$mark")
[ "$n" -eq 0 ] && ok || bad "$n matches started on 127.0.0.2 after it left the name"
out=$(cli status 2>&1)
case "$out" in *"referees 2/2 available"*) ok ;; *) bad "status: $out" ;; esac
failed=$(grep -c 'msg="match failed"' "$tmp/arena.log")
[ "$failed" -eq 0 ] && ok || bad "$failed matches failed"
cli ladder stop --variant=slovenian-3p >/dev/null || bad "ladder stop"

echo "matches finished: 127.0.0.2 $(finished_on 127.0.0.2), 127.0.0.3 $(finished_on 127.0.0.3), 127.0.0.4 $(finished_on 127.0.0.4)"
[ "$fail" -eq 0 ] || { echo "--- arena log (last 40 lines)"; tail -40 "$tmp/arena.log"; }
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
