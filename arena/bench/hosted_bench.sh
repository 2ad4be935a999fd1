#!/usr/bin/env bash
# Hosted against dial-in (docs/benchmarks.md, "Hosted bots"): the Python
# template and a C++ bot (CPP_BOT: heuristic, the default, the repository's
# heuristic bot; or template), built from source against the installed SDK,
# each once dialing in and once hosted by tarock-bothost in its sandbox, play
# one ladder together (side by side, the same matches), then the referee's
# decision time per seat (time to answer as the referee measures it) is
# compared per bot, and the start cost of a sandboxed process is measured.
# A benchmark, not a test: run it with nice on a quiet machine, several times.
# Needs root and bwrap. HOST_FLAGS: more flags for the host (an A/B of a setting).
# PARALLEL: matches at once (the arena's --max_parallel, default 2: on 2 cores
# that saturates the machine, and a decision's time is then mostly its wait
# for a CPU; 1 leaves a CPU idle, and measures the decision's own path).
# Usage: [HOST_FLAGS="..."] [PARALLEL=N] [CPP_BOT=heuristic|template] hosted_bench.sh SOURCE_DIR BUILD_DIR [MATCHES]
set -uo pipefail
src=$(cd "$1" && pwd)
build=$(cd "$2" && pwd)
matches=${3:-40}
bin=$build/bin
# shellcheck source=tests/testlib.sh
source "$src/tests/testlib.sh"
# shellcheck source=arena/bench/benchlib.sh
source "$src/arena/bench/benchlib.sh"
setup_scratch

start_referee
start_arena --http_listen= --max_parallel "${PARALLEL:-2}"
$cli hosts add bench >"$tmp/host.txt"
for b in py-dial py-hosted cpp-dial cpp-hosted; do
  $cli bots add "$b" --dial_in --variants slovenian-4p --owner bench >"$tmp/$b.txt"
done
# The C++ bot (arena/bench/benchlib.sh).
cpp_bot_sources_and_dial_copy "${CPP_BOT:-heuristic}" || exit 1
TAROCK_BOT_TOKEN=$(token_of py-dial) PYTHONPATH="$build/python" /usr/bin/python3 -m tarock_bot connect \
  "$src/sdk/templates/python/my_bot.py" --arena "127.0.0.1:$ap" >"$tmp/py-dial.log" 2>&1 & pids+=($!)
TAROCK_BOT_TOKEN=$(token_of cpp-dial) "$tmp/cpp/my_bot" --arena "127.0.0.1:$ap" >"$tmp/cpp-dial.log" 2>&1 & pids+=($!)
TAROCK_HOST_TOKEN=$(token_of host) "$bin/tarock-bothost" --arena "127.0.0.1:$ap" --work_dir "$tmp/host" \
  --cpp_sdk "$tmp/sdk" ${HOST_FLAGS:-} >"$tmp/host.log" 2>&1 & pids+=($!)
$cli bots upload py-hosted --token "$(token_of py-hosted)" "$src/sdk/templates/python/my_bot.py" >/dev/null
$cli bots upload cpp-hosted --token "$(token_of cpp-hosted)" "$tmp/cpp-src" >/dev/null
for _ in $(seq 3000); do [ "$($cli bots list | grep -c online)" -ge 4 ] && break; sleep 1; done
$cli ladder start --variant slovenian-4p --format match --max_matches "$matches" --hands 8 >/dev/null
for _ in $(seq 6000); do $cli ladder list | grep -q "^ladder 1 .*stopped" && break; sleep 1; done
echo "== $matches matches of slovenian-4p (8 hands), all four bots in every match"
/usr/bin/python3 "$src/arena/bench/decision_medians.py" "$tmp/arena/arena.db" \
  "py: hosted / dial-in=py-hosted/py-dial" "cpp: hosted / dial-in=cpp-hosted/cpp-dial"
echo "== time in the bot process as the host sees it (the host's SDK, the line written, the"
echo "   program's wake-up and thinking, the answer read; mean per decision), and of it the wait"
echo "   from the request written to the answer read; medians over the seats of the seat's mean"
/usr/bin/python3 - "$tmp/host.log" <<'EOF'
import re, statistics, sys
by = {}
for line in open(sys.argv[1]):
    m = re.search(r": (\S+)\[\d+\]: seat ended, (\d+) decisions, ([0-9.]+) ms each[^;]*(?:; ([0-9.]+) ms waiting)?", line)
    if m:
        d = by.setdefault(m.group(1), [0, 0.0, [], []])
        d[0] += int(m.group(2))
        d[1] += int(m.group(2)) * float(m.group(3))
        d[2].append(float(m.group(3)))
        if m.group(4): d[3].append(float(m.group(4)))
for name in sorted(by):
    d = by[name]
    wait = f", waiting for the answer {statistics.median(d[3]):7.3f} ms" if d[3] else ""
    print(f"{name:11s} mean {d[1] / d[0]:7.3f} ms over {d[0]} decisions; median of seats {statistics.median(d[2]):7.3f} ms{wait}")
EOF
echo "== start cost per seat (the host's log: sandbox start to the first answer is not logged;"
echo "   measured here: a sandboxed run of each program with empty input, 10 runs, median)"
"$bin/sandbox_bench" "$tmp/host/sdk/python" "$tmp/cpp/my_bot" "$src/sdk/templates/python/my_bot.py" 2>/dev/null
