#!/usr/bin/env bash
# HOLE (low): docs/security.md, "Bot endpoints against request forgery": AddBot
# refuses an endpoint in a private, ... or *reserved* range. Accepted today:
# fec0::/10 (IPv6 site-local: the old private range, still routed inside some
# networks), 2001:db8::/32 and 192.0.2.0/24, 198.51.100.0/24, 203.0.113.0/24
# (documentation), 2001:2::/48 (benchmarking; its IPv4 twin 198.18.0.0/15 is
# refused), 100::/64 (discard-only): all in IANA's special-purpose registries.
# Exits non-zero while any of them is registered.
set -uo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
bin=${BIN_DIR:-$src/build/bin}
source "$src/tests/testlib.sh"
setup_scratch
start_referee || { echo "referee did not start"; exit 2; }
start_arena --http_listen= || { echo "arena did not start"; exit 2; }
open=0; i=0
for ep in '[fec0::1]:7801' '[2001:db8::1]:7801' '192.0.2.1:7801' '198.51.100.1:7801' \
          '203.0.113.1:7801' '[2001:2::1]:7801' '[100::1]:7801'; do
  i=$((i + 1))
  out=$(timeout 20 $cli bots add "reserved$i" --endpoint "$ep" --variants slovenian-4p --owner x 2>&1)
  if grep -q '^added' <<<"$out"; then echo "HOLE: $ep accepted"; open=1; else echo "held: $ep: ${out:0:80}"; fi
done
exit $open
