#!/usr/bin/env bash
# Real client libraries against a spawned ebb-server: redis-py (Debian's python3-redis) and
# ioredis / node-redis (installed from npm into <build>/clients-node on first use), and
# node-redis's time series (@redis/time-series) against a server node_series_test.mjs starts.
# Usage: tests/clients/run.sh <ebb-server> <work dir>. Bounded: every step has a timeout.
set -euo pipefail
server=$1
work=$2
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$work"
data=$(mktemp -d "$work/data.XXXXXX")
port=$(/usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"$server" --port "$port" --dir "$data" > "$data.log" 2>&1 &
pid=$!
cleanup() { kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; rm -rf "$data" "$data.log"; }
trap cleanup EXIT
for _ in $(seq 1 100); do
  redis-cli -p "$port" ping >/dev/null 2>&1 && break
  sleep 0.1
done
timeout 60 /usr/bin/python3 "$here/redis_py_test.py" "$port"
modules="$work/clients-node"
bash "$here/node-modules.sh" "$modules"
timeout 60 node "$here/node_clients_test.mjs" "$port" "$modules/node_modules"
# node-redis's time-series API against a server of its own (the test restarts it).
timeout 120 node "$here/node_series_test.mjs" "$server" "$work" "$modules/node_modules"
