#!/usr/bin/env bash
# Storage bounds per owner and per client network (issue 44: storage grew
# within the rate limits), process level on loopback: an arena with small
# bounds; registrations and uploads beyond them are refused in one line and
# store nothing:
#  - a third bot of one owner (--max_bots_per_owner 2);
#  - a fourth bot from one network, under another owner (--max_bots_per_network 3);
#  - a third stored version over one owner's bots (--max_versions_per_owner 2);
#  - a version whose bytes pass the owner's bytes (--max_stored_bytes_per_owner).
#  - a version within its owner's bounds whose bytes pass the arena's
#    (all bots together: --max_stored_bytes_total).
# Nothing started here outlives the test.
# Usage: storage_bounds_test.sh SOURCE_DIR BUILD_DIR
set -u
src=$(cd "$1" && pwd)
build=$(cd "$2" && pwd)
bin=$build/bin
# shellcheck source=tests/testlib.sh
source "$src/tests/testlib.sh"
setup_scratch
pass=0 fail=0

start_referee || bad "referee never listened"
# The arena's total: the three versions below (two templates and big.awk)
# and 500 bytes more.
awk_bytes=$(stat -c %s "$src/sdk/templates/stdio/my_bot.awk")
total=$((3 * awk_bytes + 2001 + 500))
start_arena --http_listen= --max_bots_per_owner 2 --max_bots_per_network 3 \
  --max_versions_per_owner 2 --max_stored_bytes_per_owner 6000 --max_stored_bytes_total "$total" ||
  bad "arena never listened"
cli="timeout 30 $cli"

# refused WHAT OUT: the command failed with one line naming the bound.
refused() {
  local what=$1 out=$2
  if [ "$(printf '%s\n' "$out" | grep -c .)" -eq 1 ] && grep -q "$what" <<<"$out"; then ok; else
    bad "not refused in one line naming '$what': $out"
  fi
}

$cli bots add a1 --hosted --variants slovenian-4p --owner alice >"$tmp/a1.txt" || bad "bots add a1"
$cli bots add a2 --hosted --variants slovenian-4p --owner alice >"$tmp/a2.txt" || bad "bots add a2"
out=$($cli bots add a3 --hosted --variants slovenian-4p --owner alice 2>&1) && bad "a third bot of alice was taken"
refused "owner 'alice' stores 2 bots of at most 2" "$out"
$cli bots add b1 --hosted --variants slovenian-4p --owner bob >"$tmp/b1.txt" || bad "bots add b1"
out=$($cli bots add b2 --hosted --variants slovenian-4p --owner bob 2>&1) && bad "a fourth bot of the network was taken"
refused "stores 3 bots of at most 3" "$out"
listed=$($cli bots list)
grep -qE '^(a3|b2) ' <<<"$listed" && bad "a refused bot was stored: $listed" || ok

# Versions: two of alice's (about 2.2 KB each), a third refused.
up() { $cli bots upload "$1" --token "$(token_of "$1")" "$2" 2>&1; }
up a1 "$src/sdk/templates/stdio/my_bot.awk" >/dev/null || bad "upload a1"
up a2 "$src/sdk/templates/stdio/my_bot.awk" >/dev/null || bad "upload a2"
# (another file: an identical re-upload stores nothing and is no new version)
{ cat "$src/sdk/templates/stdio/my_bot.awk"; echo "# v2"; } >"$tmp/v2.awk"
out=$(up a1 "$tmp/v2.awk") && bad "a third version of alice was taken"
refused "owner 'alice' stores 2 versions of at most 2" "$out"
versions=$($cli bots versions a1 --token "$(token_of a1)" | grep -c 'building\|ready\|failed')
[ "$versions" -eq 1 ] && ok || bad "a1 has $versions versions, not 1"

# Bytes: bob's first version of 4 KB fits, a second of 4 KB passes 6000 bytes.
{ cat "$src/sdk/templates/stdio/my_bot.awk"; head -c 2000 /dev/zero | tr '\0' '#'; echo; } >"$tmp/big.awk"
up b1 "$tmp/big.awk" >/dev/null || bad "upload b1"
{ cat "$tmp/big.awk"; echo "# v2"; } >"$tmp/big2.awk"
out=$(up b1 "$tmp/big2.awk") && bad "bob's bytes beyond the bound were taken"
refused "owner 'bob' stores [0-9]* bytes of versions of at most 6000 (this upload: [0-9]* bytes)" "$out"

# All bots: 1,000 bytes more for bob fit his bounds, not the arena's.
head -c 999 "$src/sdk/templates/stdio/my_bot.awk" >"$tmp/small.awk"; echo >>"$tmp/small.awk"
out=$(up b1 "$tmp/small.awk") && bad "bytes beyond the arena's total were taken"
refused "the arena stores $((3 * awk_bytes + 2001)) bytes of versions of at most $total (this upload: 1000 bytes)" "$out"
versions=$($cli bots versions b1 --token "$(token_of b1)" | grep -c 'building\|ready\|failed')
[ "$versions" -eq 1 ] && ok || bad "b1 has $versions versions, not 1"

echo "$pass passed, $fail failed"
exit "$fail"
