#!/usr/bin/env bash
# Two bot hosts side by side (docs/benchmarks.md, "Hosted bots"): the C++
# template hosted by host A (flags HOST_A_FLAGS) and by host B (HOST_B_FLAGS),
# with the same template dialing in and the Python template dialing in, all
# four in every match of one ladder, so both hosts run under the same load.
# Prints each bot's median of per-match mean decision time (as the referee
# measures it), each hosted one against dial-in, and B against A.
# A benchmark, not a test: run it with nice, several times. Needs root and bwrap.
# HOST_A_ENV / HOST_B_ENV: VAR=VALUE words for each host's environment.
# Usage: HOST_A_FLAGS="..." HOST_B_FLAGS="--bot_cpus 0" hosted_ab_bench.sh SOURCE_DIR BUILD_DIR [MATCHES]
set -uo pipefail
src=$(cd "$1" && pwd)
build=$(cd "$2" && pwd)
matches=${3:-40}
bin=$build/bin
# shellcheck source=tests/testlib.sh
source "$src/tests/testlib.sh"
setup_scratch

start_referee
start_arena --http_listen= --max_parallel 2
$cli hosts add host-a >"$tmp/host-a.txt"
$cli hosts add host-b >"$tmp/host-b.txt"
for b in py-dial cpp-dial cpp-a cpp-b; do
  $cli bots add "$b" --dial_in --variants slovenian-4p --owner bench >"$tmp/$b.txt"
done
cmake --install "$build" --prefix "$tmp/sdk" >/dev/null 2>&1
cmake -S "$src/sdk/templates/cpp" -B "$tmp/cpp" -G Ninja -DCMAKE_PREFIX_PATH="$tmp/sdk" >/dev/null &&
  cmake --build "$tmp/cpp" >/dev/null || { echo "cannot build the C++ template"; exit 1; }
TAROCK_BOT_TOKEN=$(token_of py-dial) PYTHONPATH="$build/python" /usr/bin/python3 -m tarock_bot connect \
  "$src/sdk/templates/python/my_bot.py" --arena "127.0.0.1:$ap" >"$tmp/py-dial.log" 2>&1 & pids+=($!)
TAROCK_BOT_TOKEN=$(token_of cpp-dial) "$tmp/cpp/my_bot" --arena "127.0.0.1:$ap" >"$tmp/cpp-dial.log" 2>&1 & pids+=($!)
online() { $cli bots list | grep -q "^$1  dial-in (online"; }
# Host A first, holding one bot (capacity 1): cpp-a; then host B takes cpp-b.
# shellcheck disable=SC2086
env ${HOST_A_ENV:-} TAROCK_HOST_TOKEN=$(token_of host-a) "$bin/tarock-bothost" --arena "127.0.0.1:$ap" --name host-a \
  --work_dir "$tmp/host-a" --cpp_sdk "$tmp/sdk" --capacity 1 ${HOST_A_FLAGS:-} >"$tmp/host-a.log" 2>&1 & pids+=($!)
$cli bots upload cpp-a --token "$(token_of cpp-a)" "$src/sdk/templates/cpp/my_bot.cc" >/dev/null
for _ in $(seq 3000); do online cpp-a && break; sleep 0.2; done
# shellcheck disable=SC2086
env ${HOST_B_ENV:-} TAROCK_HOST_TOKEN=$(token_of host-b) "$bin/tarock-bothost" --arena "127.0.0.1:$ap" --name host-b \
  --work_dir "$tmp/host-b" --cpp_sdk "$tmp/sdk" --capacity 1 ${HOST_B_FLAGS:-} >"$tmp/host-b.log" 2>&1 & pids+=($!)
$cli bots upload cpp-b --token "$(token_of cpp-b)" "$src/sdk/templates/cpp/my_bot.cc" >/dev/null
for _ in $(seq 3000); do online cpp-b && online py-dial && online cpp-dial && break; sleep 0.2; done
$cli ladder start --variant slovenian-4p --format match --max_matches "$matches" --hands 8 >/dev/null
for _ in $(seq 6000); do $cli ladder list | grep -q "^ladder 1 .*stopped" && break; sleep 0.2; done
echo "== $matches matches of slovenian-4p (8 hands); host A: '${HOST_A_ENV:-} ${HOST_A_FLAGS:-}', host B: '${HOST_B_ENV:-} ${HOST_B_FLAGS:-}'"
/usr/bin/python3 "$src/arena/bench/decision_medians.py" "$tmp/arena/arena.db" \
  "A / dial-in=cpp-a/cpp-dial" "B / dial-in=cpp-b/cpp-dial" "B / A=cpp-b/cpp-a"
