#!/usr/bin/env bash
# deploy/ checked without a container engine or a cluster (issue 15):
# deploy/check_deploy.py parses every YAML file, checks every program and flag
# the Compose file, the Kubernetes manifests and the systemd units use against
# the build (--helpfull), the ports between programs, probes, Services,
# NetworkPolicies and Prometheus, the Kubernetes base with `kubectl kustomize`
# when kubectl is here, the Dockerfile's runtime packages against `ldd` of the
# built programs, and both Prometheus configurations with promtool.
# Usage: deploy_test.sh SOURCE_DIR BUILD_DIR
set -uo pipefail
src=$(cd "$1" && pwd)
build=$(cd "$2" && pwd)
if ! /usr/bin/python3 -c 'import yaml' 2>/dev/null; then
  echo "FAIL: /usr/bin/python3 has no yaml module (python3-yaml; scripts/setup.sh installs it)"
  exit 1
fi
# The bound is for a hang, not a speed check: alone it takes about 30 s, beside
# the web test in CI 95-120 s (once over the old bound of 120 s, killed with no
# word).
PYTHONDONTWRITEBYTECODE=1 timeout 280 /usr/bin/python3 "$src/deploy/check_deploy.py" \
  --source "$src" --build "$build"
rc=$?
[ "$rc" -eq 124 ] && echo "FAIL: check_deploy.py did not finish within 280 s"
exit "$rc"
