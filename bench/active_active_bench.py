#!/usr/bin/env python3
"""Active-active benchmark (docs/active-active.md): ebb-server beside redis-server in one run.

1. Write throughput and CPU per node with 0, 2 and 4 peers: redis-benchmark SET (50 clients,
   P=1 and P=16, 1000 keys or --key-range) against one node of a fully linked mesh of 1, 3 or 5 ebb-servers on
   this machine (every node a process; the peers apply its deltas meanwhile), wal-fsync
   everysec: req/s, the origin's CPU µs per SET and each peer's CPU µs per applied delta (their
   mean), utime + stime from /proc/<pid>/stat over the run and until every peer has applied the
   origin's last offset. redis-server (appendonly yes, appendfsync everysec, no RDB saves) runs
   the same load alone in the same run: Redis has no open active-active mode, so it is the
   single-node reference. An ebb master with one ebb replica runs it too: the peers' cost per
   delta beside a replica's per replicated write.
2. Convergence after a partition: three linked nodes; node 0's links are cut both ways (DEBUG
   PEER-LINK), `--writes` SETs are made at node 0 (redis-benchmark, P=16), the links heal, and the
   clock runs until both other nodes report node 0's last origin offset applied (INFO peers).
3. Applying a snapshot: the same with two nodes whose logs hold 1,000 deltas and
   `--snapshot-keys` SETs over as many keys (values of `--snapshot-value-size` bytes), so the heal
   sends node 1 a snapshot: the time until it reports node 0's last offset applied, and its CPU
   meanwhile.

Usage: bench/active_active_bench.py [--ebb build/ebb-server] [--requests 200000]
                                    [--peers 0,2,4] [--writes 10000,100000]
                                    [--string-rule timestamp|observed-remove]
                                    [--key-range 1000] [--snapshot-keys 300000]
                                    [--snapshot-value-size 0] [--peer-backlog-size N]
                                    [--with-delete] [--fill 0]
(`--peers 0,2` measures only those meshes; `--writes ""` leaves out the convergence part and
`--snapshot-keys 0` the snapshot part;
`--string-rule` starts every node of the meshes under that active-active-string-rule;
`--key-range`, redis-benchmark's -r, sets the keys of every part of the throughput table: the
meshes, redis-server alone and the replica; `--peer-backlog-size` below `--requests` measures the
meshes with their origin's log full, as a node that has taken more writes than its log holds
runs; `--with-delete` has every mesh hold a delete marker first, so each delta is judged by its
origin's last collect, as in a mesh that has ever deleted a key; `--fill N` makes N SETs
against each mesh before it is measured, so that with N past the log's size the origin runs
with its log full and its files flushed, as a node that has run for a while does.)
"""
import argparse
import os
import shutil
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from server_bench import Server, bench, call, free_port, info, load_keys, measure  # noqa: E402
from replication_bench import Group  # noqa: E402


def start_mesh(ebb_bin, workdir, n, tag, debug=False, string_rule="timestamp", extra=()):
    """A fully linked mesh of `n` nodes under `string_rule` (active-active-string-rule), each
    given `extra` options too. `debug`: DEBUG allowed (the convergence part cuts links with DEBUG
    PEER-LINK); off for the throughput part, since a node that allows DEBUG writes its files
    through the fault-injection layer of DEBUG DISK-FAULT, as a replica's group does not."""
    ports = [free_port() for _ in range(n)]
    servers = []
    for i, port in enumerate(ports):
        d = os.path.join(workdir, f"{tag}-{i}")
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
        argv = [os.path.abspath(ebb_bin), "--port", str(port), "--bind", "127.0.0.1", "--dir", d,
                "--wal-fsync", "everysec", "--enable-debug-command", "yes" if debug else "no",
                "--active-active-string-rule", string_rule, *extra]
        for j, other in enumerate(ports):
            if j != i:
                argv += ["--peer", "127.0.0.1", str(other)]
        servers.append(Server(f"{tag}-{i}", argv, port, workdir))
    wait_linked(servers)
    return servers


def wait_linked(servers, deadline_s=30):
    end = time.time() + deadline_s
    for s in servers:
        while True:
            peers = info(s.port, "peers")
            states = [v for k, v in peers.items() if k.startswith("peer") and k[4:].isdigit()]
            if all("state=connected" in v for v in states):
                break
            if time.time() > end:
                raise RuntimeError(f"{s.name}: links not up: {states}")
            time.sleep(0.05)


def applied_from(port, origin_id):
    for k, v in info(port, "peers").items():
        if k.startswith("peer") and f"id={origin_id}," in v:
            return int(v.split("applied=")[1].split(",")[0])
    return -1


def wait_applied(mesh, deadline_s=120):
    """Waits until every other node of `mesh` has applied node 0's last origin offset."""
    origin = call(mesh[0].port, "PEER", "ID").decode().split("\r\n")[1]
    end_offset = int(info(mesh[0].port, "peers")["origin_offset"])
    deadline = time.time() + deadline_s
    while any(applied_from(s.port, origin) < end_offset for s in mesh[1:]):
        if time.time() > deadline:
            raise RuntimeError(f"the peers did not apply offset {end_offset} in {deadline_s} s")
        time.sleep(0.005)


