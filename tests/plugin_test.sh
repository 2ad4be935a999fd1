#!/usr/bin/env bash
# End-to-end test of run-time variant plugins: builds examples/plugin-variant out
# of tree against the engine's build-tree package (TarockEngineConfig.cmake),
# loads it into the `tarock` tool with --plugin and TAROCK_PLUGINS, and plays and
# replays hands of its variant. Usage: plugin_test.sh SOURCE_DIR BUILD_DIR
set -uo pipefail
if [ $# -ne 2 ]; then echo "usage: $0 SOURCE_DIR BUILD_DIR" >&2; exit 2; fi
src=$(cd "$1" && pwd) || { echo "FAIL: no source dir $1"; exit 1; }
build=$(cd "$2" && pwd) || { echo "FAIL: no build dir $2"; exit 1; }
tarock="$build/bin/tarock"
variant=example-high-card
[ -x "$tarock" ] || { echo "FAIL: $tarock not built"; exit 1; }
[ -f "$build/TarockEngineConfig.cmake" ] || { echo "FAIL: $build/TarockEngineConfig.cmake missing"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=tests/testlib.sh
source "$(dirname "${BASH_SOURCE[0]}")/testlib.sh"
scores_of() { sed -n 's/.*"scores":\[\([^]]*\)\].*/\1/p' <<<"$1"; }
tricks_of() { sed -n 's/.*"tricks":\[\([^]]*\)\].*/\1/p' <<<"$1"; }

# Build the example against this build, with the same compiler (C++ ABI).
cmake_args=(-S "$src/examples/plugin-variant" -B "$tmp/build" -DCMAKE_BUILD_TYPE=Release
            "-DTarockEngine_DIR=$build")
cxx=$(sed -n 's/^CMAKE_CXX_COMPILER:[A-Z]*=//p' "$build/CMakeCache.txt" 2>/dev/null)
[ -n "$cxx" ] && cmake_args+=("-DCMAKE_CXX_COMPILER=$cxx")
command -v ninja >/dev/null && cmake_args+=(-G Ninja)
if ! cmake "${cmake_args[@]}" > "$tmp/configure.log" 2>&1; then
  echo "FAIL: configuring examples/plugin-variant against $build:"; tail -n 30 "$tmp/configure.log"; exit 1
fi
if ! cmake --build "$tmp/build" > "$tmp/build.log" 2>&1; then
  echo "FAIL: building examples/plugin-variant:"; tail -n 30 "$tmp/build.log"; exit 1
fi
lib=$(find "$tmp/build" -maxdepth 2 -name 'libtarock_variant_example.*' -type f | head -n 1)
[ -n "$lib" ] || { echo "FAIL: the build produced no libtarock_variant_example"; exit 1; }
t() { "$tarock" --plugin="$lib" "$@"; }

# The variant is listed with the plugin and only with it; built-ins stay.
out=$(t variants) && ok || bad "variants with the plugin failed"
case "$out" in *"$variant"*"seats 2, 4 cards each, talon 6"*) ok ;; *) bad "variants lacks $variant: $out" ;; esac
case "$out" in *slovenian-4p*) ok ;; *) bad "built-in variants gone with the plugin" ;; esac
case "$("$tarock" variants)" in *"$variant"*) bad "$variant listed without the plugin" ;; *) ok ;; esac
case "$(TAROCK_PLUGINS="$lib" "$tarock" variants)" in *"$variant"*) ok ;; *) bad "TAROCK_PLUGINS did not load $lib" ;; esac

# A seeded deal is deterministic; play it out, always taking the first legal action.
deal=$(t deal --variant "$variant" --seed 5) || bad "deal failed"
[ "$deal" = "$(t deal --variant "$variant" --seed 5)" ] && ok || bad "deal not deterministic"
[ "$deal" != "$(t deal --variant "$variant" --seed 6)" ] && ok || bad "seeds 5 and 6 gave the same deal"
case "$deal" in *'"hands":[['*'],['*']]'*'"talon":['*) ok ;; *) bad "deal record: $deal" ;; esac
acts="" res=""
for i in 1 2 3 4 5 6 7 8 9; do
  rec=$(sed "s/\"actions\":\[\]/\"actions\":[${acts#,}]/" <<<"$deal")
  res=$(printf '%s' "$rec" | t replay -) || { bad "replay after $((i - 1)) actions failed"; break; }
  case "$res" in *'"finished":true'*) break ;; esac
  next=$(sed -n 's/.*"legal":\["\([^"]*\)".*/\1/p' <<<"$res")
  [ -n "$next" ] || { bad "no legal action in $res"; break; }
  acts="$acts,\"$next\""
