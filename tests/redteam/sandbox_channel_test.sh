#!/usr/bin/env bash
# HOLE: two runs of the hosted-bot sandbox pass data to each other at once,
# exactly and without noise, through the kernel's file locks (flock) and inotify
# on a file both runs see (the bot's own /bot, bound from the same version folder
# into every run of that bot; any file of /usr works between different bots).
# docs/security.md ("What a sandboxed bot can learn", "Channels that remain") lists
# only slow and noisy channels (CPU timing, caches, memory pressure, kernel ids) and
# says the sandbox's part is to make channels "slow and noisy"; this one is neither.
# Exits non-zero while a run can receive the other's byte. Needs root and bwrap.
set -uo pipefail
cd "$(dirname "$0")/../.."
B=${BUILD_DIR:-build}
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
mkdir "$work/bot"; cp tests/redteam/chan.py "$work/bot/"; chmod -R a+rX "$work"
g++ -std=c++17 -O1 -I. tests/redteam/sandbox_channel.cc -o "$work/drv" \
  "$B/libtarock_sandbox.a" "$B/libtarock_stdio.a" -lseccomp \
  $(pkg-config --libs absl_statusor absl_status absl_strings absl_time 2>/dev/null || echo -labsl_statusor -labsl_status -labsl_strings -labsl_time) -lpthread || { echo "cannot build driver"; exit 2; }
open=0
for mode in flock inotify; do
  out=$("$work/drv" "$work/bot" "$mode"); echo "[$mode] $out" | tr '\n' ' '; echo
  if grep -q "received 0xa5" <<<"$out"; then echo "HOLE ($mode): the other sandbox's byte 0xa5 got through"; open=1; fi
done
exit $open
