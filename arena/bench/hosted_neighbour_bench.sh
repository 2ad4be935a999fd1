#!/usr/bin/env bash
# A hosted bot beside a hosted bot that never stops thinking (docs/benchmarks.md,
# "A thinking neighbour"): issue 31 asks for a CPU share per bot "so one bot's
# thinking, on its turn or off it, cannot slow another's". The bot host and its
# sandboxed bots get CPU 1 to themselves (taskset), as a host on a machine of
# its own; the referee, the arena and the dialed-in bots run on CPU 0. A ladder
# of four: the heuristic bot built from source, hosted (cpp-hosted) and dialed
# in (cpp-dial), a random bot, and a fourth, hosted Python bot: with SPIN=1 a
# spinner (the Python template with a child process that spins from the start
# of each match to its end), else the plain Python template.
# Printed: each bot's median of its per-match mean decision time. Compare
# cpp-hosted between runs with SPIN=0 and SPIN=1, alternated; cpp-dial is the
# control. A benchmark, not a test. Needs root, bwrap and 2 CPUs.
# Usage: [SPIN=0|1] [HOST_FLAGS="..."] hosted_neighbour_bench.sh SOURCE_DIR BUILD_DIR [MATCHES]
set -uo pipefail
src=$(cd "$1" && pwd)
build=$(cd "$2" && pwd)
matches=${3:-20}
bin=$build/bin
# shellcheck source=tests/testlib.sh
source "$src/tests/testlib.sh"
# shellcheck source=arena/bench/benchlib.sh
source "$src/arena/bench/benchlib.sh"
setup_scratch
[ "$(nproc)" -ge 2 ] || { echo "needs 2 CPUs"; exit 1; }

on0() { taskset -c 0 "$@"; }
rp=$(free_port)
on0 "$bin/tarock-referee" --listen "127.0.0.1:$rp" --metrics_listen= >"$tmp/referee.log" 2>&1 & pids+=($!)
wait_port "$rp" || { echo "the referee never listened"; exit 1; }
ap=$(free_port)
on0 "$bin/tarock-arena" --data_dir "$tmp/arena" --listen "127.0.0.1:$ap" --referees "127.0.0.1:$rp" \
  --http_listen= --max_parallel 1 >"$tmp/arena.log" 2>&1 & pids+=($!)
cli="$bin/tarock-arena-cli --arena 127.0.0.1:$ap"
for _ in $(seq 100); do grep -q "arena listening" "$tmp/arena.log" && break; sleep 0.1; done
$cli hosts add bench >"$tmp/host.txt"
fourth=$([ "${SPIN:-0}" = 1 ] && echo spin-hosted || echo py-hosted)
for b in cpp-dial cpp-hosted "$fourth"; do
  $cli bots add "$b" --dial_in --variants slovenian-4p --owner bench >"$tmp/$b.txt"
done
port=$(free_port)
on0 "$bin/tarock-bot-random" --listen "127.0.0.1:$port" >/dev/null 2>&1 & pids+=($!)
wait_port "$port" || { echo "the random bot never listened"; exit 1; }
$cli bots add random --endpoint "127.0.0.1:$port" --variants slovenian-4p --owner bench >/dev/null
# The heuristic bot's sources as an upload, and its dialed-in copy (benchlib.sh).
cpp_bot_sources_and_dial_copy heuristic || exit 1
TAROCK_BOT_TOKEN=$(token_of cpp-dial) on0 "$tmp/cpp/my_bot" --arena "127.0.0.1:$ap" >"$tmp/cpp-dial.log" 2>&1 & pids+=($!)
TAROCK_HOST_TOKEN=$(token_of host) taskset -c 1 "$bin/tarock-bothost" --arena "127.0.0.1:$ap" \
  --work_dir "$tmp/host" --cpp_sdk "$tmp/sdk" ${HOST_FLAGS:-} >"$tmp/host.log" 2>&1 & pids+=($!)
if [ "$fourth" = spin-hosted ]; then
  # The template's play, and from each match's start to its end a child that
  # spins (in its sandbox, under its CPU share): thinking off its turn.
  { cat "$src/sdk/templates/python/my_bot.py"
    printf '\n\nimport os as _os\n\n\nclass _Spin(MyBot):\n    def start_match(self, match):\n'
    printf '        if _os.fork() == 0:\n            while True:\n                pass\n'
    printf '        return super().start_match(match)\n\n\ndef make_bot():\n    return _Spin()\n'
  } >"$tmp/spin_bot.py"
  $cli bots upload spin-hosted --token "$(token_of spin-hosted)" "$tmp/spin_bot.py" >/dev/null
else
  $cli bots upload py-hosted --token "$(token_of py-hosted)" "$src/sdk/templates/python/my_bot.py" >/dev/null
fi
$cli bots upload cpp-hosted --token "$(token_of cpp-hosted)" "$tmp/cpp-src" >/dev/null
for _ in $(seq 3000); do [ "$($cli bots list | grep -c online)" -ge 3 ] && break; sleep 1; done
$cli ladder start --variant slovenian-4p --format match --max_matches "$matches" --hands 8 >/dev/null
for _ in $(seq 6000); do $cli ladder list | grep -q "^ladder 1 .*stopped" && break; sleep 2; done
echo "== $matches matches of slovenian-4p (8 hands); the host and its bots on CPU 1; fourth bot: $fourth"
/usr/bin/python3 "$src/arena/bench/decision_medians.py" "$tmp/arena/arena.db"
