#!/usr/bin/env bash
# Runs every fuzz target for SECONDS on a fresh copy of its corpus, JOBS targets at a time (each
# target is one process on one core). The corpus (regression seeds included) is replayed first,
# so a seed that crashes fails the run at once. Every target runs; the script fails, with the log
# of each target that failed, if any did.
#
# Usage: scripts/fuzz-run.sh FUZZ_DIR SECONDS JOBS target...   (tests/fuzz/<target>_fuzz.cc)
set -euo pipefail
export fuzz_dir=$1 seconds=$2
jobs=$3
shift 3

fuzz_one() {  # target
  local t=$1
  rm -rf "$fuzz_dir/corpus-$t" && mkdir -p "$fuzz_dir/corpus-$t"
  cp tests/fuzz/corpus/"$t"/* "$fuzz_dir/corpus-$t/"
  if "$fuzz_dir/${t}_fuzz" -max_total_time="$seconds" -timeout=30 \
      -artifact_prefix="$fuzz_dir/$t-" -print_final_stats=1 "$fuzz_dir/corpus-$t" \
      2>"$fuzz_dir/$t.log"; then
    echo "fuzzed $t for $seconds s: $(grep -E '^stat::number_of_executed_units' "$fuzz_dir/$t.log")"
  else
    tail -50 "$fuzz_dir/$t.log"
    echo "fuzzing $t FAILED (artifacts: $fuzz_dir/$t-*)"
    return 1
  fi
}
export -f fuzz_one

printf '%s\n' "$@" | xargs -P "$jobs" -I{} bash -c 'fuzz_one "{}" || exit 1'
