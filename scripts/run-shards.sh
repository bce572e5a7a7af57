#!/usr/bin/env bash
# Runs GoogleTest binaries split into shards, JOBS shards at a time; every shard runs, and the
# script fails if any shard failed (printing that shard's whole output). For the sanitizer runs
# of `make test`, whose binaries run many times slower than in the release build: several shards
# of every binary (the Makefile's SHARDS) keep both cores busy until the end instead of waiting
# on the longest binary, and one process per shard spares the start-up of one per test.
#
# A shard still running after SHARD_TIMEOUT seconds (default 1200: the longest, an integration
# shard under TSan, took about 180 s in four shards) is stopped and counts as failed, as
# ctest's per-test timeout would.
#
# Usage: scripts/run-shards.sh JOBS SHARDS binary...   (environment such as TSAN_OPTIONS passes on)
set -euo pipefail
jobs=$1
shards=$2
shift 2
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT

run_shard() {  # binary index
  local name log start
  name=$(basename "$1")
  log="$logs/$name.$2.log"
  start=$SECONDS
  if GTEST_TOTAL_SHARDS=$shards GTEST_SHARD_INDEX=$2 timeout -k 10 "$shard_timeout" "$1" \
    --gtest_brief=1 >"$log" 2>&1; then
    echo "$name shard $2/$shards: $(grep -E '^\[  PASSED  \]' "$log" || echo 'passed')" \
      "($((SECONDS - start)) s)"
  else
    cat "$log"
    echo "$name shard $2/$shards: FAILED ($((SECONDS - start)) s)"
    return 1
  fi
}
export -f run_shard
shard_timeout=${SHARD_TIMEOUT:-1200}
export logs shards shard_timeout

for binary in "$@"; do
  for ((i = 0; i < shards; i++)); do echo "$binary $i"; done
done | xargs -P "$jobs" -L 1 bash -c 'run_shard "$0" "$1" || exit 1'
