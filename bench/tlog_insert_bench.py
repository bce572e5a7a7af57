#!/usr/bin/env python3
"""CPU per TLOG INS, with each log's timestamps rising (as a log's entries mostly arrive) and at
random places: one or more ebb-server builds, alternated.

redis-benchmark can put only random numbers in a command, so this script sends the inserts
itself: one connection, `--depth` commands pipelined per round trip, over `--logs` logs, each
insert a random log and a random member; the timestamp is the log's next one (`rising`) or a
random one below a million (`random`). Each build is a fresh server (wal-fsync everysec) on a free
loopback port; after a warm-up of a quarter of the inserts the script reads the server's utime +
stime from /proc/<pid>/stat around the measured ones and prints CPU µs per insert, user and
kernel, for each build, order and round.

Usage: bench/tlog_insert_bench.py [--ebb build/ebb-server ...] [--requests 400000]
                                  [--logs 1000] [--depth 64] [--rounds 2]
                                  [--order rising,random]
"""
import argparse
import os
import random
import socket
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from server_bench import cpu_ticks, free_port  # noqa: E402

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def resp(*args):
    out = [b"*%d\r\n" % len(args)]
    for a in args:
        a = a if isinstance(a, bytes) else str(a).encode()
        out.append(b"$%d\r\n%s\r\n" % (len(a), a))
    return b"".join(out)


class Inserts:
    """The inserts of one run, in order: a random log and member each, the timestamp by `order`."""

    def __init__(self, order, logs, seed):
        self.order = order
        self.rng = random.Random(seed)
        self.next_ts = [1] * logs

    def batch(self, count):
        out = []
        for _ in range(count):
            log = self.rng.randrange(len(self.next_ts))
            if self.order == "rising":
                ts = self.next_ts[log]
                self.next_ts[log] += 1
            else:
                ts = self.rng.randrange(1_000_000)
            member = self.rng.randrange(1000)
            out.append(resp(b"TLOG", b"INS", b"log:%d" % log, b"m:%d" % member, ts))
        return b"".join(out)


def send(conn, inserts, count, depth):
    """Sends `count` inserts `depth` at a time, reading every reply (+OK) of each round trip."""
    sent = 0
    while sent < count:
        n = min(depth, count - sent)
        conn.sendall(inserts.batch(n))
        sent += n
        want, got = n * len(b"+OK\r\n"), 0
        deadline = time.monotonic() + 30
        while got < want:
            if time.monotonic() > deadline:
                sys.exit("no reply from the server in 30 s")
            data = conn.recv(65536)
            if not data:
                sys.exit("the server closed the connection")
            if data.startswith(b"-"):
                sys.exit(f"the server answered an error: {data[:200]!r}")
            got += len(data)


def run_once(ebb, order, args, seed):
    port = free_port()
    with tempfile.TemporaryDirectory() as work:
        server = subprocess.Popen([ebb, "--port", str(port), "--dir", work],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            conn = None
            for _ in range(150):
                try:
                    conn = socket.create_connection(("127.0.0.1", port))
                    break
                except OSError:
                    time.sleep(0.1)
            if conn is None:
                sys.exit(f"{ebb} did not start")
            inserts = Inserts(order, args.logs, seed)
            send(conn, inserts, args.requests // 4, args.depth)
            u0, s0 = cpu_ticks(server.pid)
            send(conn, inserts, args.requests, args.depth)
            u1, s1 = cpu_ticks(server.pid)
            conn.close()
        finally:
            server.terminate()
            server.wait(timeout=30)
    per = 1e6 / CLOCK_TICKS / args.requests
    return (u1 - u0) * per, (s1 - s0) * per


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ebb", nargs="+", default=["build/ebb-server"])
    parser.add_argument("--requests", type=int, default=400000)
    parser.add_argument("--logs", type=int, default=1000)
    parser.add_argument("--depth", type=int, default=64)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--order", default="rising,random")
    args = parser.parse_args()
    print("| build | timestamps | round | user µs/insert | kernel µs/insert | total |")
    print("|---|---|---:|---:|---:|---:|")
    for order in args.order.split(","):
        for rnd in range(1, args.rounds + 1):
            for ebb in args.ebb:  # alternated: A B A B
                user, kernel = run_once(ebb, order, args, seed=rnd)
                print(f"| {ebb} | {order} | {rnd} | {user:.2f} | {kernel:.2f} | "
                      f"{user + kernel:.2f} |", flush=True)


if __name__ == "__main__":
    main()
