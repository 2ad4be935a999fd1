# Shared helpers of the shell tests: counters and a check for one-line errors.
# Source it, run checks, then print "$pass passed, $fail failed" and exit on $fail.
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

expect_error() {  # expect_error NAME FRAGMENT COMMAND...
  local name=$1 fragment=$2; shift 2
  local out rc
  out=$("$@" 2>&1 >/dev/null); rc=$?
  if [ $rc -eq 0 ]; then bad "$name: exit 0"; return; fi
  if [ "$(printf '%s\n' "$out" | wc -l)" -ne 1 ]; then bad "$name: error is not one line: $out"; return; fi
  case "$out" in *"$fragment"*) ok ;; *) bad "$name: '$out' lacks '$fragment'" ;; esac
}

# A free TCP port on loopback, and waiting (up to 10 s) until one accepts connections.
free_port() { /usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_port() { for _ in $(seq 100); do (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0; sleep 0.1; done; return 1; }

# kill_tree PID: stops the process and every process under it. A shell
# function started in the background (`in_ns ... &`, `pyb serve ... &`) is a
# subshell whose child survives a plain kill of $!; so the children go first.
# Pure bash over /proc (no procps needed).
kill_tree() {
  local parent=$1 stat s child
  for stat in /proc/[0-9]*/stat; do
    { read -r s <"$stat"; } 2>/dev/null || continue
    child=${stat#/proc/}
    child=${child%/stat}
    s=${s##*) }         # after "PID (COMM) ": STATE PPID ...
    s=${s#* }           # PPID ...
    [ "${s%% *}" = "$parent" ] && kill_tree "$child"
  done
  kill "$parent" 2>/dev/null
}

# A test's or benchmark's scratch folder and processes, for scripts that start
# a referee and an arena (the hosted-bot tests and benchmarks): sets tmp (a
# fresh folder, world-readable for the sandbox's unprivileged user; kept and
# named on exit when KEEP_TMP is set) and pids (append every process started);
# on exit stops them all, and `host_pid` too when the script sets it (a bot
# host it restarts). Needs bin (the build's bin folder).
# The bot host's sandbox needs root (it makes cgroups) and bubblewrap: a test
# of hosted bots says so and is skipped (exit 77, ctest's SKIP_RETURN_CODE) without.
skip_without_sandbox() {
  if [ "$(id -u)" -ne 0 ] || ! command -v bwrap >/dev/null; then
    echo "SKIP: needs root and bwrap"; exit 77
  fi
}

setup_scratch() {
  tmp=$(mktemp -d)
  chmod 755 "$tmp"
  pids=()
  host_pid=
  trap cleanup_scratch EXIT
}
cleanup_scratch() {
  for p in "${pids[@]}" $host_pid; do kill_tree "$p"; wait "$p" 2>/dev/null; done
  if [ -n "${KEEP_TMP:-}" ]; then echo "kept $tmp"; else rm -rf "$tmp"; fi
}
# start_referee: a referee on a free port, rp; fails when it never listens.
start_referee() {
  rp=$(free_port)
  "$bin/tarock-referee" --listen "127.0.0.1:$rp" --metrics_listen= >"$tmp/referee.log" 2>&1 &
  pids+=($!)
  wait_port "$rp"
}
# start_arena [FLAGS...]: an arena on a free port, ap, with the referee at rp
# and its data in $tmp/arena; `cli` is its command line tool. Fails when it
# never says it listens (10 s).
start_arena() {
  ap=$(free_port)
  "$bin/tarock-arena" --data_dir "$tmp/arena" --listen "127.0.0.1:$ap" --referees "127.0.0.1:$rp" \
    "$@" >"$tmp/arena.log" 2>&1 &
  pids+=($!)
  cli="$bin/tarock-arena-cli --arena 127.0.0.1:$ap"
  for _ in $(seq 100); do grep -q "arena listening" "$tmp/arena.log" && return 0; sleep 0.1; done
  return 1
}
# token_of NAME: the token in $tmp/NAME.txt (what `hosts add` or `bots add` printed).
token_of() { awk '/^token/{print $2}' "$tmp/$1.txt"; }
