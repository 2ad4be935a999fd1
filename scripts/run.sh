#!/usr/bin/env bash
# The main job: sets up and builds the project, then starts the whole arena on
# this machine as separate processes on loopback: tarock-arena (SQLite in a
# local data directory), one tarock-referee and the bundled bots, each its own
# process. It registers the bots, runs the default rating ladder with a
# progress display, prints the leaderboard as it changes (and how far apart
# search and heuristic are head to head) and tells where the web pages (their
# address first), the metrics and the JSON API are. Ctrl-C stops everything
# it started.
#
# The rated field: search and heuristic four times each (eight bots fill a
# duplicate set of slovenian-4p: the same deals at two tables of four, rated
# on score margins in points a deal). Random is kept out of it: beside a
# random bot, search and heuristic score alike (docs/benchmarks.md, "Ladders:
# deals until the leaderboard is right"). The two random bots play their own
# ladder in another variant (slovenian-3p, rated on places) with the hosted
# Python template, when the arena can host it (root and bubblewrap).
#
#   ./scripts/run.sh [--matches N] [--variant V] [--data DIR] [--hands H]
#
# --matches N stops after N ladder matches, i.e. tables (default: run until
# Ctrl-C); a duplicate set is two tables, so an even N ends on a whole set.
# A variant whose set needs more bots than run.sh starts (slovenian-5p: 10)
# runs matches rated on places instead, and says so.
# The data directory (default arena-data/) keeps bots, matches and ratings
# between runs; a new run updates the bots' endpoints with their saved tokens.
set -euo pipefail
cd "$(dirname "$0")/.."

matches=0 variant=slovenian-4p data=arena-data hands=8
while [ $# -gt 0 ]; do
  case "$1" in
    --matches) matches=$2; shift 2 ;;
    --variant) variant=$2; shift 2 ;;
    --data) data=$2; shift 2 ;;
    --hands) hands=$2; shift 2 ;;
    *) echo "usage: $0 [--matches N] [--variant V] [--data DIR] [--hands H]" >&2; exit 2 ;;
  esac
done

echo "== building (scripts/build.sh; the first build takes a few minutes)"
./scripts/build.sh > build-main.log 2>&1 || { tail -30 build-main.log; exit 1; }
bin=$PWD/build/bin
mkdir -p "$data/logs" "$data/tokens"

pids=()
ladder_variants=()  # the ladders to stop on the way out (once cli is set)
cleanup() {
  trap - INT TERM EXIT
  echo
  echo "== stopping ${#pids[@]} processes"
  # The ladders first: the matches they made ahead go, rather than wait in
  # the data directory for bots that will listen elsewhere next time.
  for v in "${ladder_variants[@]}"; do
    timeout 5 "${cli[@]}" ladder stop --variant "$v" > /dev/null 2>&1 || true
  done
  # ... and the tables still playing finish (a few seconds at most), else the
  # next start replays them against this run's bots, which are gone.
  if [ ${#ladder_variants[@]} -gt 0 ]; then
    for _ in $(seq 50); do
      timeout 5 "${cli[@]}" status 2>/dev/null | grep -q "running 0" && break
      sleep 0.2
    done
  fi
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# A loopback port nobody listens on.
free_port() {
  local p
  while :; do
    p=$((20000 + RANDOM % 20000))
    (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null || { echo "$p"; return; }
  done
}
wait_port() {
  for _ in $(seq 200); do (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0; sleep 0.05; done
  echo "nothing listens on port $1 (see $data/logs/)" >&2; return 1
}
start() {  # start NAME PORT COMMAND...
  local name=$1 port=$2; shift 2
  "$@" > "$data/logs/$name.log" 2>&1 &
  pids+=($!)
  wait_port "$port"
}

referee_port=$(free_port); metrics_port=$(free_port)
start referee "$referee_port" "$bin/tarock-referee" --listen "127.0.0.1:$referee_port" \
  --metrics_listen "127.0.0.1:$metrics_port"
declare -A bot_port
# The rated field, each bot its own process: a bridge duplicate set of
# slovenian-4p seats all eight, 2 x 4, each bot at one table, so no process
# sees a deal twice, and every set compares search with heuristic on the
# same cards. (Measured: docs/benchmarks.md, "The main job's field".)
bots=(search search-b search-c search-d heuristic heuristic-b heuristic-c heuristic-d)
# Random plays apart (below), with the hosted Python template.
random_bots=(random random-b)
hosting=0
if [ "$(id -u)" -eq 0 ] && command -v bwrap > /dev/null; then hosting=1; fi
started=("${bots[@]}")
[ "$hosting" -eq 1 ] && started+=("${random_bots[@]}")
for bot in "${started[@]}"; do
  bot_port[$bot]=$(free_port)
  case $bot in
    random) cmd=("$bin/tarock-bot-random" --seed 1) ;;
    random-b) cmd=("$bin/tarock-bot-random" --seed 2) ;;
    heuristic*) cmd=("$bin/tarock-bot-heuristic") ;;
    search) cmd=("$bin/tarock-bot-search" --budget_ms 40 --seed 1) ;;
    search-b) cmd=("$bin/tarock-bot-search" --budget_ms 40 --seed 2) ;;
    search-c) cmd=("$bin/tarock-bot-search" --budget_ms 40 --seed 3) ;;
    search-d) cmd=("$bin/tarock-bot-search" --budget_ms 40 --seed 4) ;;
  esac
  start "bot-$bot" "${bot_port[$bot]}" "${cmd[@]}" --listen "127.0.0.1:${bot_port[$bot]}"
