#!/usr/bin/env bash
# Hostile uploads against a real arena and bot host (issue 44: High 3 and 5,
# Low "seat logs"), real processes on loopback. Checks:
#  - a zip with the C++ template and a plain file `.build` is refused at upload
#    with one line; stored anyway (as an arena before the fix accepted it,
#    written into its database), the host survives it: that version fails
#    with the reason in its build log and a good bot of another owner plays on;
#  - a spare of an upload that spins at import uses no CPU before a seat (the
#    spare's sandbox is made, its program held at exec);
#  - six checks uploaded at once run at most --max_builds (2) at a time, and
#    at most --max_builds_per_owner (1) of one owner's;
#  - each process run of a hosted bot has a log file of its own
#    (logs/BOT/vID-...), and a retired bot's version and logs leave the host.
# Needs root (the sandbox makes cgroups) and bwrap: skipped (exit 77) without.
# Usage: hosted_hostile_test.sh SOURCE_DIR BUILD_DIR
set -uo pipefail
src=$(cd "$1" && pwd)
build=$(cd "$2" && pwd)
bin=$build/bin
# shellcheck source=tests/testlib.sh
source "$src/tests/testlib.sh"
setup_scratch

skip_without_sandbox

start_referee || { bad "referee never listened"; exit 1; }
hp=$(free_port)
start_arena --http_listen "127.0.0.1:$hp" --host_lease_s 4 || { bad "arena never listened"; exit 1; }
$cli hosts add host1 >"$tmp/host.txt" || bad "hosts add"
$cli bots add good --hosted --variants slovenian-4p --owner owner-good >"$tmp/good.txt" || bad "bots add good"
$cli bots add boom --hosted --variants slovenian-4p --owner owner-boom >"$tmp/boom.txt" || bad "bots add boom"
$cli bots add spin --hosted --variants slovenian-4p --owner owner-spin >"$tmp/spin.txt" || bad "bots add spin"
for q in q1 q2 q3 q4 q5 q6; do
  owner=owner-$q; case $q in q1|q2|q3) owner=owner-q ;; esac
  $cli bots add "$q" --hosted --variants slovenian-4p --owner "$owner" >"$tmp/$q.txt" || bad "bots add $q"
done

# --- The .build zip: refused at upload, with one line.
/usr/bin/python3 - "$tmp" "$src/sdk/templates/cpp/my_bot.cc" <<'EOF'
import sys, zipfile
d, cc = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(f"{d}/boom.zip", "w") as z:
    z.write(cc, "my_bot.cc")
    z.writestr(".build", "not a folder\n")
with zipfile.ZipFile(f"{d}/fine.zip", "w") as z:
    z.write(cc, "my_bot.cc")
