#!/usr/bin/env bash
# Process-level tests of `tarock match`: bots started from executables and bots
# already running at HOST:PORT, the referee in process and as a tarock-referee
# process, the per-bot table, the match record replayed by `tarock replay`, and
# one-line errors. Nothing started here outlives the test.
# Usage: match_cli_test.sh BUILD_DIR
set -uo pipefail
bin=$(cd "$1/bin" && pwd)
tarock="$bin/tarock"
tmp=$(mktemp -d)
# A link of our own, so the check for leftover bots sees only ours.
ln -s "$bin/tarock-bot-random" "$tmp/random-bot"
random="$tmp/random-bot"
pids=()
cleanup() { for p in "${pids[@]}"; do kill_tree "$p"; wait "$p" 2>/dev/null; done; rm -rf "$tmp"; }
trap cleanup EXIT
# shellcheck source=tests/testlib.sh
source "$(dirname "${BASH_SOURCE[0]}")/testlib.sh"


# Executables as bots, referee in process: the table names every bot, the
# record has variant, seed, bots and deals, and replays to the same scores.
out=$(timeout 60 "$tarock" match --variant slovenian-4p --hands 8 --seed 4 --quiet \
      --record "$tmp/m.json" north="$random" east="$random" south="$random" west="$random")
rc=$?
[ $rc -eq 0 ] && ok || bad "match failed ($rc): $out"
for name in north east south west; do
  case "$out" in *"$name "*) ok ;; *) bad "table lacks $name: $out" ;; esac
done
case "$out" in *"8 hands"*) ok ;; *) bad "table lacks the hand count: $out" ;; esac
grep -q '"bots":\["north","east","south","west"\]' "$tmp/m.json" && ok || bad "record lacks bots"
grep -q '"seed":4' "$tmp/m.json" && ok || bad "record lacks the seed"
grep -q '"variant":"slovenian-4p"' "$tmp/m.json" && ok || bad "record lacks the variant"
"$tarock" replay "$tmp/m.json" > "$tmp/replay.txt" && ok || bad "replay of the match record failed"
[ "$(grep -c '"finished":true' "$tmp/replay.txt")" -ge 8 ] && ok || bad "replay did not finish 8 hands"
pgrep -f "$random --listen" >/dev/null && bad "bots left running after the match" || ok

# --bot_logs DIR: each started bot's standard error in DIR/seat<N>-<NAME>.log
# (the directory created, names reduced to [A-Za-z0-9._-]); nothing of theirs on ours.
printf '#!/bin/sh\necho "stderr of the bot with $*" >&2\nexec "%s" "$@"\n' "$random" > "$tmp/chatty-bot"
chmod +x "$tmp/chatty-bot"
timeout 60 "$tarock" match --variant slovenian-3p --hands 3 --seed 5 --quiet --bot_logs "$tmp/botlogs/sub" \
  a="$tmp/chatty-bot" 'b/x'="$tmp/chatty-bot" c="$tmp/chatty-bot" > "$tmp/bl.out" 2> "$tmp/bl.err"
[ $? -eq 0 ] && ok || bad "match with --bot_logs failed: $(cat "$tmp/bl.err")"
for f in seat0-a seat1-b_x seat2-c; do
  grep -q "stderr of the bot with --listen 127.0.0.1:" "$tmp/botlogs/sub/$f.log" 2>/dev/null && ok \
    || bad "$f.log lacks the bot's standard error: $(ls "$tmp/botlogs/sub" 2>&1)"
done
grep -q "stderr of the bot" "$tmp/bl.err" && bad "bot stderr on the tool's stderr with --bot_logs" || ok

# Bare program names are looked up on PATH (the tutorial's h1=tarock-bot-heuristic
# with build/bin on PATH); a bare name of an executable in the current directory is
# that file, even when PATH holds another program of that name; a name found
# nowhere is a one-line error.
mkdir -p "$tmp/onpath" "$tmp/cwd"
printf '#!/bin/sh\necho "on-path bot $*" >&2\nexec "%s" "$@"\n' "$random" > "$tmp/onpath/door34-path-bot"
printf '#!/bin/sh\necho "cwd bot $*" >&2\nexec "%s" "$@"\n' "$random" > "$tmp/cwd/door34-path-bot"
chmod +x "$tmp/onpath/door34-path-bot" "$tmp/cwd/door34-path-bot"
out=$(cd / && PATH="$tmp/onpath:$PATH" timeout 60 "$tarock" match --variant slovenian-3p --hands 3 \
      --seed 6 --quiet --bot_logs "$tmp/pathlogs" a=door34-path-bot b=door34-path-bot c="$random" 2>&1)
