#!/usr/bin/env bash
# Run by tests/cgroup_v2_test.sh inside user-mode Linux (cgroup v2 only): a
# referee, an arena, a bot host started as a delegated systemd service would
# be (in its own cgroup, --cgroup_own), and a ladder of a hosted Python
# template, a hosted awk template, a hosted bot that allocates 1 GiB, and a
# reference bot. Prints "ok: ..." and "FAIL: ..." lines and a last line
# "N passed, M failed"; the caller reads them.
# Usage: cgroup_v2_ladder.sh SOURCE_DIR BUILD_DIR
set -uo pipefail
src=$(cd "$1" && pwd)
build=$(cd "$2" && pwd)
bin=$build/bin
# shellcheck source=tests/testlib.sh
source "$src/tests/testlib.sh"
setup_scratch

start_referee || bad "referee never listened"
# The guest runs several times slower than the machine: a host's account of a
# seat whose bot was killed can take longer than the default 10 s there.
start_arena --http_listen= --host_account_wait_s 60 || bad "arena never listened"
$cli hosts add v2host >"$tmp/host.txt" || bad "hosts add"
for b in pyb awkb hog; do
  $cli bots add "$b" --hosted --variants slovenian-4p --owner "owner-$b" >"$tmp/$b.txt" || bad "bots add $b"
done
mkdir -p "$tmp/host"
cg=/sys/fs/cgroup
mkdir -p $cg/system.slice/v2host.service
TAROCK_HOST_TOKEN=$(token_of host) sh -c "echo \$\$ >$cg/system.slice/v2host.service/cgroup.procs &&
  exec $bin/tarock-bothost --arena 127.0.0.1:$ap --name v2host --work_dir $tmp/host --cgroup_own \
    --check_timeout_s 120" >"$tmp/host.log" 2>&1 &
pids+=($!)
# The hog's 1 GiB is filled by the kernel in one call (MAP_POPULATE): touched
# page by page, the guest's page faults (each a round trip between the guest's
# processes) took 9 to 24 s to reach the 512 MiB limit on a busy machine, past
# the 20 s a decision has, and the faults read "no answer", not out of memory.
# Populated, the run is killed in 0.5 to 1.5 s.
printf 'import mmap\n\ndef decide(s):\n    m = mmap.mmap(-1, 1 << 30, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS | mmap.MAP_POPULATE)\n    return s.legal[0]\n' >"$tmp/hog.py"
$cli bots upload pyb --token "$(token_of pyb)" "$src/sdk/templates/python/my_bot.py" >/dev/null || bad "upload python"
$cli bots upload awkb --token "$(token_of awkb)" "$src/sdk/templates/stdio/my_bot.awk" >/dev/null || bad "upload awk"
$cli bots upload hog --token "$(token_of hog)" "$tmp/hog.py" >/dev/null || bad "upload hog"
for _ in $(seq 600); do [ "$($cli bots list | grep -c online)" -ge 3 ] && break; sleep 0.5; done
[ "$($cli bots list | grep -c online)" -ge 3 ] && ok ||
  bad "the hosted bots are not online: $($cli bots list) $(tail -5 "$tmp/host.log")"
grep -q "cgroup v2 under $cg/system.slice/v2host.service/tarock-bothost" "$tmp/host.log" && ok ||
  bad "the host's sandbox is not on v2 in its own subtree: $(head -3 "$tmp/host.log")"
"$bin/tarock-bot-random" --listen 127.0.0.1:0 >"$tmp/rnd.log" 2>&1 & pids+=($!)
for _ in $(seq 100); do grep -q listening "$tmp/rnd.log" && break; sleep 0.2; done
$cli bots add rnd --endpoint "$(awk '{print $4}' "$tmp/rnd.log")" --variants slovenian-4p --owner ref >/dev/null

$cli ladder start --variant slovenian-4p --format match --max_matches 2 --hands 4 --per_decision_ms 20000 >/dev/null || bad "ladder start"
for _ in $(seq 400); do $cli ladder list | grep -q "^ladder 1 .*stopped" && break; sleep 0.5; done
$cli ladder list | grep -q "^ladder 1 .*stopped" && ok || bad "the ladder did not end: $($cli status)"
$cli matches --limit 20 >"$tmp/matches.txt"
done_matches=$(awk '$3 == "done" || $4 == "done"' "$tmp/matches.txt" | wc -l)
[ "$done_matches" -ge 2 ] && ok || bad "fewer than 2 matches done: $(cat "$tmp/matches.txt")"
# Faults per bot (column 9 of a seat line).
faults() { awk -v b="$1" '$1 == "seat" && $3 == b {f += $9} END {print f + 0}' "$tmp/matches.txt"; }
for b in pyb awkb rnd; do
  [ "$(faults "$b")" -eq 0 ] && ok || bad "$b has $(faults "$b") faults on cgroup v2"
done
[ "$(faults hog)" -gt 0 ] && ok || bad "the 1 GiB bot has no fault"
$cli export --variant slovenian-4p >"$tmp/records.jsonl"
grep -q "out of memory (limit 512 MiB)" "$tmp/records.jsonl" && ok ||
  bad "no fault names out of memory: $(grep -o '"detail":"[^"]*"' "$tmp/records.jsonl" | sort | uniq -c | head -5)"
kill -0 "${pids[2]}" 2>/dev/null && ok || bad "the host died: $(tail -5 "$tmp/host.log")"
echo "$pass passed, $fail failed"
