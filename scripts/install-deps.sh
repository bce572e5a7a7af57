#!/usr/bin/env bash
# Installs the Debian packages ebb needs to build, test and benchmark.
# Idempotent and quiet: does nothing (and prints nothing) when every package is present.
set -euo pipefail

packages=(
  build-essential cmake ninja-build ccache pkg-config clang clang-format
  libboost1.81-dev libhiredis-dev libfmt-dev libspdlog-dev libcli11-dev
  libgtest-dev libgmock-dev libbenchmark-dev liblz4-dev libzstd-dev liburing-dev
  liblua5.1-0-dev lua-cjson-dev lua-bitop-dev  # scripting: Lua 5.1, cjson, bit
  libssl-dev  # TLS, ACL password digests, script SHA-1
  openssl     # tests: certificates for the TLS tests
  redis-server redis-tools librocksdb-dev
  redis-sentinel  # tests/sentinel: Sentinel manages a group of ebb servers
  python3-redis  # tests/clients: redis-py
  tcl  # tests/redis_suite: tclsh runs Redis 7.0.15's own Tcl test harness
  python3-prometheus-client prometheus  # the metrics endpoint's scrapers (metrics_scrapers_test)
)
# tests/clients: ioredis and node-redis come from npm; Node.js and npm from Debian unless a Node.js
# with npm is already installed.
command -v npm >/dev/null 2>&1 || packages+=(nodejs npm)

# `--bench` adds what `make bench` needs on top.
[[ "${1:-}" == "--bench" ]] && packages+=(python3 gnuplot-nox valgrind bc fio)

missing=()
for p in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
  [[ "$status" == "install ok installed" ]] || missing+=("$p")
done
[[ ${#missing[@]} -eq 0 ]] && exit 0

echo "installing: ${missing[*]}"
sudo=""
[[ $(id -u) -eq 0 ]] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
