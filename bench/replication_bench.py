#!/usr/bin/env python3
"""Replication benchmark: ebb-server against redis-server, side by side in one run.

Three measurements, each on ebb (wal-fsync everysec) and on redis-server (appendonly yes,
appendfsync everysec, no RDB saves, diskless sync with no delay), alternating A B A B:

1. The replicas' cost on the master: redis-benchmark SET (50 clients, P=1 and P=16) against a
   master with 0, 1 and 2 replicas attached (each replica a process of its own on this machine):
   req/s, the master's CPU µs per SET and the replicas' CPU µs per replicated SET (their sum),
   each process's utime + stime from /proc/<pid>/stat over the run and until every replica has
   caught up with the master's offset.
2. Replication lag under load: while redis-benchmark SET P=16 runs against a master with one
   replica, a probe writes a fresh marker key on the master every 50 ms and polls the replica
   until it reads it; the time from the master's reply to the replica's answer is the lag (its
   median and 99th percentile, ms; the poll adds up to 1 ms).
3. Full-sync time: the master holds `--sync-gb` GB (keys of 1000 bytes); a new replica is pointed
   at it with REPLICAOF, and the clock runs until its link is up, no sync is in progress and it
   reads the last key written.

Offsets in bytes are not compared: ebb's stream carries engine records, Redis's carries commands.

Usage: bench/replication_bench.py [--ebb build/ebb-server] [--rounds 2] [--requests 200000]
                                  [--sync-gb 1.0] [--parts writes,lag,sync] [--out bench/results]
"""
import argparse
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from server_bench import Server, bench, call, free_port, info, load_keys, resp  # noqa: E402


class Group:
    """A master and `replicas` replicas of one kind ("ebb" or "redis"), each in its own dir."""

    def __init__(self, kind, ebb_bin, workdir, replicas):
        self.kind, self.ebb_bin, self.workdir = kind, ebb_bin, workdir
        self.master = self.start("master")
        self.replicas = [self.start(f"replica{i}") for i in range(replicas)]
        for r in self.replicas:
            self.attach(r)

    def start(self, name):
        port, d = free_port(), os.path.join(self.workdir, f"{self.kind}-{name}")
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
        if self.kind == "ebb":
            argv = [os.path.abspath(self.ebb_bin), "--port", str(port), "--bind", "127.0.0.1",
                    "--dir", d, "--wal-fsync", "everysec"]
        else:
            argv = ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--dir", d,
                    "--appendonly", "yes", "--appendfsync", "everysec", "--save", "",
                    "--repl-diskless-sync", "yes", "--repl-diskless-sync-delay", "0"]
        return Server(f"{self.kind}-{name}", argv, port, self.workdir)

    def attach(self, replica, deadline_s=600):
        call(replica.port, "REPLICAOF", "127.0.0.1", str(self.master.port))
        end = time.time() + deadline_s
        while time.time() < end:
            fields = info(replica.port, "replication")
            if (fields.get("master_link_status") == "up" and
                    fields.get("master_sync_in_progress") == "0"):
                return
            time.sleep(0.01)
        raise RuntimeError(f"{replica.name} did not finish its sync in {deadline_s} s")

    def stop(self):
        for s in self.replicas + [self.master]:
            s.stop()

    def wait_caught_up(self, deadline_s=120):
        """Waits until every replica's processed offset reaches the master's."""
        end = time.time() + deadline_s
        target = int(info(self.master.port, "replication")["master_repl_offset"])
        for r in self.replicas:
            while int(info(r.port, "replication").get("slave_repl_offset", "-1")) < target:
                if time.time() > end:
                    raise RuntimeError(f"{r.name} did not catch up in {deadline_s} s")
                time.sleep(0.01)

    def measure_set(self, requests, pipeline, key_range=100000):
        """(req/s, master CPU µs per SET, the replicas' CPU µs per SET) of one SET run over
        `key_range` keys."""
        before = [s.cpu_seconds() for s in [self.master] + self.replicas]
        rps = bench(self.master.port, ["SET", "k:__rand_int__", "xxx"], requests, pipeline, 50,
                    key_range=key_range)
        self.wait_caught_up()
        spent = [s.cpu_seconds() - b for s, b in zip([self.master] + self.replicas, before)]
        return rps, spent[0] * 1e6 / requests, sum(spent[1:]) * 1e6 / requests