[ $? -eq 0 ] && ok || bad "match with a program name on PATH failed: $out"
grep -q "on-path bot --listen" "$tmp/pathlogs/seat0-a.log" 2>/dev/null && ok || bad "the PATH bot did not play"
out=$(cd "$tmp/cwd" && PATH="$tmp/onpath:$PATH" timeout 60 "$tarock" match --variant slovenian-3p \
      --hands 3 --seed 6 --quiet --bot_logs "$tmp/cwdlogs" a=door34-path-bot b="$random" c="$random" 2>&1)
[ $? -eq 0 ] && ok || bad "match with a program in the current directory failed: $out"
grep -q "cwd bot --listen" "$tmp/cwdlogs/seat0-a.log" 2>/dev/null && ok \
  || bad "not the current directory's bot: $(cat "$tmp/cwdlogs/seat0-a.log" 2>&1)"
out=$(cd / && PATH="$tmp/onpath:$PATH" timeout 120 "$tarock" check-bot --variants slovenian-3p --hands 3 \
      door34-path-bot 2>&1)
[ $? -eq 0 ] && ok || bad "check-bot with a program name on PATH failed: $out"
expect_error "not on PATH" "a program on PATH" env PATH="$tmp/onpath" "$tarock" match \
  --variant slovenian-3p --quiet a=door34-no-such-bot b="$random" c="$random"
# compare too: candidate, baseline and opponents by their names on PATH. Any
# answer but an error (exit 3) will do; the on-path bot's log shows it played.
(cd / && PATH="$tmp/onpath:$PATH" timeout 180 "$tarock" compare --variant slovenian-3p --seed 6 --quiet \
   --candidate door34-path-bot --baseline door34-path-bot --opponents door34-path-bot \
   --min_deals 2 --max_deals 2 --bot_logs "$tmp/cmplogs" > "$tmp/cmp.out" 2>&1)
