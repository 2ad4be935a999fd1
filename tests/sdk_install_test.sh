#!/usr/bin/env bash
# The C++ SDK as an installed CMake package: install the build into a scratch
# prefix, build sdk/cpp/examples/sample_bot out of tree against it, and play a
# match with the sample bot against the random bot through `tarock match`; and
# the installed Python SDK (share/tarock/python, the wheel in share/tarock/dist).
# Usage: sdk_install_test.sh SOURCE_DIR BUILD_DIR
set -uo pipefail
src="$1" build="$2"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=tests/testlib.sh
source "$(dirname "${BASH_SOURCE[0]}")/testlib.sh"

cmake --install "$build" --prefix "$tmp/prefix" >/dev/null && ok || bad "cmake --install failed"
[ -f "$tmp/prefix/lib/cmake/TarockSDK/TarockSDKConfig.cmake" ] && ok || bad "no package config installed"
[ -f "$tmp/prefix/include/tarock/sdk/bot.h" ] && ok || bad "SDK headers not installed"
# Every installed SDK header compiles on its own from the prefix (no header of
# the source tree it depends on is missing; determinize.h needs the variants').
for h in "$tmp/prefix/include/tarock/sdk/"*.h; do
  printf '#include "tarock/sdk/%s"\n' "$(basename "$h")" >"$tmp/self.cc"
  "${CXX:-c++}" -std=c++20 -fsyntax-only -I"$tmp/prefix/include" "$tmp/self.cc" 2>"$tmp/self.log" && ok \
    || { bad "$(basename "$h") does not compile from the prefix alone"; head -5 "$tmp/self.log"; }
done
cmake -S "$src/sdk/cpp/examples/sample_bot" -B "$tmp/sample" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$tmp/prefix" >"$tmp/configure.log" 2>&1 && ok || { bad "configure failed"; cat "$tmp/configure.log"; }
cmake --build "$tmp/sample" >"$tmp/build.log" 2>&1 && ok || { bad "build failed"; tail -30 "$tmp/build.log"; }
# The sample depends on nothing in the build tree: only the prefix.
if grep -q "$build/" "$tmp/sample/build.ninja"; then bad "sample build refers to the build tree"; else ok; fi

random="$build/bin/tarock-bot-random"
out=$(timeout 60 "$tmp/prefix/bin/tarock" match --variant slovenian-4p --hands 8 --seed 3 --quiet --json \
      sample="$tmp/sample/sample_bot" r1="$random" r2="$random" r3="$random")
[ $? -eq 0 ] && ok || bad "match with the sample bot failed: $out"
echo "$out" | /usr/bin/python3 -c '
import json, sys
d = json.load(sys.stdin)
s = [b for b in d["bots"] if b["bot"] == "sample"][0]
assert s["faults"] == 0 and s["decisions"] > 0, s
' && ok || bad "sample bot faulted or never decided: $out"

# The Python SDK in the prefix: the package with its messages (real files, no
# links into the tree), the wheel, and `tarock match` running a py: bot from it.
py="$tmp/prefix/share/tarock/python"
[ -f "$py/tarock_bot/__init__.py" ] && [ -f "$py/tarock_bot/_generated/tarock_pb2.py" ] && ok \
  || bad "Python SDK not installed in $py"
[ -z "$(find "$py" -type l)" ] && ok || bad "links installed in $py: $(find "$py" -type l)"
ls "$tmp/prefix/share/tarock/dist/"tarock_bot-*-py3-none-any.whl >/dev/null && ok || bad "no wheel installed"
cp "$src/sdk/templates/python/my_bot.py" "$tmp/my_bot.py"
out=$(env -u PYTHONPATH -u TAROCK_PYTHONPATH timeout 60 "$tmp/prefix/bin/tarock" match --variant slovenian-3p \
      --hands 3 --seed 3 --quiet --json py="py:$tmp/my_bot.py" r1="$random" r2="$random")
[ $? -eq 0 ] && echo "$out" | /usr/bin/python3 -c '
import json, sys
d = json.load(sys.stdin)
s = [b for b in d["bots"] if b["bot"] == "py"][0]
assert s["faults"] == 0 and s["decisions"] > 0, s
' && ok || bad "py: bot from the installed prefix failed: $out"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
