#!/usr/bin/env bash
# Instructions per request in the command path, counted by callgrind: a stable measure of the
# server's per-request cost on a machine whose wall-clock numbers are noisy.
#
# Starts ebb-server under `valgrind --tool=callgrind`, collecting only inside
# ebb::server::Dispatcher::Dispatch (lookup, checks, parsing, execution, reply), then drives it
# with a fixed redis-benchmark load per workload (-n REQUESTS -P 16 -c 50 -r 100000), dumping the
# counters after each, and prints the instructions counted divided by the requests sent. The
# workloads run in order on one server, so GET and TREG GET read what SET and TREG SET wrote.
#
# Usage: bench/dispatch_cost.sh [path/to/ebb-server] [requests]   (default build/ebb-server 50000)
set -euo pipefail

EBB=${1:-build/ebb-server}
REQUESTS=${2:-50000}
WORK=$(mktemp -d)
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
mkdir -p "$WORK/data"
valgrind --tool=callgrind --callgrind-out-file="$WORK/cg.out" \
  --toggle-collect='ebb::server::Dispatcher::Dispatch*' \
  "$EBB" --port "$PORT" --dir "$WORK/data" >"$WORK/server.log" 2>&1 &
PID=$!
trap 'kill $PID 2>/dev/null || true; wait $PID 2>/dev/null || true; rm -rf "$WORK"' EXIT
for _ in $(seq 1 300); do
  redis-cli -p "$PORT" PING >/dev/null 2>&1 && break
  sleep 0.1
done

run() {
  local label=$1
  shift
  callgrind_control --zero "$PID" >/dev/null
  redis-benchmark -p "$PORT" -n "$REQUESTS" -P 16 -c 50 -r 100000 -q "$@" >/dev/null
  callgrind_control --dump="$label" "$PID" >/dev/null
  local file
  file=$(ls -t "$WORK"/cg.out.* | head -1)
  local ir
  ir=$(callgrind_annotate "$file" 2>/dev/null | awk '/PROGRAM TOTALS/ {gsub(",", "", $1); print $1}')
  printf '%-10s %7.0f instructions/request\n' "$label" "$(echo "$ir / $REQUESTS" | bc -l)"
  rm -f "$file"
}

run SET SET 'k:__rand_int__' xxx
run GET GET 'k:__rand_int__'
run "TLOG INS" TLOG INS 'log:__rand_int__' 'm:__rand_int__' __rand_int__
run "TREG SET" TREG SET 'r:__rand_int__' 'v:__rand_int__' __rand_int__
run "TREG GET" TREG GET 'r:__rand_int__'
redis-cli -p "$PORT" SHUTDOWN NOSAVE >/dev/null 2>&1 || true
