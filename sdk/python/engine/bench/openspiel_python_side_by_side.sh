#!/usr/bin/env bash
# tarock_engine against OpenSpiel's `tarok`, both stepped from Python through a
# pybind11 binding, side by side in one run: random legal actions chosen in
# Python for the same number of decisions, runs alternating, medians of
# decisions per CPU second and their ratio (docs/benchmarks.md).
#
#   ninja -C build tarock_engine_core                  # build/python/tarock_engine
#   sdk/python/engine/bench/openspiel_python_side_by_side.sh [--openspiel DIR]
#
# OpenSpiel's core and games/tarok are compiled as referee/bench/openspiel_side_by_side.sh
# does (its two source changes for Debian's Abseil, here with -fPIC), plus
# openspiel_tarok_py.cc beside this script: the calls a Python loop makes, bound
# with pybind11 as pyspiel binds them. OpenSpiel's whole pyspiel is not built.
#
# Options (defaults in brackets):
#   --openspiel DIR   bare git dir or checkout [/work/.mirror/google-deepmind+open_spiel/repo]
#   --build DIR       this project's build directory [build]
#   --work DIR        scratch directory [${TMPDIR:-/tmp}/openspiel-tarok-py]
#   --runs N          runs per engine and table [5]
#   --decisions N     decisions per run [300000]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../../../.." && pwd)"
openspiel=/work/.mirror/google-deepmind+open_spiel/repo
build="$root/build"
work="${TMPDIR:-/tmp}/openspiel-tarok-py"
runs=5
decisions=300000
while [ $# -gt 0 ]; do
  case "$1" in
    --openspiel) openspiel="$2"; shift 2 ;;
    --build) build="$(cd "$2" && pwd)"; shift 2 ;;
    --work) work="$2"; shift 2 ;;
    --runs) runs="$2"; shift 2 ;;
    --decisions) decisions="$2"; shift 2 ;;
    -h|--help) sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "unknown option: $1" >&2; exit 1 ;;
  esac
done
[ -d "$build/python/tarock_engine" ] || { echo "no $build/python/tarock_engine: build tarock_engine_core" >&2; exit 1; }

mkdir -p "$work"
src="$work/src"
if [ -f "$openspiel/HEAD" ] && [ -d "$openspiel/objects" ]; then
  commit="$(git --git-dir="$openspiel" rev-parse HEAD)"
  if [ "$(cat "$work/commit" 2>/dev/null)" != "$commit" ]; then
    rm -rf "$src" "$work/obj"; mkdir -p "$src"
    git --git-dir="$openspiel" archive HEAD open_spiel | tar -x -C "$src"
  fi
elif [ -f "$openspiel/open_spiel/spiel.h" ]; then
  commit="$(git -C "$openspiel" rev-parse HEAD 2>/dev/null || echo unknown)"
  rm -rf "$src" "$work/obj"; mkdir -p "$src"
  cp -r "$openspiel/open_spiel" "$src/"
else
  echo "--openspiel $openspiel is neither a git directory nor a checkout of open_spiel" >&2
  exit 1
fi
echo "$commit" > "$work/commit"
os="$src/open_spiel"
ln -sfn /usr/include "$os/abseil-cpp"
mkdir -p "$os/json" && ln -sfn /usr/include "$os/json/include"
sed -i 's/absl::MutexLock lock(mutex_defaulted_parameters_)/absl::MutexLock lock(\&mutex_defaulted_parameters_)/' "$os/spiel.h"
files="spiel spiel_utils game_parameters observer policy utils/status utils/usage_logging
       games/tarok/tarok games/tarok/cards games/tarok/contracts"
for f in $files; do
  for ext in h cc; do
    [ -f "$os/$f.$ext" ] && sed -i 's/absl::optional/std::optional/g; s/absl::nullopt/std::nullopt/g; s/absl::make_optional/std::make_optional/g' "$os/$f.$ext"
  done
done
obj="$work/obj"
mkdir -p "$obj"
pyinc="$(/usr/bin/python3 -c 'import sysconfig; print(sysconfig.get_paths()["include"])')"
cxx=(nice g++ -std=c++17 -O3 -DNDEBUG -fPIC -include optional -I"$src" -I"$os/abseil-cpp")
for f in $files; do
  o="$obj/$(echo "$f" | tr / _).o"
  if [ ! -f "$o" ]; then
    echo "== compiling open_spiel/$f.cc" >&2
    "${cxx[@]}" -c "$os/$f.cc" -o "$o"
  fi
done
echo "== compiling the binding" >&2
ext="$work/openspiel_tarok$(/usr/bin/python3 -c 'import sysconfig; print(sysconfig.get_config_var("EXT_SUFFIX"))')"
"${cxx[@]}" -fvisibility=hidden -I"$pyinc" -shared -o "$ext" "$here/openspiel_tarok_py.cc" "$obj"/*.o \
  $(pkg-config --libs absl_strings absl_str_format absl_synchronization absl_time absl_random_random absl_flat_hash_map)

PYTHONPATH="$build/python:$work" /usr/bin/python3 - "$runs" "$decisions" "$commit" <<'PY'
import random, statistics, sys, time
import openspiel_tarok as ost
import tarock_engine as te

runs, target, commit = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]


def ours(players: int, seed: int) -> float:
    game = te.Game(f"slovenian-{players}p")
    rnd = random.Random(seed).random
    n, hand = 0, seed * 1000003
    start = time.process_time()
    while n < target:
        s = game.new_hand(seed=hand)
        hand += 1
        while not s.is_terminal:
            legal = s.legal_actions()
            s.apply(legal[int(rnd() * len(legal))])
            n += 1
        s.scores
    return n / (time.process_time() - start)


def theirs(players: int, seed: int) -> float:
    game = ost.Game(players, seed)
    rnd = random.Random(seed).random
    n = 0
    start = time.process_time()
    while n < target:
        s = game.new_initial_state()
        while not s.is_terminal():
            if s.is_chance_node():
                s.apply_action(s.chance_outcome())  # the deal: not a decision
                continue
            legal = s.legal_actions()
            s.apply_action(legal[int(rnd() * len(legal))])
            n += 1
        s.returns()
    return n / (time.process_time() - start)


print(f"OpenSpiel {commit}; {runs} runs of {target} decisions each, random bids, from Python")
for players in (4, 3):
    a, b = [], []
    for r in range(1, runs + 1):
        pair = [(a, ours), (b, theirs)] if r % 2 else [(b, theirs), (a, ours)]
        for out, fn in pair:
            out.append(fn(players, r))
    ma, mb = statistics.median(a), statistics.median(b)
    print(f"{players} players: tarock_engine {ma:,.0f}/s, OpenSpiel tarok {mb:,.0f}/s, ratio {ma / mb:.2f}")
PY
