#!/usr/bin/env bash
# The main job: sets up, builds, and runs the demo: one hand of every variant,
# dealt and played by built-in random players, printing each record and result.
# Extra arguments go to `tarock demo` (e.g. --seed=7).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/build.sh >/dev/null
exec "${BUILD_DIR:-build}/bin/tarock" demo "$@"
