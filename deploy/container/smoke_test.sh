#!/usr/bin/env bash
# Smoke test of the image (deploy/README.md, "What was run here"): every
# program of deploy/container/Dockerfile's runtime stage runs as the image's
# user 10001 with only the image's libraries: the referee, the arena, the
# three reference bots, a Python SDK bot and the stdio bridge answer their
# health checks, and a 3-match slovenian-4p ladder completes.
#
# It needs no OCI runtime (where podman cannot start containers, e.g. crun
# with cgroups in hybrid mode): it chroots into a container's writable mount,
# inside private mount and network namespaces, so nothing reaches the host's
# network. Root only. Usage: smoke_test.sh IMAGE
set -u
img=${1:?usage: smoke_test.sh IMAGE}
[ "$(id -u)" -eq 0 ] || { echo "smoke_test.sh: needs root (podman mount, unshare, chroot)"; exit 1; }
cid=$(podman create "$img" true) || exit 1
cleanup() { podman umount "$cid" >/dev/null 2>&1; podman rm "$cid" >/dev/null 2>&1; }
trap cleanup EXIT
mnt=$(podman mount "$cid") || exit 1
cat > "$mnt/tmp/inside.sh" <<'IN'
set -u
export PATH=/opt/tarock/bin:/usr/bin:/bin PYTHONPATH=/opt/tarock/share/tarock/python HOME=/var/lib/tarock
cd /var/lib/tarock
pids=()
tarock variants | head -2
tarock-referee --listen=127.0.0.1:7701 --metrics_listen=127.0.0.1:9701 >/tmp/ref.log 2>&1 & pids+=($!)
tarock-bot-random --listen=127.0.0.1:7801 >/dev/null 2>&1 & pids+=($!)
tarock-bot-heuristic --listen=127.0.0.1:7802 >/dev/null 2>&1 & pids+=($!)
tarock-bot-search --listen=127.0.0.1:7803 >/dev/null 2>&1 & pids+=($!)
cat > /tmp/pybot.py <<'PY'
from tarock_bot import Bot
class First(Bot):
    def decide(self, s):
        return s.legal[0]
PY
python3 -m tarock_bot serve /tmp/pybot.py --listen 127.0.0.1:7804 >/dev/null 2>/tmp/py.log & pids+=($!)
tarock-stdio-bridge --listen=127.0.0.1:7805 -- /bin/cat >/dev/null 2>&1 & pids+=($!)
sleep 2
tarock-arena --data_dir=/var/lib/tarock/arena-data --listen=127.0.0.1:7700 --http_listen=127.0.0.1:8700 \
  --referees=127.0.0.1:7701 >/tmp/arena.out 2>/tmp/arena.log & pids+=($!)
sleep 2
fail=0
for p in 7701 7700 7801 7802 7803 7804 7805; do
  echo "health $p: $(tarock-health-probe --addr=127.0.0.1:$p 2>&1)" || fail=1
  tarock-health-probe --addr=127.0.0.1:$p >/dev/null 2>&1 || fail=1
done
for b in random:7801 heuristic:7802 search:7803 python:7804; do
  tarock-arena-cli --arena=127.0.0.1:7700 bots add "${b%%:*}" --endpoint="127.0.0.1:${b##*:}" \
    --variants=slovenian-4p --owner=smoke >/dev/null || { echo "bots add $b failed"; fail=1; }
done
tarock-arena-cli --arena=127.0.0.1:7700 ladder start --variant=slovenian-4p --format=match --max_matches=3 --hands=4
for _ in $(seq 60); do tarock-arena-cli --arena=127.0.0.1:7700 status | grep -q "matches done 3" && break; sleep 1; done
tarock-arena-cli --arena=127.0.0.1:7700 status | tee /tmp/status
grep -q "matches done 3  failed 0" /tmp/status || fail=1
tarock-arena-cli --arena=127.0.0.1:7700 leaderboard --variant=slovenian-4p | head -6
echo "running as uid $(id -u)"
for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done; wait
exit $fail
IN
chmod 755 "$mnt/tmp/inside.sh"
timeout 180 unshare -mn bash -c "ip link set lo up; mount -t proc proc '$mnt/proc'; mount --bind /dev '$mnt/dev'; chroot --userspec=10001:10001 '$mnt' /bin/bash /tmp/inside.sh"
rc=$?
echo "smoke_test.sh: exit $rc"
exit $rc
