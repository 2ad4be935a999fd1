#!/usr/bin/env bash
# A class as a teacher runs it (issue 47, docs/events.md), real processes on
# loopback: a referee, an arena, a bot host and 12 entrants' bots.
#  - the roster is an Excel "CSV UTF-8" (a byte-order mark, CRLF, a quoted
#    "Novak, Ana", diacritics); one student joined before with the Python
#    SDK (`python3 -m tarock_bot join`): --skip_existing registers the others;
#  - the handed-out lines name this arena and keep the token in the
#    environment; pasted as they are (with only the Python SDK on the path)
#    they register each bot (`python3 -m tarock_bot register`);
#  - one bot is registered and never connects: the event page says it is
#    offline before the deadline, and it is left out of the final, listed;
#  - one dial-in bot with an upload (`python3 -m tarock_bot upload`) is
#    played by the host; after the freeze its owner's own connection is
#    refused, and its final rows say frozen with the version that played;
#  - one bot disconnects at the start of the final: its seats are played by
#    the fallback, nobody's deals are cut, its row says it dropped out;
#  - the final completes with no failed match, every bot with the deals the
#    design promises, within the time its design needs;
#  - the CSV export's columns are the ones docs/events.md lists.
# Needs root (the host's sandbox) and bwrap: skipped (exit 77) without.
# Usage: class_test.sh SOURCE_DIR BUILD_DIR
set -uo pipefail
src=$(cd "$1" && pwd)
build=$(cd "$2" && pwd)
bin=$build/bin
# shellcheck source=tests/testlib.sh
source "$src/tests/testlib.sh"
setup_scratch
skip_without_sandbox
export PYTHONPATH=$build/python
# The lines say `python3`: the system's, which has grpc and protobuf (as the
# other Python SDK tests use).
mkdir -p "$tmp/pybin" && ln -s /usr/bin/python3 "$tmp/pybin/python3" && export PATH=$tmp/pybin:$PATH
unset TAROCK_ENTRANT_TOKEN TAROCK_BOT_TOKEN TAROCK_ARENA TAROCK_ORGANISER_TOKEN
py() { /usr/bin/python3 -m tarock_bot "$@"; }

start_referee || bad "referee never listened"
start_arena --host_lease_s 4 || bad "arena never listened"
arena=127.0.0.1:$ap
$cli hosts add host1 >"$tmp/host.txt" || bad "hosts add"
mkdir -p "$tmp/host"
TAROCK_HOST_TOKEN=$(token_of host) "$bin/tarock-bothost" --arena "$arena" --name host1 \
  --work_dir "$tmp/host" --switch_wait_s 2 --check_timeout_s 15 >>"$tmp/host.log" 2>&1 &
host_pid=$!

deadline=$(date -u -d '+45 seconds' '+%Y-%m-%d %H:%M:%S')
$cli events create class1a --name "Class 1a" --kind class --variants slovenian-4p \
  --deadline "$deadline" --hands 4 --final_deals 8 --per_decision_ms 1500 >"$tmp/create.txt" ||
  bad "events create: $(cat "$tmp/create.txt")"
otok=$(awk '/^organiser_token/{print $2}' "$tmp/create.txt")
code=$(awk '/^invite_code/{print $2}' "$tmp/create.txt")
export TAROCK_ORGANISER_TOKEN=$otok

# --- One student joined already, with the Python SDK alone.
py join "$code" --name "Žiga Kastelic" --arena "$arena" >"$tmp/join-ziga.txt" 2>&1 ||
  bad "python join: $(cat "$tmp/join-ziga.txt")"
# --- The roster as Excel saves it.
printf '\xef\xbb\xbfName,Class\r\n"Novak, Ana",1a\r\nFilip Kovač,1a\r\nŽiga Kastelic,1a\r\n' >"$tmp/roster.csv"
for n in Bor Cene Dana Eva Gal Hana Ines Jure Klara; do printf '%s,1a\r\n' "$n" >>"$tmp/roster.csv"; done
$cli events register class1a --roster "$tmp/roster.csv" >"$tmp/lines.txt" 2>&1 &&
  bad "a roster with a name that joined was taken without --skip_existing"
$cli events register class1a --roster "$tmp/roster.csv" --skip_existing >"$tmp/lines.txt" 2>&1 ||
  bad "events register: $(cat "$tmp/lines.txt")"
