#!/usr/bin/env bash
# A bot host that is lost mid-match (issue 31, docs/hosting.md "A host that
# dies"), real processes on loopback: a referee, an arena, one bot host playing
# a hosted awk bot, and three reference bots in a ladder. Checks:
#  - the only host SIGKILLed mid-match and not restarted for longer than the
#    decision time: the interrupted match is voided ("host lost", failed, never
#    rated, never charged to the hosted bot), not run again: its deal was
#    played, and running it again would show the other bots cards they saw;
#  - the host SIGKILLed and away for longer than the arena's --dial_in_wait_s:
#    the same, and the matches that wanted the bot meanwhile fail uncharged;
#  - the restarted host resumes the bot and the ladder goes on;
#  - the host stalled (SIGSTOP) for longer than the decision time, its
#    connections up, then going on (SIGCONT): the seat's timeout was not the
#    bot's (its host's account of the seat says the bot was not slow), so the
#    match is voided, not charged ("A host that stalls"), and once it has
#    not synced for --host_stale_s its bot is offline (no new seats);
#  - the hosted bot's record: 0 faults in every match done, its rating counts
#    exactly the matches done (a voided or retried attempt counts nothing);
#  - the control: a version that itself thinks past its time is charged the
#    timeout, its match counted.
# Needs root (the sandbox makes cgroups) and bwrap: skipped (exit 77) without.
# Usage: hosted_lost_test.sh SOURCE_DIR BUILD_DIR
set -uo pipefail
src=$(cd "$1" && pwd)
build=$(cd "$2" && pwd)
bin=$build/bin
# shellcheck source=tests/testlib.sh
source "$src/tests/testlib.sh"
setup_scratch

skip_without_sandbox

# 3 s a decision: a restarted host starts fresh sandboxed processes for every
# seat at once, and on a loaded machine (another test's bot host beside this
# one) their first answers took over 1 s: timeouts charged to the bot.
decision_ms=3000
wait_s=12  # the arena's --dial_in_wait_s: how long a match waits for its bots (and a host) to be back
start_referee || bad "referee never listened"
start_arena --http_listen= --dial_in_wait_s "$wait_s" --host_stale_s 3 || bad "arena never listened"

$cli hosts add host1 >"$tmp/host.txt" || bad "hosts add"
$cli bots add awkb --hosted --variants slovenian-4p --owner me >"$tmp/awkb.txt" || bad "bots add"
mkdir -p "$tmp/host"
start_host() {
  TAROCK_HOST_TOKEN=$(token_of host) "$bin/tarock-bothost" --arena "127.0.0.1:$ap" \
    --work_dir "$tmp/host" --check_timeout_s 15 >>"$tmp/host.log" 2>&1 &
  host_pid=$!
}
start_host
$cli bots upload awkb --token "$(token_of awkb)" "$src/sdk/templates/stdio/my_bot.awk" >/dev/null || bad "upload"
online() { $cli bots list | grep -q "^awkb  hosted (online"; }  # a hosted bot is listed as hosted (issue 44)
for _ in $(seq 300); do online && break; sleep 0.1; done
online && ok || bad "the hosted bot never came online: $($cli bots versions awkb --token "$(token_of awkb)")"
# Started without --name, the host reports the name given to `hosts add` (issue 47).
grep -q "as host host1" "$tmp/host.log" && ok || bad "the host does not report its name host1: $(grep 'as host' "$tmp/host.log")"
for b in rnd1 rnd2; do
  "$bin/tarock-bot-random" --listen 127.0.0.1:0 >"$tmp/$b.log" 2>&1 & pids+=($!)
done
"$bin/tarock-bot-heuristic" --listen 127.0.0.1:0 >"$tmp/heur.log" 2>&1 & pids+=($!)
for b in rnd1 rnd2 heur; do
  for _ in $(seq 100); do grep -q listening "$tmp/$b.log" && break; sleep 0.1; done
  $cli bots add "$b" --endpoint "$(awk '{print $4}' "$tmp/$b.log")" --variants slovenian-4p --owner ref >/dev/null ||
    bad "bots add $b"
done

status_field() { $cli status | sed -n "s/.*$1 \([0-9][0-9]*\).*/\1/p" | head -1 | grep . || echo 0; }
done_count() { status_field "matches done"; }
running_count() { status_field "running"; }
wait_more_done() {  # wait_more_done FROM N: until N more matches than FROM are done (at most 60 s)
  for _ in $(seq 300); do [ $(($(done_count) - $1)) -ge "$2" ] && return 0; sleep 0.2; done
  return 1
}
# Kills the host while a match runs; the awk bot plays every match of a
# four-bot ladder, so the running match has a hosted seat.
kill_host_mid_match() {
  for _ in $(seq 100); do [ "$(running_count)" -gt 0 ] && break; sleep 0.05; done
  [ "$(running_count)" -gt 0 ] || bad "nothing running when the host was killed: $($cli status)"
  sleep 0.3  # well into the match
  kill -9 "$host_pid"; wait "$host_pid" 2>/dev/null
}