EOF
out=$($cli bots upload boom --token "$(token_of boom)" "$tmp/boom.zip" 2>&1) && bad "the .build zip was accepted"
[ "$(printf '%s\n' "$out" | wc -l)" -eq 1 ] && ok || bad "refusal not one line: $out"
case "$out" in *".build"*) ok ;; *) bad "the refusal does not name .build: $out" ;; esac
# Stored anyway, as an arena before the fix stored it: a fine upload's row
# gets the hostile zip's content.
$cli bots upload boom --token "$(token_of boom)" "$tmp/fine.zip" >/dev/null || bad "upload fine.zip"
db=$(ls "$tmp"/arena/*.db "$tmp"/arena/*.sqlite* 2>/dev/null | head -1)
/usr/bin/python3 - "$db" "$tmp/boom.zip" <<'EOF' || bad "cannot store the hostile zip in the arena's database"
import base64, hashlib, sqlite3, sys
db, path = sys.argv[1], sys.argv[2]
data = open(path, "rb").read()
c = sqlite3.connect(db, timeout=30)
n = c.execute("UPDATE bot_versions SET content = ?, sha256 = ?, size = ? WHERE bot_id = "
              "(SELECT id FROM bots WHERE name = 'boom')",
              (base64.b64encode(data).decode(), hashlib.sha256(data).hexdigest(), len(data))).rowcount
c.commit()
sys.exit(0 if n == 1 else 1)
EOF

# --- The host, and the good and spinning uploads.
mkdir -p "$tmp/host"
cmake --install "$build" --prefix "$tmp/sdk" >"$tmp/install.log" 2>&1 || bad "cmake --install: $(tail -3 "$tmp/install.log")"
TAROCK_HOST_TOKEN=$(token_of host) "$bin/tarock-bothost" --arena "127.0.0.1:$ap" --name host1 \
  --work_dir "$tmp/host" --cpp_sdk "$tmp/sdk" --check_timeout_s 30 --spares 2 \
  --max_builds 2 --max_builds_per_owner 1 >>"$tmp/host.log" 2>&1 &
host_pid=$!
pids+=("$host_pid")
$cli bots upload good --token "$(token_of good)" "$src/sdk/templates/python/my_bot.py" >/dev/null || bad "upload good"
marker=spin_$$_$RANDOM
{  # (at the end: the template opens with a __future__ import)
  cat "$src/sdk/templates/python/my_bot.py"
  printf '\nimport sys\nif sys.argv[0] != "-c":  # not the build check: spin at import\n    while True:\n        pass\n'
} >"$tmp/$marker.py"
$cli bots upload spin --token "$(token_of spin)" "$tmp/$marker.py" >/dev/null || bad "upload spin"
status_of() { $cli bots versions "$1" | head -1; }
for _ in $(seq 600); do
  status_of boom | grep -q " failed " && status_of good | grep -q " ready " &&
    status_of spin | grep -q " ready " && break
  kill -0 "$host_pid" 2>/dev/null || break
  sleep 0.2
done
kill -0 "$host_pid" 2>/dev/null && ok || bad "the host died on the .build upload: $(tail -5 "$tmp/host.log")"
status_of boom | grep -q " failed " && ok || bad "the .build version is not failed: $(status_of boom)"
$cli bots versions boom --token "$(token_of boom)" | grep -q "\.build" && ok ||
  bad "the .build version's log lacks its reason: $($cli bots versions boom --token "$(token_of boom)" | head -5)"
status_of good | grep -q " ready " && ok || bad "the good bot is not ready: $(status_of good)"
status_of spin | grep -q " ready " && ok || bad "the spinning bot is not ready: $(status_of spin)"

# --- The spinning bot's spares: no CPU before a seat.
cpu_of_marker() {  # clock ticks of every process whose command line names the marker
  local t=0 p f
  for p in /proc/[0-9]*; do
    { tr '\0' ' ' <"$p/cmdline"; } 2>/dev/null | grep -q "$marker" || continue
    f=$(sed 's/.*) //' "$p/stat" 2>/dev/null) || continue
    t=$((t + $(echo "$f" | awk '{print $12 + $13}')))
  done
  echo "$t"
}
for _ in $(seq 100); do [ "$(pgrep -fc "$marker")" -ge 2 ] && break; sleep 0.1; done
[ "$(pgrep -fc "$marker")" -ge 2 ] && ok || bad "no spare of the spinning bot was made"
before=$(cpu_of_marker); sleep 3; after=$(cpu_of_marker)
used=$((after - before))
hz=$(getconf CLK_TCK)
[ "$used" -lt $((hz / 5)) ] && ok ||
  bad "the spinning bot's spares used $used clock ticks ($hz a second) in 3 s without a seat"
spin_id=$(status_of spin | awk '{print $2}' | tr -dc 0-9)
[ -d "$tmp/host/versions/$spin_id" ] && ok || bad "no versions/$spin_id on the host"
$cli bots retire spin --token "$(token_of spin)" >/dev/null || bad "retire spin"

# --- Six checks at once: queued to the caps.
for q in q1 q2 q3 q4 q5 q6; do
  {
    cat "$src/sdk/templates/python/my_bot.py"
    printf '\nimport sys, time\nif sys.argv[0] == "-c":  # the build check: slow\n    time.sleep(3)\n'
  } >"$tmp/slow_$q.py"
done
sampler() {  # the most checks at once, and of owner-q's (q1-q3) at once
  local most=0 most_q=0 n nq
  while [ -e "$tmp/sampling" ]; do
    n=$(pgrep -fc "^/usr/bin/python3 -c .*load_module.*/bot/slow_q")
    nq=$(pgrep -fc "^/usr/bin/python3 -c .*load_module.*/bot/slow_q[123]")
    [ "$n" -gt "$most" ] && most=$n
    [ "$nq" -gt "$most_q" ] && most_q=$nq
    sleep 0.05
  done
  echo "$most $most_q" >"$tmp/most"
}
touch "$tmp/sampling"; sampler & sampler_pid=$!
for q in q1 q2 q3 q4 q5 q6; do
  $cli bots upload "$q" --token "$(token_of "$q")" "$tmp/slow_$q.py" >/dev/null || bad "upload $q"