grep -q "^# skipped Žiga Kastelic" "$tmp/lines.txt" && ok || bad "the joined name was not skipped: $(head -3 "$tmp/lines.txt")"
$cli events roster class1a >"$tmp/roster.txt"
grep -q "^Novak, Ana " "$tmp/roster.txt" && ok || bad "the quoted name was split: $(cat "$tmp/roster.txt")"
grep -qi "^\(.\?name\|\"novak\) " "$tmp/roster.txt" && bad "the header or a quote became a student: $(cat "$tmp/roster.txt")" || ok
[ "$(grep -c ' joined ' "$tmp/roster.txt")" -eq 12 ] && ok || bad "want 12 entrants: $(cat "$tmp/roster.txt")"
# Every line names this arena and keeps the token out of the command line.
grep -q "^python3 -m tarock_bot register class1a-filipkovac .*--arena $arena" "$tmp/lines.txt" && ok ||
  bad "the lines do not name the arena or transliterate: $(cat "$tmp/lines.txt")"
grep "^python3" "$tmp/lines.txt" | grep -q -- "--entrant_token" && bad "a token on the command line" || ok
# The Python SDK's join printed such lines too.
grep -q "^export TAROCK_ENTRANT_TOKEN=" "$tmp/join-ziga.txt" && ok || bad "python join: $(cat "$tmp/join-ziga.txt")"
cat "$tmp/join-ziga.txt" >>"$tmp/lines.txt"

# --- Each student pastes their lines (the token, then the register line).
bots=() reg_pids=()
while IFS= read -r line; do
  case "$line" in
    "export TAROCK_ENTRANT_TOKEN="*) etok=${line#export TAROCK_ENTRANT_TOKEN=} ;;
    "python3 -m tarock_bot register "*)
      b=$(echo "$line" | awk '{print $5}')
      # Each student at their own machine: at once (Python starts slowly on a busy one).
      (export TAROCK_ENTRANT_TOKEN=$etok; eval "$line") >"$tmp/reg-$b.txt" 2>&1 &
      reg_pids+=($!)
      bots+=("$b") ;;
  esac
done <"$tmp/lines.txt"
for i in "${!reg_pids[@]}"; do
  wait "${reg_pids[$i]}" || bad "pasted line failed for ${bots[$i]}: $(cat "$tmp/reg-${bots[$i]}.txt")"
done
[ "${#bots[@]}" -eq 12 ] && ok || bad "${#bots[@]} bots registered, want 12"
btok() { awk -F'[= ]' '/^export TAROCK_BOT_TOKEN=/{print $3}' "$tmp/reg-$1.txt"; }
ghost=class1a-bor dropper=class1a-cene eve=class1a-eva
# Eva uploads a version to her dial-in bot: the host plays it.
TAROCK_BOT_TOKEN=$(btok $eve) py upload $eve "$src/sdk/templates/python/my_bot.py" --arena "$arena" \
  >"$tmp/upload.txt" 2>&1 || bad "python upload: $(cat "$tmp/upload.txt")"
dial_pids=()
for b in "${bots[@]}"; do
  [ "$b" = "$ghost" ] || [ "$b" = "$eve" ] && continue
  TAROCK_BOT_TOKEN=$(btok "$b") "$bin/tarock-bot-random" --arena "$arena" >"$tmp/bot-$b.log" 2>&1 &
  pids+=($!)
  [ "$b" = "$dropper" ] && dropper_pid=$!
done
for _ in $(seq 300); do
  TAROCK_BOT_TOKEN=$(btok $eve) py versions $eve --arena "$arena" 2>/dev/null | grep -q " ready " && break
  sleep 0.2
done
TAROCK_BOT_TOKEN=$(btok $eve) py versions $eve --arena "$arena" | grep -q "^v[0-9]* *ready" && ok ||
  bad "eve's version is not ready: $(TAROCK_BOT_TOKEN=$(btok $eve) py versions $eve --arena "$arena" 2>&1)"
# Before the deadline the organiser sees who will not be in the final.
offline() { $cli events show class1a | grep -c "offline, not in the final"; }
for _ in $(seq 150); do [ "$(offline)" -eq 1 ] && break; sleep 0.2; done
$cli events show class1a >"$tmp/show-before.txt"
grep -q "offline, not in the final: $ghost (Bor): not connected" "$tmp/show-before.txt" && ok ||
  bad "events show does not say the absent bot is offline: $(cat "$tmp/show-before.txt")"
[ "$(grep -c "offline, not in the final" "$tmp/show-before.txt")" -eq 1 ] && ok ||
  bad "more than the one absent bot listed as offline: $(cat "$tmp/show-before.txt")"