def mesh_set(mesh, requests, pipeline, key_range):
    """(req/s, origin CPU µs per SET, a peer's mean CPU µs per applied delta) of one SET run
    against node 0 of `mesh` over `key_range` keys."""
    before = [s.cpu_seconds() for s in mesh]
    rps = bench(mesh[0].port, ["set", "key:__rand_int__", "v"], requests, pipeline, 50,
                key_range=key_range)
    if len(mesh) > 1:
        wait_applied(mesh)
    spent = [s.cpu_seconds() - b for s, b in zip(mesh, before)]
    peers = spent[1:]
    return rps, spent[0] * 1e6 / requests, (sum(peers) / len(peers) * 1e6 / requests
                                            if peers else 0.0)


def hold_a_delete(mesh):
    """Makes every node of `mesh` hold a delete marker (of a key outside the load's range), so
    that each delta is judged by its origin's last collect from then on, as in a mesh that has
    ever deleted a key."""
    call(mesh[0].port, "SET", "bench:deleted", "v")
    call(mesh[0].port, "DEL", "bench:deleted")
    if len(mesh) > 1:
        wait_applied(mesh)


def fill_log(mesh, writes, key_range):
    """`writes` SETs at P=16 against node 0 of `mesh`, unmeasured, until every peer applied them:
    the origin's log full (past its peer-backlog-size) and its memtables flushed and compacted,
    as on a node that has run for a while."""
    bench(mesh[0].port, ["set", "key:__rand_int__", "v"], writes, 16, 50, key_range=key_range)
    if len(mesh) > 1:
        wait_applied(mesh)