done
for _ in $(seq 900); do
  n=0; for q in q1 q2 q3 q4 q5 q6; do status_of "$q" | grep -q " ready " && n=$((n + 1)); done
  [ "$n" -eq 6 ] && break; sleep 0.2
done
rm -f "$tmp/sampling"; wait "$sampler_pid"
[ "$n" -eq 6 ] && ok || bad "only $n of 6 slow checks ready"
read -r most most_q <"$tmp/most"
[ "$most" -ge 1 ] && [ "$most" -le 2 ] && ok || bad "$most checks ran at once (cap 2)"
[ "$most_q" -le 1 ] && ok || bad "$most_q checks of one owner ran at once (cap 1)"
grep -q "build starts: .*(2 of 2 running on this host" "$tmp/host.log" && ok ||
  bad "the host never ran 2 builds at once: $(grep 'build starts' "$tmp/host.log" | head -8)"
for q in q1 q2 q3 q4 q5 q6; do $cli bots retire "$q" --token "$(token_of "$q")" >/dev/null; done

# --- The good bot plays beside the failed one; each run has its own log.
"$bin/tarock-bot-random" --listen 127.0.0.1:0 >"$tmp/r1.log" 2>&1 & pids+=($!)
"$bin/tarock-bot-random" --listen 127.0.0.1:0 >"$tmp/r2.log" 2>&1 & pids+=($!)
"$bin/tarock-bot-heuristic" --listen 127.0.0.1:0 >"$tmp/h.log" 2>&1 & pids+=($!)
for _ in $(seq 100); do grep -q listening "$tmp/r1.log" && grep -q listening "$tmp/r2.log" && grep -q listening "$tmp/h.log" && break; sleep 0.1; done
$cli bots add r1 --endpoint "$(awk '{print $4}' "$tmp/r1.log")" --variants slovenian-4p --owner ref >/dev/null
$cli bots add r2 --endpoint "$(awk '{print $4}' "$tmp/r2.log")" --variants slovenian-4p --owner ref >/dev/null
$cli bots add h --endpoint "$(awk '{print $4}' "$tmp/h.log")" --variants slovenian-4p --owner ref >/dev/null
for _ in $(seq 100); do $cli bots list | grep "^good" | grep -q online && break; sleep 0.1; done
$cli ladder start --variant slovenian-4p --format match --max_matches 2 --hands 4 >/dev/null || bad "ladder start"
for _ in $(seq 900); do $cli ladder list | grep -q "^ladder 1 .*stopped" && break; sleep 0.2; done
$cli ladder stop --variant slovenian-4p >/dev/null 2>&1
good_seats=$($cli matches --limit 100 | awk '$1 == "seat" && $3 == "good"' | wc -l)
good_faults=$($cli matches --limit 100 | awk '$1 == "seat" && $3 == "good" {f += $9} END {print f + 0}')
[ "$good_seats" -ge 2 ] && ok || bad "the good bot played $good_seats seats: $($cli matches --limit 10)"
[ "$good_faults" -eq 0 ] && ok || bad "the good bot has $good_faults faults"
kill -0 "$host_pid" 2>/dev/null && ok || bad "the host died"
good_id=$(status_of good | awk '{print $2}' | tr -dc 0-9)
ls "$tmp/host/logs/good" >"$tmp/good-logs.txt"
grep -qv "^v$good_id-" "$tmp/good-logs.txt" && bad "seat logs not named vID-...: $(head -3 "$tmp/good-logs.txt")" || ok
# One file per process run: the seats' runs and the spares made since.
runs=$(find "$tmp/host/logs/good" -name "v$good_id-*.log" | wc -l)
[ "$runs" -ge $((good_seats + 2)) ] && ok ||
  bad "$runs run log files for $good_seats seats and 2 spares: $(ls -l "$tmp/host/logs/good")"
# A retired bot's version and logs leave the host (at a sync, every 2 s).
for _ in $(seq 100); do [ ! -e "$tmp/host/versions/$spin_id" ] && [ ! -e "$tmp/host/logs/spin" ] && break; sleep 0.1; done
[ ! -e "$tmp/host/versions/$spin_id" ] && ok || bad "the retired bot's version is still on the host"
[ ! -e "$tmp/host/logs/spin" ] && ok || bad "the retired bot's logs are still on the host"
[ -d "$tmp/host/versions/$good_id" ] && ok || bad "the good bot's version was deleted"

echo "hosted_hostile: $pass ok, $fail failed"
[ "$fail" -eq 0 ]
