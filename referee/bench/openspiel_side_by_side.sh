#!/usr/bin/env bash
# This engine against OpenSpiel's `tarok` game (Slovenian Tarok, 3 and 4
# players), side by side in one run: both play uniformly random legal actions
# for the same number of decisions, alternating run by run, and the script
# prints the medians of decisions per CPU second and their ratio.
#
#   ./scripts/build.sh                                  # build/bin/random_decisions
#   referee/bench/openspiel_side_by_side.sh --openspiel /path/to/open_spiel.git
#
# --openspiel takes a bare git directory or a checkout of
# github.com/google-deepmind/open_spiel. Only OpenSpiel's core and games/tarok
# are compiled (ten files, g++ -O3 -DNDEBUG like this project's Release
# build, niced, one at a time, in --work) against Debian's libabsl-dev
# 20220623 instead of OpenSpiel's own Abseil checkout. Two source changes make
# it compile there, both applied to the scratch copy only: Debian's Abseil has
# absl::optional apart from std::optional (OpenSpiel mixes the two names), so
# absl::optional/nullopt become std::; and its absl::MutexLock takes a pointer,
# not a reference (two lines of spiel.h). Neither is on the path being timed.
#
# Options (defaults in brackets):
#   --openspiel DIR   OpenSpiel bare git dir or checkout [/work/.mirror/google-deepmind+open_spiel/repo]
#   --build DIR       this project's build directory [build]
#   --work DIR        scratch directory for OpenSpiel's sources and objects [${TMPDIR:-/tmp}/openspiel-tarok]
#   --runs N          runs per engine and configuration [5]
#   --decisions N     decisions per run, the same for both engines [5000000]
#   --players "4 3"   which tables
#   --auctions "random three"   random: every bid random; three: the auction fixed to Three
#   --scores "score noscore"    score: every hand scored (our State::Result(), OpenSpiel's
#                     Returns()); noscore: only the first 1,000 hands, as engine_bench does
# Exit status: 0 when every run finished, 1 on a build or run failure.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
openspiel=/work/.mirror/google-deepmind+open_spiel/repo
build="$root/build"
work="${TMPDIR:-/tmp}/openspiel-tarok"
runs=5
decisions=5000000
players="4 3"
auctions="random three"
scores="score noscore"
while [ $# -gt 0 ]; do
  case "$1" in
    --openspiel) openspiel="$2"; shift 2 ;;
    --build) build="$(cd "$2" && pwd)"; shift 2 ;;
    --work) work="$2"; shift 2 ;;
    --runs) runs="$2"; shift 2 ;;
    --decisions) decisions="$2"; shift 2 ;;
    --players) players="$2"; shift 2 ;;
    --auctions) auctions="$2"; shift 2 ;;
    --scores) scores="$2"; shift 2 ;;
    -h|--help) sed -n '2,30p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "unknown option: $1" >&2; exit 1 ;;
  esac
done

ours="$build/bin/random_decisions"
[ -x "$ours" ] || { echo "no $ours: build this project first (./scripts/build.sh)" >&2; exit 1; }

# 1. OpenSpiel's sources: open_spiel/ of the given commit or checkout.
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
  if [ "$(cat "$work/commit" 2>/dev/null)" != "$commit" ] || [ "$commit" = unknown ]; then
    rm -rf "$src" "$work/obj"; mkdir -p "$src"
    cp -r "$openspiel/open_spiel" "$src/"
  fi
else
  echo "--openspiel $openspiel is neither a git directory nor a checkout of open_spiel" >&2
  exit 1
fi
echo "$commit" > "$work/commit"
os="$src/open_spiel"

# 2. Debian's Abseil and nlohmann-json where OpenSpiel expects its own copies,
#    and the two source changes (see the top of this file).
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

