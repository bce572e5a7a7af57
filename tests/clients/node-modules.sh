#!/usr/bin/env bash
# Installs ioredis and node-redis from npm into <dir>/node_modules unless they are there.
# Usage: tests/clients/node-modules.sh <dir>. Tests that run at the same time share one install:
# the first takes the lock and installs, the others wait for it (bounded).
set -euo pipefail
dir=$1
mkdir -p "$dir"
exec 9>"$dir/.install.lock"
flock -w 330 9
if [[ ! -d "$dir/node_modules/ioredis" || ! -d "$dir/node_modules/redis" ]]; then
  timeout 300 npm install --prefix "$dir" --no-audit --no-fund --silent ioredis@5 redis@4 >/dev/null
fi
