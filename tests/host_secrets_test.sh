#!/usr/bin/env bash
# The bot host's secrets and the sandbox's view (issue 44), real processes on
# loopback: a referee, an arena, a bot host started as an operator would
# (the host token and an admin token in its environment, a descriptor of a
# secret file left open), and a hostile Python upload whose module-level code
# runs at the host's build check, where its standard error comes back to the
# uploader in the build log. Checks:
#  - the log holds none of the host's secrets: not the host token, not the
#    admin token, not the open file's content or path, nothing of
#    /proc/*/environ or /proc/1/cmdline but the sandbox's own (PID 1 is the
#    build's own program); /proc/self/fd holds 0, 1, 2 only;
#  - io_uring is refused, /dev/shm and /dev are not writable, /usr/local is
#    empty, the loopback is down;
#  - /proc/meminfo, /proc/loadavg, /proc/stat are the same before and after
#    32 MiB written to /tmp (the host's counters would move), /proc/pressure
#    and /proc/sys/fs hold nothing, sysinfo and statfs are refused;
#  - the host's own /proc/PID/environ and cmdline no longer hold the token;
#  - another host's token: HostSync gives it nothing, FetchVersion of the bot
#    and the gateway's door as that hosted bot are refused;
#  - SIGTERM ends tarock-bothost within 2 s, even in the middle of a check
#    that would take 60 s.
# Needs root (the sandbox makes cgroups) and bwrap: skipped (exit 77) without.
# Usage: host_secrets_test.sh SOURCE_DIR BUILD_DIR
set -uo pipefail
src=$(cd "$1" && pwd)
build=$(cd "$2" && pwd)
bin=$build/bin
# shellcheck source=tests/testlib.sh
source "$src/tests/testlib.sh"
setup_scratch
pass=0 fail=0

skip_without_sandbox

start_referee || bad "referee never listened"
start_arena || bad "arena never listened"
$cli hosts add host1 >"$tmp/host.txt" || bad "hosts add host1"
$cli hosts add host2 >"$tmp/host2.txt" || bad "hosts add host2"
$cli bots add spy --hosted --variants slovenian-4p --owner spy-owner >"$tmp/spy.txt" || bad "bots add spy"
host_token=$(token_of host)
admin_marker="admin-secret-$RANDOM$RANDOM$RANDOM"
file_marker="open-file-secret-$RANDOM$RANDOM"
printf '%s\n' "$file_marker" >"$tmp/operator-secret.txt"
chmod 644 "$tmp/operator-secret.txt"   # readable to anyone who has the descriptor or the path

mkdir -p "$tmp/host"
start_host() {  # the token in the environment, as the deployments used to give it
  TAROCK_HOST_TOKEN=$host_token TAROCK_ADMIN_TOKEN=$admin_marker \
    "$bin/tarock-bothost" --arena "127.0.0.1:$ap" --name host1 --work_dir "$tmp/host" \
    --check_timeout_s 60 --spares 0 7<"$tmp/operator-secret.txt" >>"$tmp/host.log" 2>&1 &
  host_pid=$!
}
start_host

cat >"$tmp/spy.py" <<'EOF'
# Module-level code: runs in the host's build check; its standard error is
# the build log its uploader reads.
import ctypes, os, sys

def say(*a):
    print("SPY", *a, file=sys.stderr, flush=True)

def read(path, n=65536):
    try:
        with open(path, "rb") as f:
            return f.read(n).replace(b"\0", b" ").decode("utf-8", "replace")
    except OSError as e:
        return "<%s>" % e.strerror

for pid in sorted(p for p in os.listdir("/proc") if p.isdigit()):
    say("pid", pid, "environ", repr(read("/proc/%s/environ" % pid)))
    say("pid", pid, "cmdline", repr(read("/proc/%s/cmdline" % pid)))
say("pid1-is-me", os.getpid() == 1 or os.getppid() == 1)
fds = sorted(int(f) for f in os.listdir("/proc/self/fd"))
say("fds", fds)
for fd in fds:
    if fd > 2:
        try:
            say("fd", fd, os.readlink("/proc/self/fd/%d" % fd), repr(os.pread(fd, 200, 0)))
        except OSError as e:
            say("fd", fd, "unreadable", e.strerror)
libc = ctypes.CDLL(None, use_errno=True)
params = ctypes.create_string_buffer(120)
r = libc.syscall(425, 8, params)  # io_uring_setup
say("io_uring", r, ctypes.get_errno())
info = ctypes.create_string_buffer(128)
r = libc.syscall(99, info)  # sysinfo
say("sysinfo", r, ctypes.get_errno())
try:
    os.statvfs("/usr")
    say("statfs allowed")
except OSError as e:
    say("statfs refused", e.errno)