# 3. Compile OpenSpiel's core and tarok, and the driver, one file at a time.
obj="$work/obj"
mkdir -p "$obj"
cxx=(nice g++ -std=c++17 -O3 -DNDEBUG -include optional -I"$src" -I"$os/abseil-cpp" -I"$root")
for f in $files; do
  o="$obj/$(echo "$f" | tr / _).o"
  if [ ! -f "$o" ]; then
    echo "== compiling open_spiel/$f.cc" >&2
    "${cxx[@]}" -c "$os/$f.cc" -o "$o"
  fi
done
echo "== compiling the driver" >&2
"${cxx[@]}" -c "$here/openspiel_random_decisions.cc" -o "$obj/driver.o"
# shellcheck disable=SC2046
g++ -o "$work/openspiel_random_decisions" "$obj"/*.o \
  $(pkg-config --libs absl_strings absl_str_format absl_synchronization absl_time absl_random_random absl_flat_hash_map)
theirs="$work/openspiel_random_decisions"

# 4. The runs: for each table and auction, ours and OpenSpiel's in turn (the
#    order swapped every run), the same number of decisions and seed.
results="$work/results.jsonl"
: > "$results"
echo "== OpenSpiel $commit; $runs runs of $decisions decisions per engine and configuration" >&2
for p in $players; do
  for a in $auctions; do
    for sc in $scores; do
      ours_run=("$ours" --players "$p" --decisions "$decisions" --auction "$a" --score="$([ "$sc" = score ] && echo true || echo false)")
      for r in $(seq 1 "$runs"); do
        if [ $((r % 2)) -eq 1 ]; then
          "${ours_run[@]}" --seed "$r" >> "$results"
          "$theirs" "$p" "$decisions" "$r" "$a" "$sc" >> "$results"
        else
          "$theirs" "$p" "$decisions" "$r" "$a" "$sc" >> "$results"
          "${ours_run[@]}" --seed "$r" >> "$results"
        fi
        tail -n 2 "$results" >&2
      done
    done
  done
done

# 5. Medians and the ratio (median of this engine / median of OpenSpiel's).
python3 - "$results" "$commit" "$runs" <<'EOF'
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
print(f"OpenSpiel commit {sys.argv[2]}; per CPU second, medians of {sys.argv[3]} runs; "
      "ratio = this engine's median / OpenSpiel's (in brackets: the lowest and highest ratio of a run pair)")
print()
print("| table | auction | every hand scored | decisions/s: this engine | OpenSpiel | ratio "
      "| decisions/hand (ours, OpenSpiel) | hands/s ratio |")
print("| --- | --- | --- | ---: | ---: | ---: | --- | ---: |")
def key(r):
    return (r["variant"][-2:], r["auction"], r["score"])
def med(xs, f):
    return statistics.median(f(r) for r in xs)
keys = []
for r in rows:
    if key(r) not in keys:
        keys.append(key(r))
for k in keys:
    ours = [r for r in rows if r["engine"] == "tarock" and key(r) == k]
    theirs = [r for r in rows if r["engine"] == "openspiel" and key(r) == k]
    mo = med(ours, lambda r: r["decisions_per_s"])
    mt = med(theirs, lambda r: r["decisions_per_s"])
    ratios = sorted(a["decisions_per_s"] / b["decisions_per_s"] for a, b in zip(ours, theirs))
    hands = med(ours, lambda r: r["hands"] / r["cpu_seconds"]) / med(theirs, lambda r: r["hands"] / r["cpu_seconds"])
    print(f"| {k[0]} | {k[1]} | {'yes' if k[2] else 'no'} | {mo / 1e6:.1f} M | {mt / 1e6:.2f} M "
          f"| **{mo / mt:.1f}x** ({ratios[0]:.1f}-{ratios[-1]:.1f}) "
          f"| {med(ours, lambda r: r['decisions_per_hand']):.1f}, {med(theirs, lambda r: r['decisions_per_hand']):.1f} "
          f"| {hands:.1f}x |")
EOF
