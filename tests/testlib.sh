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