def read_value(sock, key):
    """GET on an open connection; returns the bulk string or None."""
    sock.sendall(resp(b"GET", key))
    data = b""
    while b"\r\n" not in data:
        data += sock.recv(4096)
    if data.startswith(b"$-1"):
        return None
    header, rest = data.split(b"\r\n", 1)
    length = int(header[1:])
    while len(rest) < length + 2:
        rest += sock.recv(4096)
    return rest[:length]


def lag_probe(master_port, replica_port, stop, lags):
    """Writes lag:<n> on the master every 50 ms and polls the replica for it; appends each lag
    (ms) to `lags` until `stop` is set."""
    m = socket.create_connection(("127.0.0.1", master_port))
    r = socket.create_connection(("127.0.0.1", replica_port))
    n = 0
    while not stop.is_set():
        key = b"lag:%d" % n
        m.sendall(resp(b"SET", key, b"1"))
        if not m.recv(64).startswith(b"+OK"):
            raise RuntimeError("the lag probe's SET failed")
        written = time.perf_counter()
        deadline = written + 10
        while read_value(r, key) is None:
            if time.perf_counter() > deadline:
                raise RuntimeError("the replica did not show the probe's key within 10 s")
            time.sleep(0.001)
        lags.append((time.perf_counter() - written) * 1000)
        n += 1
        time.sleep(0.05)
    m.close()
    r.close()


def wait_for_key(port, key, deadline_s=600):
    end = time.time() + deadline_s
    with socket.create_connection(("127.0.0.1", port)) as s:
        while time.time() < end:
            if read_value(s, key) is not None:
                return
            time.sleep(0.005)
    raise RuntimeError(f"port {port} never showed {key!r}")


def write_cost(ebb_bin, workdir, rounds, requests):
    rows = []
    for replicas in (0, 1, 2):
        for pipeline in (1, 16):
            n = requests * (4 if pipeline > 1 else 1)
            runs = {"ebb": [], "redis": []}
            for _ in range(rounds):
                for kind in ("ebb", "redis"):
                    g = Group(kind, ebb_bin, workdir, replicas)
                    try:
                        runs[kind].append(g.measure_set(n, pipeline))
                    finally:
                        g.stop()
            e = [statistics.median(v) for v in zip(*runs["ebb"])]
            r = [statistics.median(v) for v in zip(*runs["redis"])]
            rows.append((replicas, pipeline, e, r))
            print(f"  SET, {replicas} replicas, P={pipeline:<2} ebb {e[0]:>10,.0f} req/s "
                  f"{e[1]:.2f}+{e[2]:.2f} us  redis {r[0]:>10,.0f} req/s {r[1]:.2f}+{r[2]:.2f} us",
                  file=sys.stderr, flush=True)
    return rows


def lag(ebb_bin, workdir, requests):
    out = {}
    for kind in ("ebb", "redis"):
        g = Group(kind, ebb_bin, workdir, 1)
        try:
            stop, lags = threading.Event(), []
            probe = threading.Thread(target=lag_probe,
                                     args=(g.master.port, g.replicas[0].port, stop, lags))
            probe.start()
            bench(g.master.port, ["SET", "k:__rand_int__", "xxx"], requests * 4, 16, 50,
                  key_range=100000)
            stop.set()
            probe.join()
            lags.sort()
            out[kind] = (statistics.median(lags), lags[int(len(lags) * 0.99)], len(lags))
        finally:
            g.stop()
        print(f"  lag {kind}: median {out[kind][0]:.2f} ms, p99 {out[kind][1]:.2f} ms "
              f"({out[kind][2]} probes)", file=sys.stderr, flush=True)
    return out


