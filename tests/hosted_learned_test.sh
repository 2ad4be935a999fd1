#!/usr/bin/env bash
# The learned bot hosted (issue 46, bots/learned/README.md, docs/hosting.md),
# real processes on loopback: a referee, an arena, a bot host and three
# heuristic bots. Checks:
#  - the folder bots/learned uploads as it is (`bots upload NAME bots/learned`:
#    its tarock.json names the entry, the weights ride along, the whole under
#    the arena's default --max_upload_bytes), the host's check imports it in
#    the sandbox (numpy, tarock_engine, the model loaded) and it is ready;
#  - it plays a ladder match against the heuristic bots, 0 faults, and each of
#    its sandboxed processes loaded the model at start (the seat's log says
#    so, with its load time: part of the process's start);
#  - the same folder with its weights file broken fails its check, the
#    model's error in the build log, and never plays.
# Needs root (the sandbox makes cgroups) and bwrap: skipped (exit 77) without.
# Usage: hosted_learned_test.sh SOURCE_DIR BUILD_DIR
set -uo pipefail
src=$(cd "$1" && pwd)
build=$(cd "$2" && pwd)
bin=$build/bin
# shellcheck source=tests/testlib.sh
source "$src/tests/testlib.sh"
setup_scratch

skip_without_sandbox
if ! /usr/bin/python3 -c 'import numpy' 2>/dev/null; then
  echo "SKIP: needs Debian's python3-numpy (scripts/setup.sh installs it)"; exit 77
fi

start_referee || bad "referee never listened"
start_arena --http_listen= || bad "arena never listened"
$cli hosts add host1 >"$tmp/host.txt" || bad "hosts add"
for b in learned broken; do
  $cli bots add "$b" --hosted --variants slovenian-4p --owner "owner-$b" >"$tmp/$b.txt" || bad "bots add $b"
done
mkdir -p "$tmp/host"
TAROCK_HOST_TOKEN=$(token_of host) "$bin/tarock-bothost" --arena "127.0.0.1:$ap" --name host1 \
  --work_dir "$tmp/host" --spares 1 --check_timeout_s 60 >>"$tmp/host.log" 2>&1 &
pids+=($!)

# --- The folder as it is.
$cli bots upload learned --token "$(token_of learned)" "$src/bots/learned" >"$tmp/up.txt" 2>&1 &&
  ok || bad "upload bots/learned: $(cat "$tmp/up.txt")"
# The same folder with its weights cut short: the check fails on the model.
mkdir -p "$tmp/broken"
cp "$src"/bots/learned/*.py "$src"/bots/learned/tarock.json "$tmp/broken/"
head -c 4096 "$src/bots/learned/slovenian-4p.npz" >"$tmp/broken/slovenian-4p.npz"
$cli bots upload broken --token "$(token_of broken)" "$tmp/broken" >"$tmp/up-broken.txt" 2>&1 &&
  ok || bad "upload the broken folder: $(cat "$tmp/up-broken.txt")"

ready() { $cli bots versions "$1" | head -1 | grep -q " ready "; }
failed() { $cli bots versions "$1" | head -1 | grep -q " failed "; }
for _ in $(seq 600); do ready learned && failed broken && break; sleep 0.2; done
ready learned && ok || bad "learned not ready: $($cli bots versions learned --token "$(token_of learned)" | head -30)"
log=$($cli bots versions learned --token "$(token_of learned)" | head -30)
grep -q "python bot learned found in /bot/learned_bot.py" <<<"$log" && ok || bad "learned's check: $log"
size=$($cli bots versions learned | head -1 | grep -o '[0-9]* bytes' | cut -d' ' -f1)
echo "the upload of bots/learned: ${size:-?} bytes"
failed broken && ok || bad "the broken model was not refused: $($cli bots versions broken --token "$(token_of broken)" | head -30)"
log=$($cli bots versions broken --token "$(token_of broken)" | head -60)
grep -q "slovenian-4p.npz: does not load" <<<"$log" && ok || bad "the broken version's log names no model: $log"

# --- A ladder match: the learned bot and three heuristic bots.
for b in h1 h2 h3; do
  "$bin/tarock-bot-heuristic" --listen 127.0.0.1:0 >"$tmp/$b.log" 2>&1 & pids+=($!)
done
for b in h1 h2 h3; do
  for _ in $(seq 100); do grep -q listening "$tmp/$b.log" && break; sleep 0.1; done
  $cli bots add "$b" --endpoint "$(awk '{print $4}' "$tmp/$b.log")" --variants slovenian-4p --owner ref >/dev/null ||
    bad "bots add $b"
done
for _ in $(seq 100); do [ "$($cli bots list | grep -c 'online')" -ge 4 ] && break; sleep 0.1; done
$cli ladder start --variant slovenian-4p --format match --max_matches 1 --hands 4 >/dev/null || bad "ladder start"
for _ in $(seq 900); do $cli ladder list | grep -q "^ladder 1 .*stopped" && break; sleep 0.2; done
$cli ladder stop --variant slovenian-4p >/dev/null 2>&1
$cli matches --limit 10 >"$tmp/matches.txt"
awk '$1 == "seat" && $3 == "learned"' "$tmp/matches.txt" | grep -q . && ok || bad "learned played no seat: $(cat "$tmp/matches.txt")"
awk '$1 == "seat" && $3 == "broken"' "$tmp/matches.txt" | grep -q . && bad "the broken version played" || ok
grep -q "done" "$tmp/matches.txt" && ok || bad "no match done: $(cat "$tmp/matches.txt")"
faults=$(awk '$1 == "seat" {f += $9} END {print f + 0}' "$tmp/matches.txt")
[ "$faults" -eq 0 ] && ok || bad "$faults faults: $(cat "$tmp/matches.txt")"
# Every process that played a seat loaded the model at its start.
grep -h "^learned: slovenian-4p model slovenian-4p.npz ([0-9]* KiB) loaded in [0-9]* ms" \
  "$tmp"/host/logs/learned/*.log >"$tmp/loads.txt" 2>/dev/null
[ -s "$tmp/loads.txt" ] && ok || bad "no seat of learned loaded its model: $(tail -5 "$tmp"/host/logs/learned/*.log 2>&1)"
head -2 "$tmp/loads.txt"
kill -0 "${pids[2]}" 2>/dev/null && ok || bad "the host died: $(tail -5 "$tmp/host.log")"
echo "hosted_learned_test: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