# Matches of 40 hands (a second or two each), so the host dies inside one;
# the ladder outlasts the test (it is stopped at the end).
$cli ladder start --variant slovenian-4p --format match --max_matches 2000 --hands 40 \
  --per_decision_ms "$decision_ms" >/dev/null || bad "ladder start"
wait_more_done 0 2 || bad "the ladder did not start: $($cli status)"

# --- 0. The host stalls for longer than a decision (4 s > 3 s), its
# connections up, and goes on: the match is voided, not charged.
for _ in $(seq 100); do [ "$(running_count)" -gt 0 ] && break; sleep 0.05; done
[ "$(running_count)" -gt 0 ] || bad "nothing running when the host was stopped: $($cli status)"
sleep 0.3
kill -STOP "$host_pid"; sleep 3.7
# Stale after 3 s without a sync (--host_stale_s): offline, no new seats.
online && bad "the stalled host's bot is still online after 3.7 s" || ok
sleep 0.3; kill -CONT "$host_pid"
stalled_msg="(awkb) stalled: "
for _ in $(seq 300); do grep -qF "$stalled_msg" "$tmp/arena.log" && break; sleep 0.1; done
grep -qF "$stalled_msg" "$tmp/arena.log" && ok ||
  bad "no match was voided after the host stalled: $(grep -i 'host\|fault' "$tmp/arena.log" | tail -5)"
stalled=$(grep -F "$stalled_msg" "$tmp/arena.log" | head -1 | grep -o ' match=[^ ]*' | cut -d= -f2)
$cli matches --status failed --limit 50 >"$tmp/failed.txt"
grep -A3 "^$stalled " "$tmp/failed.txt" | grep -q "error: host lost: the bot host of seat [0-9] (awkb) stalled: [1-9]" && ok ||
  bad "the stalled match ($stalled) is not failed for its host: $(cat "$tmp/failed.txt")"
mid=$(done_count)
wait_more_done "$mid" 2 && ok || bad "the ladder did not go on after the host went on: $($cli status)"

# --- 1. Away for longer than a decision (4 s > 3 s), back well within the wait
# (the host's restart, a second or two, included): the interrupted match is
# voided, the ladder goes on.
kill_host_mid_match
sleep 4
start_host
# (The stall's voided matches are in the log already: this one says "was gone".)
voided_msg="host lost; the match is voided (its deal was played)"
gone_msg="was gone for a whole decision"
for _ in $(seq 300); do grep -F "$voided_msg" "$tmp/arena.log" | grep -qF "$gone_msg" && break; sleep 0.1; done
grep -F "$voided_msg" "$tmp/arena.log" | grep -qF "$gone_msg" && ok ||
  bad "no match was voided after the host was lost: $(grep -i 'host\|fault' "$tmp/arena.log" | tail -5)"
voided=$(grep -F "$voided_msg" "$tmp/arena.log" | grep -F "$gone_msg" | head -1 | grep -o ' match=[^ ]*' | cut -d= -f2)
# Stored failed for the lost host, with one attempt: never played again.
$cli matches --status failed --limit 50 >"$tmp/failed.txt"
grep -A3 "^$voided " "$tmp/failed.txt" | grep -q "error: host lost: the bot host of seat [0-9] (awkb) was gone for a whole decision" && ok ||
  bad "the voided match ($voided) is not failed for the lost host: $(cat "$tmp/failed.txt")"
[ "$(grep "match started" "$tmp/arena.log" | grep -c " match=$voided ")" -eq 1 ] && ok ||
  bad "the voided match $voided was started again: $(grep "match=$voided " "$tmp/arena.log" | head -5)"
mid=$(done_count)
wait_more_done "$mid" 2 && ok || bad "the ladder did not go on after the host came back: $($cli status)"

# --- 2. Away for longer than the arena waits (--dial_in_wait_s): the
# interrupted match voided as above; what wanted the bot meanwhile fails
# uncharged; the restarted host resumes the bot.
before=$(grep -cF "$voided_msg" "$tmp/arena.log")
kill_host_mid_match
for _ in $(seq 300); do [ "$(grep -cF "$voided_msg" "$tmp/arena.log")" -gt "$before" ] && break; sleep 0.1; done
[ "$(grep -cF "$voided_msg" "$tmp/arena.log")" -gt "$before" ] && ok ||
  bad "the second interrupted match was not voided: $(grep -i 'host lost' "$tmp/arena.log" | tail -3)"