done
# The variant of random's ladder: three seats, not the main ladder's.
side_variant=slovenian-3p
[ "$variant" = slovenian-3p ] && side_variant=tapp-tarock
arena_port=$(free_port); http_port=$(free_port)
start arena "$arena_port" "$bin/tarock-arena" --listen "127.0.0.1:$arena_port" \
  --http_listen "127.0.0.1:$http_port" --data_dir "$data" --referees "127.0.0.1:$referee_port" \
  --max_parallel 2
cli=("$bin/tarock-arena-cli" --arena "127.0.0.1:$arena_port")
echo "== web: http://127.0.0.1:$http_port/   <- open this in a browser"

echo "== registering the bots"
for bot in "${started[@]}"; do
  endpoint="127.0.0.1:${bot_port[$bot]}"
  # The rated field plays the main variant; random its own (the side ladder).
  bot_variants=$variant
  case $bot in random*) bot_variants=$side_variant ;; esac
  if out=$("${cli[@]}" bots add "$bot" --endpoint "$endpoint" --variants "$bot_variants" \
             --owner "tarock-arena" 2>&1); then
    echo "$out" | sed -n 's/^token //p' > "$data/tokens/$bot"
    echo "   $bot at $endpoint (token saved in $data/tokens/$bot)"
  elif [ -s "$data/tokens/$bot" ]; then
    "${cli[@]}" bots update "$bot" --token "$(cat "$data/tokens/$bot")" --endpoint "$endpoint" \
      --variants "$bot_variants" > /dev/null
    echo "   $bot at $endpoint (updated)"
  else
    echo "$out" >&2; exit 1
  fi
done
# A data directory from before this field: its random bots, and the hosted
# template, left the main variant (they would sit at its tables).
for bot in random random-b hosted-python; do
  if [ -s "$data/tokens/$bot" ] && "${cli[@]}" bots list | grep -q "^$bot .*variants .*\b$variant\b"; then
    "${cli[@]}" bots update "$bot" --token "$(cat "$data/tokens/$bot")" --variants "$side_variant" \
      > /dev/null || true
  fi
done

# A hosted bot (docs/hosting.md): one bot host, and the Python template
# uploaded as `hosted-python`; it plays random's ladder. The host's sandbox
# needs root (cgroups) and bubblewrap; without them the arena runs without it
# (and without random's ladder, which needs three bots).
if [ "$hosting" -eq 1 ]; then
  if out=$("${cli[@]}" hosts add run-host 2>&1); then
    echo "$out" | sed -n 's/^token //p' > "$data/tokens/host-run-host"
  fi
  if [ -s "$data/tokens/host-run-host" ]; then
    TAROCK_HOST_TOKEN=$(cat "$data/tokens/host-run-host") "$bin/tarock-bothost" \
      --arena "127.0.0.1:$arena_port" --name run-host --work_dir "$data/bothost" \
      > "$data/logs/bothost.log" 2>&1 &
    pids+=($!)
    if out=$("${cli[@]}" bots add hosted-python --hosted --variants "$side_variant" \
               --owner "tarock-arena" 2>&1); then
      echo "$out" | sed -n 's/^token //p' > "$data/tokens/hosted-python"
    fi
    if [ -s "$data/tokens/hosted-python" ] &&
       [ -z "$("${cli[@]}" bots versions hosted-python)" ]; then
      "${cli[@]}" bots upload hosted-python --token "$(cat "$data/tokens/hosted-python")" \
        "$PWD/sdk/templates/python/my_bot.py" > /dev/null
    fi
    for _ in $(seq 100); do
      "${cli[@]}" bots versions hosted-python | head -1 | grep -q " ready " && break
      sleep 0.1
    done
    # Online before the ladder makes its first matches (it makes a few ahead).
    for _ in $(seq 100); do
      "${cli[@]}" bots list | grep '^hosted-python ' | grep -q 'online' && break
      sleep 0.1
    done
    echo "   hosted-python: the Python template, built and run by tarock-bothost in its sandbox" \
         "($("${cli[@]}" bots versions hosted-python | head -1 | awk '{print "version " $2 ", " $3}'))"
  fi