# --- The deadline: frozen. The dropper goes; Eva's own program is refused.
for _ in $(seq 400); do $cli events show class1a | head -1 | grep -q "(class, \(frozen\|finished\))" && break; sleep 0.2; done
frozen_at=$(date +%s)
$cli events show class1a | head -1 | grep -q "(class, frozen)" && ok || bad "not frozen: $($cli events show class1a)"
kill_tree "$dropper_pid"
TAROCK_BOT_TOKEN=$(btok $eve) timeout 8 "$bin/tarock-bot-random" --arena "$arena" >"$tmp/eve-own.log" 2>&1
grep -q "frozen" "$tmp/eve-own.log" && ok || bad "eve's own connection was not refused: $(tail -3 "$tmp/eve-own.log")"
for _ in $(seq 600); do $cli events show class1a | head -1 | grep -q "(class, finished)" && break; sleep 0.2; done
took=$(( $(date +%s) - frozen_at ))
$cli events show class1a >"$tmp/show.txt"
head -1 "$tmp/show.txt" | grep -q "(class, finished)" && ok || bad "the final did not finish: $(cat "$tmp/show.txt")"
# 11 bots, 8 deals each (2 tables of 4 hands): 6 tables in 4 seatings, a
# few seconds (the dropper's first decision of each match waits 1.5 s); an
# absent bot in the design made each of its tables wait 60 s and fail, at
# least two waves of them.
[ "$took" -le 100 ] && ok || bad "the final took $took s"
echo "the final took $took s"
grep -q "left out of the final: $ghost (Bor): not connected" "$tmp/show.txt" && ok ||
  bad "the absent bot is not listed: $(cat "$tmp/show.txt")"
$cli events export class1a --as json >"$tmp/export.json" || bad "export json"
$cli events export class1a >"$tmp/export.csv" || bad "export csv"
/usr/bin/python3 - "$tmp/export.json" "$tmp/show.txt" "$ghost" "$dropper" "$eve" <<'PYEOF' || bad "export checks"
import json, re, sys
j = json.load(open(sys.argv[1])); show = open(sys.argv[2]).read()
ghost, dropper, eve = sys.argv[3:6]
bad = []
m = re.search(r"\((\d+) matches\), (\d+)(?: or (\d+))? deals a bot", show)
matches, promised = int(m.group(1)), int(m.group(2))
most = int(m.group(3) or promised)  # some bots sit at one more table
rows = {r["bot"]: r for r in j["final"]}
if j["final_status"] != "final": bad.append(f"status {j['final_status']}")
if ghost in rows or len(rows) != 11: bad.append(f"{len(rows)} rows, ghost in: {ghost in rows}")
if [x["bot"] for x in j["left_out"]] != [ghost]: bad.append(f"left out {j['left_out']}")
if promised != 8: bad.append(f"promised {promised} deals")
for b, r in rows.items():
    if not promised <= r["deals"] <= most: bad.append(f"{b}: {r['deals']} deals, promised {promised}-{most}")
if max(r["deals"] for r in rows.values()) != most:
    bad.append(f"the plan says {promised} or {most} deals a bot; the most played {max(r['deals'] for r in rows.values())}")
if sum(r["matches"] for r in rows.values()) != 4 * matches:
    bad.append(f"seats {sum(r['matches'] for r in rows.values())}, want {4 * matches}: a match failed")
d = rows.get(dropper, {})
if not d.get("absent_matches") or "dropped out" not in d.get("note", ""): bad.append(f"dropper {d}")
e = rows.get(eve, {})
if not e.get("frozen") or not re.fullmatch(r"v\d+", e.get("version_played", "")): bad.append(f"eve {e}")
others = [r for b, r in rows.items() if b != eve]
if any(r["frozen"] or r["version_played"] != "own program" for r in others): bad.append("a dial-in row says frozen")
for b in bad: print("FAIL:", b)
sys.exit(1 if bad else 0)
PYEOF
# The CSV's columns are the ones the docs list.
header=$(head -1 "$tmp/export.csv" | tr -d '\r')
grep -qxF "$header" "$src/docs/events.md" && ok || bad "the export's columns are not in docs/events.md: $header"
[ "$(grep -c . "$tmp/export.csv")" -eq 13 ] && ok || bad "want a header and 12 rows: $(cat "$tmp/export.csv")"
grep -q "^Bor,$ghost,.*,left out: not connected" "$tmp/export.csv" && ok || bad "the CSV lacks the absent bot: $(grep Bor "$tmp/export.csv")"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