sleep "$((wait_s + 1))"
start_host
$cli matches --status failed --limit 50 >"$tmp/failed.txt"
# Every failed match failed for the lost host (voided, or waiting for the bot in vain).
others=$(grep '^[^ ]' "$tmp/failed.txt" | grep -v "host lost\|did not connect within")
[ -z "$others" ] && ok || bad "matches failed for another reason: $others
(the arena's log of them: $(for m in $(echo "$others" | awk '{print $1}'); do grep " match=$m " "$tmp/arena.log"; done | tail -20))"
mid=$(done_count)
wait_more_done "$mid" 2 && ok || bad "the restarted host did not resume the bot: $($cli status)"

$cli ladder stop --variant slovenian-4p >/dev/null || bad "ladder stop"
for _ in $(seq 300); do [ "$(running_count)" -eq 0 ] && break; sleep 0.2; done
[ "$(running_count)" -eq 0 ] && ok || bad "matches still running after the ladder stopped: $($cli status)"

# --- The bot's record: no fault in any match done; its rating counts exactly those.
done=$(done_count)
$cli matches --status done --limit 500 >"$tmp/done.txt"
faults=$(awk '$1 == "seat" && $3 == "awkb" {f += $9} END {print f + 0}' "$tmp/done.txt")
[ "$faults" -eq 0 ] && ok || bad "the hosted bot was charged $faults faults: $(awk '$1 == "seat" && $9 > 0' "$tmp/done.txt"); $($cli export --variant slovenian-4p | grep -o '"faults":\[{[^]]*\]' | head -3); $(grep 'bot faulted' "$tmp/arena.log" | tail -3)"
others=$(awk '$1 == "seat" {f += $9} END {print f + 0}' "$tmp/done.txt")
[ "$others" -eq 0 ] && ok || bad "$others faults in the matches done"
played=$(grep -c "^[^ ].* done" "$tmp/done.txt")
[ "$played" -eq "$done" ] && ok || bad "$played matches listed done, the status says $done"
rated=$($cli bots show awkb | sed -n 's/.*slovenian-4p.* matches \([0-9]*\)  faults \([0-9]*\).*/\1 \2/p')
[ "$rated" = "$done 0" ] && ok || bad "the bot's rating counts '$rated' (matches faults), want '$done 0': $($cli bots show awkb)"

# --- 3. The control: a bot that itself thinks too long (4 s on its seat's
# first decision, with 3 s a decision) while its host is up is charged the
# timeout; the host's account names that decision, and the match counts.
{ echo 'NR == 1 { system("sleep 4") }'; cat "$src/sdk/templates/stdio/my_bot.awk"; } >"$tmp/sleepy.awk"
$cli bots upload awkb --token "$(token_of awkb)" "$tmp/sleepy.awk" >/dev/null || bad "upload the sleepy version"
# Ready, and the host plays it (it reconnects the bot with the new version).
for _ in $(seq 300); do grep -q "plays awkb with version 2" "$tmp/host.log" && break; sleep 0.1; done
grep -q "plays awkb with version 2" "$tmp/host.log" || bad "the host never played the sleepy version"
for _ in $(seq 300); do online && break; sleep 0.1; done
before_done=$(done_count)
before_voided=$(grep -cF "$voided_msg" "$tmp/arena.log")
$cli ladder start --variant slovenian-4p --format match --max_matches 1 --hands 4 \
  --per_decision_ms "$decision_ms" >/dev/null || bad "ladder start (the sleepy version)"
wait_more_done "$before_done" 1 || bad "the sleepy version's match was not done: $($cli status)"
$cli matches --status done --limit 1 >"$tmp/sleepy.txt"
sleepy_faults=$(awk '$1 == "seat" && $3 == "awkb" {f += $9} END {print f + 0}' "$tmp/sleepy.txt")
[ "$sleepy_faults" -ge 1 ] && ok || bad "the bot's own timeout was not charged: $(cat "$tmp/sleepy.txt")"
[ "$(grep -cF "$voided_msg" "$tmp/arena.log")" -eq "$before_voided" ] && ok ||
  bad "the bot's own timeout voided its match: $(grep -F "$voided_msg" "$tmp/arena.log" | tail -1)"

echo "hosted_lost_test: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
