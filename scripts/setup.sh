#!/usr/bin/env bash
# Installs the Debian 12 packages the project builds with. Idempotent: installs only
# what is missing, so a second run is a no-op. Needs root (or sudo) for apt-get.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config git ccache
  libabsl-dev
  libgrpc++-dev protobuf-compiler protobuf-compiler-grpc libprotobuf-dev
  nlohmann-json3-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  libsqlite3-dev libcpp-httplib-dev libssl-dev libboost-dev
  python3-grpcio python3-protobuf python3-pytest python3-yaml
  chromium chromium-driver python3-selenium
  prometheus-cpp-dev prometheus
  python3-venv python3-pip python3-setuptools python3-wheel
  pybind11-dev python3-dev python3-numpy
  clang libfuzzer-14-dev
  libpqxx-dev postgresql
  bubblewrap libseccomp-dev libzip-dev
  user-mode-linux
  dpkg-dev file
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all ${#packages[@]} packages present"
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "setup: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