rc=$?
[ "$rc" -le 2 ] && ok || bad "compare with program names on PATH failed ($rc): $(cat "$tmp/cmp.out")"
grep -qs "on-path bot --listen" "$tmp"/cmplogs/*.log && ok || bad "compare's PATH bot did not play: $(ls "$tmp/cmplogs" 2>&1)"

# tarock-bot-random's play comes from its own --seed, never from the match's:
# its --help says so; started with --seed 7 it plays a match again action for
# action; without --seed (0: a fresh seed every match) the same deals are played
# differently. Three random bots, 6 hands: the actions of two fresh runs differ
# in all but a vanishing share of runs.
help=$("$random" --help 2>&1)
case "$help" in *"--seed (seed of the random choices"*"tarock match --seed"*"seeds the deals"*) ok ;;
  *) bad "tarock-bot-random --help does not explain --seed: $help" ;; esac
printf '#!/bin/sh\nexec "%s" --seed 7 "$@"\n' "$random" > "$tmp/random-seed7"
chmod +x "$tmp/random-seed7"
actions() {  # actions RECORD: every hand's action list, one line each
  /usr/bin/python3 -c '
import json, sys
rec = json.load(open(sys.argv[1]))
for h in rec["deals"]:
    print(" ".join(h["actions"]))' "$1"
}
for run in 1 2; do
  timeout 60 "$tarock" match --variant slovenian-3p --hands 6 --seed 9 --quiet --record "$tmp/s7-$run.json" \
    a="$tmp/random-seed7" b="$tmp/random-seed7" c="$tmp/random-seed7" > /dev/null \
    && ok || bad "match of seeded random bots failed (run $run)"
  timeout 60 "$tarock" match --variant slovenian-3p --hands 6 --seed 9 --quiet --record "$tmp/s0-$run.json" \
    a="$random" b="$random" c="$random" > /dev/null \
    && ok || bad "match of unseeded random bots failed (run $run)"
done
[ -n "$(actions "$tmp/s7-1.json")" ] && [ "$(actions "$tmp/s7-1.json")" = "$(actions "$tmp/s7-2.json")" ] \
  && ok || bad "tarock-bot-random --seed 7 did not repeat its play"
[ "$(actions "$tmp/s0-1.json")" != "$(actions "$tmp/s0-2.json")" ] \
  && ok || bad "tarock-bot-random without --seed played the same deals the same way twice"

# The same bot name in two seats is one row; --json output parses.
out=$(timeout 60 "$tarock" match --variant slovenian-3p --hands 6 --seed 2 --quiet --json \
      a="$random" b="$random" a="$random")
echo "$out" | /usr/bin/python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["hands"] == 6, d
names = [b["bot"] for b in d["bots"]]
assert names == ["a", "b"], names
assert d["bots"][0]["seats"] == [0, 2], d
' && ok || bad "json summary: $out"

# Running bots at HOST:PORT, and a tarock-referee process via --referee.
ports=()
for i in 0 1 2; do
  p=$(free_port); ports+=("$p")
  "$random" --listen "127.0.0.1:$p" >/dev/null & pids+=($!)
done
rp=$(free_port)
"$bin/tarock-referee" --listen "127.0.0.1:$rp" --metrics_listen= >/dev/null & pids+=($!)
for p in "${ports[@]}" "$rp"; do wait_port "$p" || bad "port $p never opened"; done
out=$(timeout 60 "$tarock" match --variant slovenian-tapp --hands 6 --seed 8 --quiet \
      --referee "127.0.0.1:$rp" --record "$tmp/r.json" \
      x="127.0.0.1:${ports[0]}" y="127.0.0.1:${ports[1]}" z="127.0.0.1:${ports[2]}")
[ $? -eq 0 ] && ok || bad "remote-referee match failed: $out"
"$tarock" replay "$tmp/r.json" >/dev/null && ok || bad "replay of the remote match record failed"

# Every match ends (issue 18): three bots that pass every bid in tapp-tarock-classic.
# Each thrown-in deal is one of the match's hands (0 each); under thrown_in=redeal the
# match ends early, normally, with its reason, and the record still replays.
printf '#!/bin/sh\nexec "%s" --mode pass "$@"\n' "$bin/faulty_bot" > "$tmp/pass-bot"
chmod +x "$tmp/pass-bot"
out=$(timeout 60 "$tarock" match --variant tapp-tarock-classic --hands 6 --seed 3 --quiet --json \
      --record "$tmp/pass.json" a="$tmp/pass-bot" b="$tmp/pass-bot" c="$tmp/pass-bot")
[ $? -eq 0 ] && ok || bad "always-pass match failed: $out"
echo "$out" | /usr/bin/python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["hands"] == 6 and d["totals"] == [0, 0, 0] and d["ended_early"] == "", d
' && ok || bad "always-pass match summary: $out"
"$tarock" replay "$tmp/pass.json" >/dev/null && ok || bad "replay of the always-pass record failed"
out=$(timeout 120 "$tarock" match --variant tapp-tarock-classic --hands 3 --seed 3 --quiet \
      --option thrown_in=redeal --record "$tmp/redeal.json" \
      a="$tmp/pass-bot" b="$tmp/pass-bot" c="$tmp/pass-bot")
[ $? -eq 0 ] && ok || bad "thrown_in=redeal match failed: $out"
case "$out" in *"ended early: 100 void deals in a row"*) ok ;; *) bad "no ended-early line: $out" ;; esac
grep -q '"ended_early":"100 void deals in a row' "$tmp/redeal.json" && ok || bad "record lacks ended_early"
[ "$("$tarock" replay "$tmp/redeal.json" | wc -l)" -eq 100 ] && ok || bad "replay of the ended-early record"
expect_error "bad thrown_in" "is not one of: hand, redeal" "$tarock" match --variant tapp-tarock-classic \
  --option thrown_in=never --quiet a="$tmp/pass-bot" b="$tmp/pass-bot" c="$tmp/pass-bot"
expect_error "unknown option" "has no option 'thrown_on' (options: " "$tarock" match \
  --variant tapp-tarock-classic --option thrown_on=hand --quiet a="$tmp/pass-bot" b="$tmp/pass-bot" c="$tmp/pass-bot"

# Errors are one line.
expect_error "wrong seat count" "needs 4" "$tarock" match --variant slovenian-4p a="$random"
expect_error "bad seat" "neither an executable" "$tarock" match --variant slovenian-3p a=nothing b=x c=y
expect_error "no NAME=" "NAME=SPEC" "$tarock" match --variant slovenian-3p "$random" b=x c=y
dead=$(free_port)
expect_error "unreachable" "seat 1" "$tarock" match --variant slovenian-3p --connect_timeout_ms 500 --quiet \
  a="$random" b="127.0.0.1:$dead" c="$random"
expect_error "bad hands" "multiple of 3" "$tarock" match --variant slovenian-3p --hands 4 --quiet \
  a="$random" b="$random" c="$random"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