def full_sync(ebb_bin, workdir, gigabytes):
    nkeys = int(gigabytes * 1e9 / 1000)
    out = {}
    for kind in ("ebb", "redis"):
        g = Group(kind, ebb_bin, workdir, 0)
        try:
            load_keys(g.master.port, nkeys, 1000)
            last = b"key:%012d" % (nkeys - 1)
            replica = g.start("syncing")
            g.replicas.append(replica)
            start = time.perf_counter()
            g.attach(replica)
            wait_for_key(replica.port, last)
            out[kind] = time.perf_counter() - start
        finally:
            g.stop()
        print(f"  full sync of {gigabytes:g} GB, {kind}: {out[kind]:.1f} s", file=sys.stderr,
              flush=True)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ebb", default="build/ebb-server")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--requests", type=int, default=200000)
    ap.add_argument("--sync-gb", type=float, default=1.0)
    ap.add_argument("--parts", default="writes,lag,sync",
                    help="which measurements to run, comma-separated: writes, lag, sync")
    ap.add_argument("--out", default="bench/results")
    args = ap.parse_args()
    parts = set(args.parts.split(","))
    load_before = f"{os.getloadavg()[0]:.2f}"
    os.makedirs(args.out, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="ebb-repl-bench-") as workdir:
        cost, lags, sync = [], None, None
        if "writes" in parts:
            print("write throughput and CPU by replica count:", file=sys.stderr)
            cost = write_cost(args.ebb, workdir, args.rounds, args.requests)
        if "lag" in parts:
            print("replication lag under SET P=16:", file=sys.stderr)
            lags = lag(args.ebb, workdir, args.requests)
        if "sync" in parts:
            print("full sync:", file=sys.stderr)
            sync = full_sync(args.ebb, workdir, args.sync_gb)
    lines = [f"Load average before / after: {load_before} / {os.getloadavg()[0]:.2f} "
             f"({os.cpu_count()} CPUs; other processes share them)", ""]
    if cost:
        lines += ["| SET, 50 clients | ebb req/s | redis req/s | ebb / redis "
                  "| master CPU µs/SET ebb / redis | ratio "
                  "| replicas' CPU µs/SET ebb / redis | ratio |",
                  "|---|---:|---:|---:|---|---:|---|---:|"]
        for replicas, pipeline, e, r in cost:
            copies = (f"{e[2]:.2f} / {r[2]:.2f} | {r[2] / e[2]:.2f}" if replicas else "— | —")
            lines.append(f"| {replicas} replicas, P={pipeline} | {e[0]:,.0f} | {r[0]:,.0f} | "
                         f"{e[0] / r[0]:.2f} | {e[1]:.2f} / {r[1]:.2f} | {r[1] / e[1]:.2f} | "
                         f"{copies} |")
        lines += ["", "CPU ratio = redis µs ÷ ebb µs (above 1: ebb spends less); the replicas' "
                  "CPU is their sum, per SET the master served.", ""]
    if lags or sync:
        lines += ["| replication | ebb | redis | ebb ÷ redis |", "|---|---|---|---|"]
    if lags:
        lines.append(f"| lag under SET P=16, median ms | {lags['ebb'][0]:.2f} | "
                     f"{lags['redis'][0]:.2f} | {lags['ebb'][0] / lags['redis'][0]:.2f} |")
        lines.append(f"| lag under SET P=16, p99 ms | {lags['ebb'][1]:.2f} | "
                     f"{lags['redis'][1]:.2f} | {lags['ebb'][1] / lags['redis'][1]:.2f} |")
    if sync:
        lines.append(f"| full sync of {args.sync_gb:g} GB, s | {sync['ebb']:.1f} | "
                     f"{sync['redis']:.1f} | {sync['ebb'] / sync['redis']:.2f} |")
    report = "\n".join(lines) + "\n"
    with open(os.path.join(args.out, "replication_bench.md"), "w") as f:
        f.write(report)
    print(report)


if __name__ == "__main__":
    main()
