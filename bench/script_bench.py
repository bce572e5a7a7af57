#!/usr/bin/env python3
"""Scripting benchmark: EVALSHA of small scripts, ebb-server against redis-server, in one run.

Starts both servers as bench/server_bench.py does (redis-server appendonly everysec, ebb-server
wal-fsync everysec), loads the same scripts into both with SCRIPT LOAD, then runs redis-benchmark
against them alternately (A B A B ...) and reports the median requests/s, the median CPU time
each server spent per request (utime + stime from /proc) and both ratios:

  rmw:   a read-modify-write (GET, compute, SET) of a random key -- the shape of a rate limiter
  read:  a read-only script (GET of a random key)
  write: a script that writes two keys (the batch path)

Usage: bench/script_bench.py [--ebb build/ebb-server] [--rounds 3] [--requests 200000]
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from server_bench import measure, start_pair  # noqa: E402

SCRIPTS = [
    ("rmw", "local v = tonumber(redis.call('GET', KEYS[1]) or '0') "
            "redis.call('SET', KEYS[1], v + tonumber(ARGV[1])) return v"),
    ("read", "return redis.call('GET', KEYS[1])"),
    ("write", "redis.call('SET', KEYS[1], ARGV[1]) redis.call('SET', KEYS[1] .. ':b', ARGV[1]) "
              "return 1"),
]


def script_load(port, body):
    out = subprocess.run(["redis-cli", "-p", str(port), "SCRIPT", "LOAD", body],
                         capture_output=True, text=True, check=True).stdout.strip()
    if len(out) != 40:
        raise RuntimeError(f"SCRIPT LOAD on {port}: {out}")
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ebb", default="build/ebb-server")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--requests", type=int, default=200000)
    ap.add_argument("--clients", type=int, default=50)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as workdir:
        redis, ebb = start_pair(args.ebb, workdir, False)
        try:
            print(f"{'script':8} {'pipeline':>8} {'ebb rps':>12} {'redis rps':>12} "
                  f"{'ebb/redis':>10} {'ebb us/req':>11} {'redis us/req':>12} {'redis/ebb':>10}")
            for label, body in SCRIPTS:
                shas = {s.port: script_load(s.port, body) for s in (ebb, redis)}
                for pipeline in (1, 16):
                    e, r = [], []
                    n = args.requests * (4 if pipeline > 1 else 1)
                    for _ in range(args.rounds):
                        for server, results in ((ebb, e), (redis, r)):
                            command = ["EVALSHA", shas[server.port], "1", "k:__rand_int__", "1"]
                            results.append(measure(server, command, n, pipeline, args.clients))
                    em, rm = (statistics.median(x[0] for x in runs) for runs in (e, r))
                    ec, rc = (statistics.median(x[1] for x in runs) for runs in (e, r))
                    print(f"{label:8} {pipeline:>8} {em:>12.0f} {rm:>12.0f} {em / rm:>10.2f} "
                          f"{ec:>11.2f} {rc:>12.2f} {rc / ec:>10.2f}", flush=True)
        finally:
            redis.stop()
            ebb.stop()


if __name__ == "__main__":
    main()