done
case "$res" in *'"finished":true'*'"actions":8'*|*'"actions":8'*'"finished":true'*) ok ;;
  *) bad "seed-5 hand did not finish after 8 plays: $res" ;; esac
read -r s0 s1 <<<"$(scores_of "$res" | tr ',' ' ')"
read -r k0 k1 <<<"$(tricks_of "$res" | tr ',' ' ')"
if [ -n "${s0:-}" ] && [ $((s0 + s1)) -eq 0 ] && [ $((k0 + k1)) -eq 4 ] &&
   [ "$s0" -eq $((k0 - 2)) ] && [ "$s1" -eq $((k1 - 2)) ]; then ok
else bad "seed-5 scores/tricks inconsistent: $res"; fi

# A hand with a known outcome. Seat 0 leads (dealer 1):
#   HK HQ -> seat 0 (followed suit);  H4 H1 -> seat 1 (red 1 beats red 4);
#   CK T1 -> seat 0 (tarock trumps);  S7 D4 -> seat 0 (off-suit card loses).
known='{"variant":"example-high-card","dealer":1,"hands":[["HK","H4","S7","T1"],["HQ","H1","CK","D4"]],
 "talon":["T3","T4","T5","T6","T7","T8"],
 "actions":["play HK","play HQ","play H4","play H1","play CK","play T1","play S7","play D4"]}'
res=$(printf '%s' "$known" | t replay -) || bad "replay of the known hand failed"
[ "$(scores_of "$res")" = "1,-1" ] && ok || bad "known hand: want scores [1,-1]: $res"
[ "$(tricks_of "$res")" = "3,1" ] && ok || bad "known hand: want tricks [3,1]: $res"
printf '%s' "${known%\}}"',"scores":[1,-1]}' > "$tmp/known.json"
t replay "$tmp/known.json" > /dev/null && ok || bad "recorded scores [1,-1] rejected"
printf '%s' "${known%\}}"',"scores":[-1,1]}' > "$tmp/wrong.json"
expect_error wrong-scores "replayed scores differ" t replay "$tmp/wrong.json"
sed 's/"play HK","play HQ"/"play HK","play CK"/' <<<"$known" > "$tmp/revoke.json"
expect_error revoke "action 1 ('play CK'): illegal action 'play CK' for seat 1" t replay "$tmp/revoke.json"
sed 's/"D4"\]\]/"H4"]]/' <<<"$known" > "$tmp/dup.json"
expect_error duplicate "dealt twice" t replay "$tmp/dup.json"

# demo plays every registered variant, the plugin's too; its record replays.
t demo --seed 5 > "$tmp/demo.txt" && ok || bad "demo with the plugin failed"
grep -q "^== $variant " "$tmp/demo.txt" && ok || bad "demo did not play $variant"
rec=$(grep '^record: ' "$tmp/demo.txt" | grep "\"variant\":\"$variant\"" | head -n 1); rec=${rec#record: }
res=$(printf '%s' "$rec" | t replay -) || bad "replay of the demo record failed"
case "$res" in *'"finished":true'*) ok ;; *) bad "demo record did not finish: $res" ;; esac
read -r s0 s1 <<<"$(scores_of "$res" | tr ',' ' ')"
[ -n "${s0:-}" ] && [ $((s0 + s1)) -eq 0 ] && ok || bad "demo scores not zero-sum: $res"

# Loading failures: a clear one-line error and a non-zero exit.
expect_error no-plugin "cannot load plugin $tmp/nope.so" "$tarock" --plugin="$tmp/nope.so" variants
expect_error no-plugin-env "cannot load plugin $tmp/nope.so" env TAROCK_PLUGINS="$tmp/nope.so" "$tarock" variants
expect_error not-a-plugin "does not export tarock_plugin_abi_version" \
  "$tarock" --plugin="$build/lib/libtarock_engine.so" variants

echo "plugin test: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
