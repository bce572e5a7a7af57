#!/usr/bin/env python3
"""Latency while INFO runs on a large keyspace: ebb-server against redis-server, in one run.

Loads the same keys into both (redis-benchmark SET of random keys: about 63% of --keys distinct),
then, for each server, runs `redis-cli --latency` (one PING at a time, 1 s per sample) while
another client sends plain INFO (every section, `keyspace` included) back to back, and prints
the worst and the mean PING latency of --seconds samples, with the INFO calls made. INFO must
not scan the keys (it counts them incrementally or estimates), so PING stays in the
sub-millisecond range on both.

Usage: bench/info_latency.py [--ebb build/ebb-server] [--keys 10000000] [--seconds 10]
"""
import argparse
import os
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from server_bench import start_pair  # noqa: E402


def load(port, keys):
    subprocess.run(["redis-benchmark", "-h", "127.0.0.1", "-p", str(port), "-t", "set",
                    "-n", str(keys), "-r", str(keys), "-P", "64", "-c", "8", "-d", "16", "-q"],
                   capture_output=True, timeout=1800, check=True)


def dbsize(port):
    return int(subprocess.run(["redis-cli", "-p", str(port), "DBSIZE"], capture_output=True,
                              text=True, timeout=60).stdout.strip())


def latency_under_info(port, seconds):
    """(max ms, mean ms, INFO calls) of `seconds` one-second redis-cli --latency samples."""
    stop = threading.Event()
    calls = [0]

    def info_loop():
        cli = subprocess.Popen(["redis-cli", "-p", str(port)], stdin=subprocess.PIPE,
                               stdout=subprocess.DEVNULL, text=True)
        while not stop.is_set():
            cli.stdin.write("INFO\n")
            cli.stdin.flush()
            calls[0] += 1
            time.sleep(0.001)
        cli.stdin.close()
        cli.wait(timeout=60)

    worker = threading.Thread(target=info_loop)
    worker.start()
    worst, means = 0.0, []
    try:
        for _ in range(seconds):
            out = subprocess.run(["redis-cli", "-p", str(port), "--latency", "--raw"],
                                 capture_output=True, text=True, timeout=30).stdout.split()
            # min max avg samples
            worst = max(worst, float(out[1]))
            means.append(float(out[2]))
    finally:
        stop.set()
        worker.join()
    return worst, sum(means) / len(means), calls[0]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--ebb", default="build/ebb-server")
    parser.add_argument("--keys", type=int, default=10_000_000)
    parser.add_argument("--seconds", type=int, default=10)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="ebb-info-latency-") as work:
        redis, ebb = start_pair(args.ebb, work, fsync_always=False)
        try:
            for server in (ebb, redis):
                load(server.port, args.keys)
            print(f"keys: ebb {dbsize(ebb.port):,}  redis {dbsize(redis.port):,}")
            for server in (ebb, redis):
                worst, mean, calls = latency_under_info(server.port, args.seconds)
                print(f"{server.name:5}  PING latency during INFO: max {worst:.2f} ms, "
                      f"mean {mean:.3f} ms ({calls:,} INFO calls in {args.seconds} s)")
        finally:
            ebb.stop()
            redis.stop()


if __name__ == "__main__":
    main()