for path in ("/dev/shm/x", "/dev/x", "/usr/local/x"):
    try:
        with open(path, "wb") as f:
            f.write(b"x" * 4096)
        say("wrote", path)
    except OSError as e:
        say("cannot write", path, e.errno)
say("usr-local", os.listdir("/usr/local") if os.path.isdir("/usr/local") else "absent")
import fcntl, socket, struct
try:  # SIOCGIFFLAGS works on any socket, an AF_UNIX one included
    flags = struct.unpack("16sH", fcntl.ioctl(socket.socket(socket.AF_UNIX), 0x8913,
                                              struct.pack("16sH14s", b"lo", 0, b""))[:18])[1]
    say("loopback", "up" if flags & 1 else "down")
except OSError as e:
    say("loopback", "unknown", e.errno)
say("fd2", os.readlink("/proc/self/fd/2"))
try:  # a lock on a file of /bot, which every run of this version sees
    fcntl.flock(open("/bot/" + sorted(f for f in os.listdir("/bot") if f.endswith(".py"))[0], "rb"),
                fcntl.LOCK_SH)
    say("flock held")
except OSError as e:
    say("flock refused", e.errno)
try:
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    say("inet socket made")
except OSError as e:
    say("no inet socket", e.errno)
before = [read(p) for p in ("/proc/meminfo", "/proc/loadavg", "/proc/stat")]
with open("/tmp/fill", "wb") as f:
    for _ in range(32):
        f.write(b"\1" * (1 << 20))
    f.flush()
    os.fsync(f.fileno())
x = 0
for i in range(3000000):
    x += i  # a moment of CPU
after = [read(p) for p in ("/proc/meminfo", "/proc/loadavg", "/proc/stat")]
say("counters-same", before == after)
say("shmem", [l for l in after[0].splitlines() if l.startswith("Shmem:")])
say("pressure", os.listdir("/proc/pressure") if os.path.isdir("/proc/pressure") else "absent")
say("file-nr", repr(read("/proc/sys/fs/file-nr")))
say("PROBES-DONE")

from tarock_bot import Bot, Situation


class Spy(Bot):
    name = "spy"

    def decide(self, s: Situation) -> str:
        return s.legal[0]
EOF
$cli bots upload spy --token "$(token_of spy)" "$tmp/spy.py" >/dev/null || bad "upload spy"
for _ in $(seq 300); do $cli bots versions spy | head -1 | grep -Eq " (ready|failed) " && break; sleep 0.2; done
$cli bots versions spy --token "$(token_of spy)" >"$tmp/spy-versions.txt" 2>&1
log=$tmp/spy-versions.txt
grep -q "PROBES-DONE" "$log" && ok || bad "the spy's probes did not all run: $(cat "$log"; tail -5 "$tmp/host.log")"
grep -q " ready " "$log" && ok || bad "the spy's version is not ready: $(head -3 "$log")"
for secret in "$host_token" "$admin_marker" "$file_marker" "TAROCK_HOST_TOKEN" "TAROCK_ADMIN_TOKEN" \
              "operator-secret" "bwrap" "tarock-bothost"; do
  grep -qF -- "$secret" "$log" && bad "the build log shows '$secret': $(grep -F -- "$secret" "$log" | head -3)" || ok
done
grep -q "SPY pid1-is-me True" "$log" && ok || bad "PID 1 is not the sandbox's own program: $(grep 'pid 1 ' "$log")"
# 0, 1, 2 and (3) the listing's own descriptor, which is closed when it is read.
grep -q "SPY fds \[0, 1, 2\(, 3\)\?\]" "$log" && ! grep -q "SPY fd [3-9][0-9]* /" "$log" && ok ||
  bad "descriptors beyond 0-2: $(grep 'SPY fd' "$log")"
grep -q "SPY io_uring -1 38" "$log" && ok || bad "io_uring not refused: $(grep 'SPY io_uring' "$log")"
grep -q "SPY sysinfo -1 38" "$log" && ok || bad "sysinfo not refused: $(grep 'SPY sysinfo' "$log")"
grep -q "SPY statfs refused" "$log" && ok || bad "statfs not refused: $(grep 'SPY statfs' "$log")"
for path in /dev/shm/x /dev/x /usr/local/x; do
  grep -q "SPY cannot write $path" "$log" && ok || bad "$path writable: $(grep "$path" "$log")"
done
grep -q "SPY usr-local \[\]" "$log" && ok || bad "/usr/local not empty: $(grep 'usr-local' "$log")"
grep -q "SPY no inet socket" "$log" && ok || bad "an AF_INET socket was made"
grep -q "SPY counters-same True" "$log" && ok || bad "/proc counters moved with the sandbox's writes: $(grep 'SPY shmem' "$log")"
grep -q "SPY pressure \[\]\|SPY pressure absent" "$log" && ok || bad "/proc/pressure visible: $(grep 'SPY pressure' "$log")"
grep -q "SPY file-nr '<No such file or directory>'" "$log" && ok || bad "/proc/sys/fs/file-nr visible: $(grep 'file-nr' "$log")"
grep -q "SPY loopback down" "$log" && ok || bad "loopback: $(grep 'SPY loopback' "$log")"
# Its standard error names no path of the host (the build log's did), and locks are refused.
grep -q "SPY fd2 /memfd:stderr" "$log" && ! grep "SPY fd2" "$log" | grep -qF "$tmp" && ok ||
  bad "/proc/self/fd/2 names a host path: $(grep 'SPY fd2' "$log")"
