#!/usr/bin/env python3
"""Cluster benchmark: ebb-server cluster nodes against redis-server cluster nodes, in one run.

For 1, 2 and 3 masters (no replicas; every node a process of its own on this machine), each kind
in turn (ebb with wal-fsync everysec; redis-server with appendonly yes, appendfsync everysec, no
RDB saves): the nodes start with cluster-enabled yes, the 16384 slots are split evenly among them
with CLUSTER ADDSLOTSRANGE, they MEET, and once every node reports cluster_state ok,
`redis-benchmark --cluster` (Redis 7's cluster-aware load generator: it reads the slot map and
sends each request to the node that owns its key; plain redis-benchmark for one master) runs SET and GET at 50 clients, P=1 and P=16,
over 100,000 keys. Rounds alternate ebb and redis so drift hits both alike; the median is kept.

The machine has 2 cores shared by the nodes and the load generator, so more masters measure how
each server shares them, not a scale-out.

Usage: bench/cluster_bench.py [--ebb build/ebb-server] [--rounds 2] [--requests 200000]
                              [--out bench/results]
"""
import argparse
import csv
import io
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from server_bench import Server, free_port  # noqa: E402

SLOTS = 16384


def free_cluster_port():
    """A port p with p + 10000 (the bus) free as well."""
    while True:
        port = free_port()
        if port + 10000 <= 65535:
            probe = subprocess.run(["ss", "-ltnH", f"sport = :{port + 10000}"],
                                   capture_output=True, text=True)
            if not probe.stdout.strip():
                return port


def cli(port, *args):
    return subprocess.run(["redis-cli", "-p", str(port)] + [str(a) for a in args],
                          capture_output=True, text=True, timeout=60).stdout.strip()


class ClusterGroup:
    """`masters` nodes of one kind ("ebb" or "redis") sharing the slots evenly."""

    def __init__(self, kind, ebb_bin, workdir, masters):
        self.nodes = []
        for i in range(masters):
            port, d = free_cluster_port(), os.path.join(workdir, f"{kind}-node{i}")
            shutil.rmtree(d, ignore_errors=True)
            os.makedirs(d)
            common = ["--port", str(port), "--bind", "127.0.0.1", "--dir", d,
                      "--cluster-enabled", "yes", "--cluster-node-timeout", "5000"]
            if kind == "ebb":
                argv = [os.path.abspath(ebb_bin)] + common + ["--wal-fsync", "everysec"]
            else:
                argv = ["redis-server"] + common + ["--appendonly", "yes", "--appendfsync",
                                                    "everysec", "--save", ""]
            self.nodes.append(Server(f"{kind}-node{i}", argv, port, workdir))
        for i, node in enumerate(self.nodes):
            first, last = i * SLOTS // masters, (i + 1) * SLOTS // masters - 1
            assert cli(node.port, "CLUSTER", "ADDSLOTSRANGE", first, last) == "OK"
        for node in self.nodes[1:]:
            assert cli(node.port, "CLUSTER", "MEET", "127.0.0.1", self.nodes[0].port) == "OK"
        deadline = time.monotonic() + 60
        while not all(self.state_ok(n.port) for n in self.nodes):
            if time.monotonic() > deadline:
                raise RuntimeError(f"{kind}: the cluster never reached cluster_state:ok")
            time.sleep(0.1)

    def state_ok(self, port):
        info = cli(port, "CLUSTER", "INFO")
        return ("cluster_state:ok" in info
                and f"cluster_known_nodes:{len(self.nodes)}" in info)

    def stop(self):
        for node in self.nodes:
            node.stop()


def cluster_bench(port, test, requests, pipeline, masters):
    # redis-benchmark --cluster wants two nodes or more; one master owns every slot, so plain
    # redis-benchmark sends it exactly what --cluster would.
    mode = ["--cluster"] if masters > 1 else []
    argv = ["redis-benchmark"] + mode + ["-h", "127.0.0.1", "-p", str(port), "-c", "50",
            "-n", str(requests), "-r", "100000", "-P", str(pipeline), "-t", test, "--csv"]
    out = subprocess.run(argv, capture_output=True, text=True, timeout=600).stdout
    for row in csv.reader(io.StringIO(out)):  # --cluster prints the node list before the table
        if len(row) >= 2 and row[0] != "test":
            try:
                return float(row[1])
            except ValueError:
                continue
    raise RuntimeError(f"no result from: {' '.join(argv)}\n{out}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ebb", default="build/ebb-server")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--requests", type=int, default=200000)
    ap.add_argument("--out", default="bench/results")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    rows = []
    with tempfile.TemporaryDirectory(prefix="ebb-cluster-bench-") as workdir:
        for masters in (1, 2, 3):
            rps = {}  # (test, pipeline, kind) -> [req/s per round]
            for _ in range(args.rounds):
                for kind in ("ebb", "redis"):
                    group = ClusterGroup(kind, args.ebb, workdir, masters)
                    try:
                        for test in ("set", "get"):
                            for pipeline in (1, 16):
                                n = args.requests * (4 if pipeline > 1 else 1)
                                rps.setdefault((test, pipeline, kind), []).append(
                                    cluster_bench(group.nodes[0].port, test, n, pipeline, masters))
                    finally:
                        group.stop()
            for test in ("set", "get"):
                for pipeline in (1, 16):
                    e = statistics.median(rps[(test, pipeline, "ebb")])
                    r = statistics.median(rps[(test, pipeline, "redis")])
                    rows.append((masters, test.upper(), pipeline, e, r))
                    print(f"  {masters} masters {test.upper():3} P={pipeline:<2} ebb {e:>10,.0f}"
                          f"  redis {r:>10,.0f}  x{e / r:.2f}", file=sys.stderr, flush=True)
    lines = ["| redis-benchmark --cluster, 50 clients | ebb req/s | redis req/s | ebb ÷ redis |",
             "|---|---|---|---|"]
    for masters, test, pipeline, e, r in rows:
        lines.append(f"| {masters} master{'s' if masters > 1 else ''}, {test} P={pipeline} | "
                     f"{e:,.0f} | {r:,.0f} | {e / r:.2f} |")
    report = "\n".join(lines) + "\n"
    with open(os.path.join(args.out, "cluster_bench.md"), "w") as f:
        f.write(report)
    print(report)


if __name__ == "__main__":
    main()