else
  echo "   (no hosted bot and no random bots: tarock-bothost needs root and bubblewrap;" \
       "docs/hosting.md)"
fi

# The default ladder (docs/ratings.md): duplicate sets rated on margins. A
# bridge set needs twice the variant's seats in bots; fewer: matches rated on
# places.
# (awk reads to the end: an early exit would end `tarock variants` with SIGPIPE.)
seats=$("$bin/tarock" variants | awk -v v="$variant" '
  $1 == v {f = 1; next}
  f && /seats/ && !n {sub(",", "", $2); n = $2}
  END {print n}')
field=${#bots[@]}
"${cli[@]}" ladder stop --variant "$variant" > /dev/null 2>&1 || true
ladder_variants+=("$variant")
if [ -n "$seats" ] && [ "$field" -ge $((2 * seats)) ]; then
  "${cli[@]}" ladder start --variant "$variant" --hands "$hands" --max_matches "$matches" > /dev/null
  ladder_kind="duplicate sets of $((2 * seats)) bots at 2 tables (the same deals at both), rated on score margins"
else
  "${cli[@]}" ladder start --variant "$variant" --format match --hands "$hands" --max_matches "$matches" > /dev/null
  ladder_kind="matches rated on places ($field bots cannot fill a duplicate set of $((2 * ${seats:-0})))"
fi
ladder_id=$("${cli[@]}" ladder list | awk -v v="$variant" '$3 == v && $4 == "running" {print $2}' | tail -1)
# Random's ladder: random, random-b and the hosted template at one table of
# three, rated on places, 100 matches (random's place is clear long before).
side=""
"${cli[@]}" ladder stop --variant "$side_variant" > /dev/null 2>&1 || true
if [ "$hosting" -eq 1 ] && "${cli[@]}" bots list | grep -q '^hosted-python '; then
  "${cli[@]}" ladder start --variant "$side_variant" --format match --hands 6 --max_matches 100 \
    > /dev/null
  ladder_variants+=("$side_variant")
  side="
   beside it:   $side_variant, random, random-b and hosted-python (the Python template) at one table, rated on places, 100 matches"
fi

cat <<INFO
== the arena is running
   web:         http://127.0.0.1:$http_port/   (home, leaderboards, bots, matches, viewer, tournaments)
                http://127.0.0.1:$http_port/play   (play a seat against the bots)
   ladder:      $variant, search and heuristic four times each, $ladder_kind, $hands hands a table$( [ "$matches" -gt 0 ] && echo ", $matches tables" )$side
   leaderboard: http://127.0.0.1:$http_port/leaderboard/$variant?compare=search,heuristic
   JSON API:    http://127.0.0.1:$http_port/api/leaderboard?variant=$variant
                http://127.0.0.1:$http_port/api/matches   (and /api/matches/ID, /api/bots)
   metrics:     http://127.0.0.1:$http_port/metrics  (arena)
                http://127.0.0.1:$metrics_port/metrics  (referee)
   CLI:         ${cli[*]} status
   data:        $data/
   logs:        $data/logs/   (arena.log, referee.log, bot-NAME.log: each process's output and event log)
   Ctrl-C stops everything.
INFO

while :; do
  sleep 2
  status=$("${cli[@]}" status)
  ladder_done=$("${cli[@]}" ladder list | awk -v id="$ladder_id" '$2 == id {print $5}')
  echo
  echo "== $(date +%T)  web: http://127.0.0.1:$http_port/  ladder matches: ${ladder_done:-0}  |  $status"
  # With the line that says how far search is above heuristic head to head.
  board=$("${cli[@]}" leaderboard --variant "$variant" --compare search,heuristic)
  echo "$board"
  if [ -n "$side" ]; then "${cli[@]}" leaderboard --variant "$side_variant"; fi
  if [ "$matches" -gt 0 ] && [ "${ladder_done:-0}" -ge "$matches" ]; then
    echo "== $matches matches done"
    case $board in
      *"not separated yet"*)
        echo "   search and heuristic are not separated yet: more tables narrow the interval" \
             "(by 100 tables the line separated them in 20 of 20 measured runs, and by 200 every search" \
             "was above every heuristic: docs/benchmarks.md, \"The main job's field\")" ;;
    esac
    break
  fi
done