def throughput(ebb_bin, workdir, requests, peer_counts, string_rule, key_range, backlog,
               with_delete, fill):
    rows = []
    redis_dir = os.path.join(workdir, "redis")
    os.makedirs(redis_dir, exist_ok=True)
    port = free_port()
    redis = Server("redis", ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--dir",
                             redis_dir, "--appendonly", "yes", "--appendfsync", "everysec",
                             "--save", ""], port, workdir)
    try:
        redis_runs = {p: measure(redis, ["set", "key:__rand_int__", "v"], requests, p, 50,
                                 key_range)
                      for p in (1, 16)}
    finally:
        redis.stop()
    replica_runs = {}
    group = Group("ebb", ebb_bin, workdir, 1)
    try:
        for p in (1, 16):
            replica_runs[p] = group.measure_set(requests, p, key_range)
    finally:
        group.stop()
    for peers in sorted(set(peer_counts) | {0}):  # 0: the reference of the ÷ column
        extra = ["--peer-backlog-size", str(backlog)] if backlog else []
        mesh = start_mesh(ebb_bin, workdir, peers + 1, f"tp{peers}", string_rule=string_rule,
                          extra=extra)
        try:
            if with_delete:
                hold_a_delete(mesh)
            if fill:
                fill_log(mesh, fill, key_range)
            for p in (1, 16):
                rows.append((peers, p, mesh_set(mesh, requests, p, key_range)))
        finally:
            for s in mesh:
                s.stop()
    alone = {p: run[1] for peers, p, run in rows if peers == 0}
    print("| peers | P | ebb SET/s | redis-server SET/s (alone) | ratio | origin CPU µs/SET "
          "| ÷ ebb alone | peer CPU µs/delta | an ebb replica's µs/write |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
    for peers, p, (rps, origin_us, peer_us) in rows:
        ref_rps, _ = redis_runs[p]
        peer = f"{peer_us:.2f}" if peers else "—"
        print(f"| {peers} | {p} | {rps:,.0f} | {ref_rps:,.0f} | {rps / ref_rps:.2f} | "
              f"{origin_us:.2f} | {origin_us / alone[p]:.2f} | {peer} | "
              f"{replica_runs[p][2]:.2f} |")
    print("\nredis-server alone, CPU µs/SET: " +
          ", ".join(f"P={p} {redis_runs[p][1]:.2f}" for p in (1, 16)) +
          "; an ebb master with one replica, master µs/SET: " +
          ", ".join(f"P={p} {replica_runs[p][1]:.2f}" for p in (1, 16)))


def convergence(ebb_bin, workdir, writes_list, string_rule):
    print("\n| writes during the partition | time to converge after the heal (s) |")
    print("|---|---|")
    for writes in writes_list:
        mesh = start_mesh(ebb_bin, workdir, 3, f"cv{writes}", debug=True,
                          string_rule=string_rule)
        try:
            origin = call(mesh[0].port, "PEER", "ID").decode().split("\r\n")[1]
            for s in mesh[1:]:
                call(mesh[0].port, "DEBUG", "PEER-LINK", "127.0.0.1", str(s.port), "DOWN")
                call(s.port, "DEBUG", "PEER-LINK", "127.0.0.1", str(mesh[0].port), "DOWN")
            bench(mesh[0].port, ["set", "key:__rand_int__", "v"], writes, 16, 50,
                  key_range=writes)
            end = int(info(mesh[0].port, "peers")["origin_offset"])
            began = time.time()
            for s in mesh[1:]:
                call(mesh[0].port, "DEBUG", "PEER-LINK", "127.0.0.1", str(s.port), "UP")
                call(s.port, "DEBUG", "PEER-LINK", "127.0.0.1", str(mesh[0].port), "UP")
            deadline = began + 600
            while any(applied_from(s.port, origin) < end for s in mesh[1:]):
                if time.time() > deadline:
                    raise RuntimeError("no convergence within 600 s")
                time.sleep(0.005)
            print(f"| {writes:,} | {time.time() - began:.3f} |")
        finally:
            for s in mesh:
                s.stop()


def snapshot_apply(ebb_bin, workdir, keys, string_rule, value_size):
    """Two linked nodes whose logs hold 1,000 deltas: node 0's links are cut, `keys` SETs over as
    many keys are made there (values "v", or of `value_size` bytes), the links heal, and node 1
    gets a snapshot. Prints the time until it reports node 0's last offset applied and its CPU
    meanwhile."""
    print(f"\n| keys in the snapshot ({value_size or 1}-byte values) | time to apply it (s) "
          "| the receiver's CPU (s) |")
    print("|---|---|---|")
    mesh = start_mesh(ebb_bin, workdir, 2, f"snap{keys}", debug=True, string_rule=string_rule,
                      extra=["--peer-backlog-size", "1000"])
    try:
        sender, receiver = mesh
        origin = call(sender.port, "PEER", "ID").decode().split("\r\n")[1]
        call(sender.port, "DEBUG", "PEER-LINK", "127.0.0.1", str(receiver.port), "DOWN")
        call(receiver.port, "DEBUG", "PEER-LINK", "127.0.0.1", str(sender.port), "DOWN")
        if value_size:
            load_keys(sender.port, keys, value_size, batch=max(1, (16 << 20) // value_size))
        else:
            bench(sender.port, ["set", "key:__rand_int__", "v"], keys, 16, 50, key_range=keys)
        end = int(info(sender.port, "peers")["origin_offset"])
        cpu_before = receiver.cpu_seconds()
        began = time.time()
        call(sender.port, "DEBUG", "PEER-LINK", "127.0.0.1", str(receiver.port), "UP")
        call(receiver.port, "DEBUG", "PEER-LINK", "127.0.0.1", str(sender.port), "UP")
        while applied_from(receiver.port, origin) < end:
            if time.time() > began + 600:
                raise RuntimeError("the snapshot was not applied within 600 s")
            time.sleep(0.005)
        took = time.time() - began
        if int(info(sender.port, "peers")["snapshots_sent"]) < 1:
            raise RuntimeError("the heal sent no snapshot")
        print(f"| {keys:,} | {took:.3f} | {receiver.cpu_seconds() - cpu_before:.2f} |")
    finally:
        for s in mesh:
            s.stop()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--ebb", default="build/ebb-server")
    parser.add_argument("--requests", type=int, default=200000)
    parser.add_argument("--peers", default="0,2,4")
    parser.add_argument("--writes", default="10000,100000")
    parser.add_argument("--string-rule", choices=["timestamp", "observed-remove"],
                        default="timestamp", help="every node's active-active-string-rule")
    parser.add_argument("--key-range", type=int, default=1000,
                        help="redis-benchmark's -r for the throughput table")
    parser.add_argument("--peer-backlog-size", type=int, default=0,
                        help="the meshes' peer-backlog-size (0: the server's default); below "
                             "the writes of a run, the origin's log is full for most of it")
    parser.add_argument("--with-delete", action="store_true",
                        help="the meshes hold a delete marker before the load (every delta is "
                             "then judged by its origin's last collect)")
    parser.add_argument("--fill", type=int, default=0,
                        help="SETs made against each mesh before it is measured (0: none); "
                             "past peer-backlog-size, the origin runs with its log full")
    parser.add_argument("--snapshot-keys", type=int, default=300000,
                        help="SETs (over as many keys) the snapshot part sends; 0 leaves it out")
    parser.add_argument("--snapshot-value-size", type=int, default=0,
                        help="the bytes of each value the snapshot part sets (0: \"v\")")
    args = parser.parse_args()
    workdir = tempfile.mkdtemp(prefix="ebb-aa-bench-")
    try:
        throughput(args.ebb, workdir, args.requests, [int(p) for p in args.peers.split(",")],
                   args.string_rule, args.key_range, args.peer_backlog_size, args.with_delete,
                   args.fill)
        if args.writes:
            convergence(args.ebb, workdir, [int(w) for w in args.writes.split(",")],
                        args.string_rule)
        if args.snapshot_keys:
            snapshot_apply(args.ebb, workdir, args.snapshot_keys, args.string_rule,
                           args.snapshot_value_size)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