grep -q "SPY flock refused 38" "$log" && ok || bad "flock not refused: $(grep 'SPY flock' "$log")"

# The host's own process: the token is gone from its environment and command line.
tr '\0' '\n' <"/proc/$host_pid/environ" | grep -qF -- "$host_token" && bad "the host's environ holds its token" || ok
tr '\0' ' ' <"/proc/$host_pid/cmdline" | grep -qF -- "$host_token" && bad "the host's cmdline holds its token" || ok

# Another host's token: nothing of host1's bot.
PYTHONPATH=$build/python /usr/bin/python3 - "127.0.0.1:$ap" "$(token_of host2)" "$(token_of host)" >"$tmp/scope.txt" 2>&1 <<'EOF'
import sys, grpc
from tarock_bot._generated import hosting_pb2 as h, gateway_pb2 as gw, tarock_pb2 as pb
addr, other, mine = sys.argv[1:]
ch = grpc.insecure_channel(addr)
def unary(name, req, resp):
    return ch.unary_unary("/tarock.v1.Hosting/" + name, request_serializer=req.SerializeToString,
                          response_deserializer=resp.FromString)
sync = unary("HostSync", h.HostSyncRequest, h.HostSyncResponse)
fetch = unary("FetchVersion", h.FetchVersionRequest, h.VersionContent)
held = sync(h.HostSyncRequest(host="host2"), metadata=[("authorization", "Bearer " + other)])
print("host2 holds", [b.bot for b in held.bots])
ids = [b.version.id for b in sync(h.HostSyncRequest(host="host1"), metadata=[("authorization", "Bearer " + mine)]).bots]
print("host1 versions", ids)
for vid in ids + [1, 2, 3]:
    try:
        fetch(h.FetchVersionRequest(id=vid), metadata=[("authorization", "Bearer " + other)])
        print("FETCHED", vid)
    except grpc.RpcError as e:
        print("fetch", vid, e.code().name)
connect = ch.stream_stream("/tarock.v1.BotGateway/Connect", request_serializer=gw.BotUplink.SerializeToString,
                           response_deserializer=gw.ArenaDownlink.FromString)
def up():
    yield gw.BotUplink(hello=pb.Hello(name="spy"))
try:
    for down in connect(up(), metadata=[("authorization", "Bearer " + other), ("x-tarock-hosted-bot", "spy")],
                        timeout=10):
        print("DOWNLINK", down.WhichOneof("message"))
        break
except grpc.RpcError as e:
    print("connect", e.code().name)
EOF
grep -q "^host2 holds \[\]" "$tmp/scope.txt" && ok || bad "host2 took host1's bot: $(cat "$tmp/scope.txt")"
grep -q "FETCHED\|DOWNLINK" "$tmp/scope.txt" && bad "host2's token obtained host1's bot: $(cat "$tmp/scope.txt")" || ok
grep -q "^fetch .* PERMISSION_DENIED" "$tmp/scope.txt" && ok || bad "fetch: $(cat "$tmp/scope.txt")"
grep -q "^connect FAILED_PRECONDITION" "$tmp/scope.txt" && ok || bad "connect: $(cat "$tmp/scope.txt")"

# SIGTERM in the middle of a 60-s check: the host ends within 2 s.
printf 'import time\ntime.sleep(60)\n' >"$tmp/slow.py"
$cli bots upload spy --token "$(token_of spy)" "$tmp/slow.py" >/dev/null || bad "upload slow"
for _ in $(seq 100); do grep -q "run-$host_pid-" <(ls /sys/fs/cgroup/tarock-bothost /sys/fs/cgroup/memory/tarock-bothost 2>/dev/null) && break; sleep 0.1; done
sleep 1
start=$(date +%s%N)
kill -TERM "$host_pid"
for _ in $(seq 40); do kill -0 "$host_pid" 2>/dev/null || break; sleep 0.05; done
wait "$host_pid" 2>/dev/null
ms=$(( ($(date +%s%N) - start) / 1000000 ))
kill -0 "$host_pid" 2>/dev/null && bad "SIGTERM did not end the host in 2 s" || ok
[ "$ms" -le 2100 ] && ok || bad "the host took $ms ms to end after SIGTERM"
echo "host_secrets_test: the host ended $ms ms after SIGTERM"
host_pid=

echo "host_secrets_test: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
