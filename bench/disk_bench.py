#!/usr/bin/env python3
"""Beyond memory: random GETs of keys held on disk, beside the disk's own random-read rate, and
the memory each key costs, ebb-server against redis-server in one run.

Loads the same keys (every key once, 100-byte values by default) into ebb-server (a block cache
of a tenth of the data or less, direct reads, then its memtable flushed and compacted: every row
in SST files) and redis-server (everything in memory, appendonly everysec as in
server_bench.py), and reports:

- memory per key: each server's RSS after the load, and ebb's once restarted over its files
  (nothing left of the load's allocations), over the number of keys (also with the empty
  server's RSS taken off), and ebb's memory by part (INFO memory: block cache, the index and
  bloom filter blocks it keeps in memory, memtable);
- random GET over all keys with redis-benchmark, 50 clients, P=1 and P=16: requests/s, p50 and
  p99 latency, ebb's CPU per GET and block cache hit rate, and redis-server (in memory) beside it;
- fio's random 4 KiB reads with O_DIRECT over ebb's own SST files (the same file system, the
  same files): io_uring at queue depth 1 and 32 (and 32 with registered files and buffers), and
  50 synchronous readers (what 50 clients with one request each at a time allow) — each GET of
  a key on disk reads one block — with fio's own CPU per read, the floor of a GET on disk;

in rounds that alternate fio, ebb and redis (A B C A B C ...), medians of the rounds. Writes
disk_bench.md to --out and prints it.

Usage: bench/disk_bench.py [--ebb build/ebb-server] [--keys 10000000] [--value-size 100]
                           [--cache-mb 64] [--rounds 3] [--requests 200000] [--out bench/results]
                           [--syscalls]

--syscalls also counts ebb's system calls per GET (all, and io_uring_enter) with perf stat; the
tracepoints add to ebb's CPU, so take CPU per GET from a run without it.
"""
import argparse
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from server_bench import (KEY_LEN, Server, bench_row, call, free_port, info,  # noqa: E402
                          load_keys)


def fio(files, depth, jobs, runtime_s, registered=False):
    """fio random 4 KiB O_DIRECT reads over `files` (read only): IOPS, p50 and p99 latency in ms.
    One job at `depth` uses io_uring; several jobs are synchronous readers (psync, depth 1).
    `registered`: io_uring with registered files and buffers (the kernel neither looks up the
    file nor pins the buffer's pages per read)."""
    argv = ["fio", "--name=randread", "--filename=" + ":".join(f.replace(":", "\\:") for f in files),
            "--readonly", "--rw=randread", "--bs=4k", "--direct=1", "--thread",
            "--group_reporting", f"--runtime={runtime_s}", "--time_based",
            "--output-format=json", f"--numjobs={jobs}", f"--iodepth={depth}",
            "--ioengine=" + ("io_uring" if jobs == 1 else "psync")]
    if registered:
        argv += ["--registerfiles=1", "--fixedbufs=1"]
    out = subprocess.run(argv, capture_output=True, text=True, timeout=runtime_s + 120, check=True)
    job = json.loads(out.stdout)["jobs"][0]
    read = job["read"]
    pct = read["clat_ns"]["percentile"]
    # fio's own CPU (user + system, the kernel's block path included) per read: the floor a
    # server reading one block a request can reach on this machine.
    cpu_s = (job["usr_cpu"] + job["sys_cpu"]) / 100 * job["job_runtime"] / 1000 * jobs
    return {"rps": read["iops"], "p50": pct["50.000000"] / 1e6, "p99": pct["99.000000"] / 1e6,
            "cpu_us": cpu_s / max(read["total_ios"], 1) * 1e6}


SYSCALL_EVENTS = ("raw_syscalls:sys_enter", "syscalls:sys_enter_io_uring_enter")


class SyscallCounter:
    """`perf stat` over a running process: how many system calls it makes, and of them
    io_uring_enter, from start() to stop() (perf's tracepoints; needs perf and the permission to
    trace the process)."""

    def __init__(self, pid):
        self.proc = subprocess.Popen(["perf", "stat", "-x", ",", "-e", ",".join(SYSCALL_EVENTS),
                                      "-p", str(pid)], stdout=subprocess.DEVNULL,
                                     stderr=subprocess.PIPE, text=True)
        time.sleep(0.3)  # perf attaches

    def stop(self):
        """{event: count} since start."""
        self.proc.send_signal(signal.SIGINT)
        err = self.proc.communicate(timeout=30)[1]
        counts = {}
        for line in err.splitlines():
            fields = line.split(",")
            if len(fields) > 2 and fields[2] in SYSCALL_EVENTS and fields[0].isdigit():
                counts[fields[2]] = int(fields[0])
        if len(counts) != len(SYSCALL_EVENTS):
            raise RuntimeError(f"perf stat gave no syscall counts:\n{err}")
        return counts


def sst_files(path):
    return sorted(os.path.join(path, n) for n in os.listdir(path) if n.endswith(".sst"))


def wait_tables_open(port, files, deadline_s=120):
    """ebb opens its tables in the background after a restart or compaction: wait for all."""
    end = time.time() + deadline_s
    while time.time() < end:
        st = info(port, "storage")
        if int(st["open_tables"]) >= files:
            return
        time.sleep(0.2)
    raise RuntimeError(f"ebb on port {port} did not open its {files} tables")


def median_row(rows):
    return {k: statistics.median(r[k] for r in rows) for k in rows[0]}


def run(args, workdir):
    rdir, edir = os.path.join(workdir, "redis"), os.path.join(workdir, "ebb")
    for d in (rdir, edir):
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
    rport, eport = free_port(), free_port()
    redis = Server("disk-redis", ["redis-server", "--port", str(rport), "--bind", "127.0.0.1",
                                  "--dir", rdir, "--appendonly", "yes", "--appendfsync",
                                  "everysec", "--save", ""], rport, workdir)
    ebb_argv = [os.path.abspath(args.ebb), "--port", str(eport), "--bind", "127.0.0.1", "--dir",
                edir, "--wal-fsync", "everysec", "--block-cache-size", f"{args.cache_mb}mb",
                "--use-direct-reads", "yes", "--enable-debug-command", "local"]
    try:
        ebb = Server("disk-ebb", ebb_argv, eport, workdir)
    except BaseException:
        redis.stop()
        raise
    r = {"keys": args.keys, "value_size": args.value_size, "cache_mb": args.cache_mb}
    try:
        r["ebb_rss_empty"], r["redis_rss_empty"] = ebb.rss_kb(), redis.rss_kb()
        print(f"loading {args.keys:,} keys x {args.value_size} B into each server",
              file=sys.stderr, flush=True)
        t0 = time.time()
        load_keys(eport, args.keys, args.value_size)
        call(eport, "DEBUG", "FLUSH-MEMTABLE")  # every row into SST files ...
        call(eport, "DEBUG", "COMPACT")  # ... and down to the last level, as a steady state
        r["ebb_load_s"] = time.time() - t0
        t0 = time.time()
        load_keys(rport, args.keys, args.value_size)
        r["redis_load_s"] = time.time() - t0
        r["ebb_rss"], r["redis_rss"] = ebb.rss_kb(), redis.rss_kb()
        # What the data costs a server that did not load it: ebb restarted over its files (the
        # allocator's memory from the load, memtables included, is gone).
        ebb.stop()
        ebb = Server("disk-ebb-restarted", ebb_argv, eport, workdir)
        files = sst_files(edir)
        wait_tables_open(eport, len(files))
        r["ebb_rss_restart"] = ebb.rss_kb()
        st, mem = info(eport, "storage"), info(eport, "memory")
        if int(st["memtable_bytes"]) > (1 << 20):
            raise RuntimeError(f"memtable still holds {st['memtable_bytes']} bytes after the flush")
        if int(st["open_tables_direct"]) != len(files):
            print("warning: the file system refused O_DIRECT; ebb reads through the page cache",
                  file=sys.stderr)
        r["sst_bytes"] = sum(os.path.getsize(f) for f in files)
        r["files"] = len(files)
        r["ebb_mem"] = {k: int(mem[k]) for k in ("engine_memtable_bytes", "engine_block_cache_bytes",
                                                 "engine_table_index_bytes",
                                                 "engine_table_filter_bytes")}
        print(f"  RSS ebb {r['ebb_rss'] / 1024:,.0f} MiB ({r['ebb_rss_restart'] / 1024:,.0f} MiB "
              f"restarted), redis {r['redis_rss'] / 1024:,.0f} MiB; "
              f"{r['files']} SST files, {r['sst_bytes'] / (1 << 20):,.0f} MiB",
              file=sys.stderr, flush=True)

        get = ["GET", "key:__rand_int__"]
        runs = {name: [] for name in ("fio1", "fio32", "fio32reg", "fio50x1", "ebb1", "ebb16",
                                      "redis1", "redis16")}
        ebb_cpu = {1: [], 16: []}
        ebb_sys, ebb_uring = {1: [], 16: []}, {1: [], 16: []}  # per GET, with --syscalls
        redis_cpu = {1: [], 16: []}
        before = info(eport, "storage"), info(eport, "stats")
        load = [os.getloadavg()[0]]
        for rnd in range(args.rounds):  # A B C A B C: drift hits every column alike
            runs["fio1"].append(fio(files, 1, 1, args.fio_seconds))
            runs["fio32"].append(fio(files, 32, 1, args.fio_seconds))
            runs["fio32reg"].append(fio(files, 32, 1, args.fio_seconds, registered=True))
            runs["fio50x1"].append(fio(files, 1, 50, args.fio_seconds))
            for p in (1, 16):
                n = args.requests * (2 if p > 1 else 1)
                counter = SyscallCounter(ebb.proc.pid) if args.syscalls else None
                c0 = ebb.cpu_seconds()
                runs[f"ebb{p}"].append(bench_row(eport, get, n, p, 50, key_range=args.keys))
                ebb_cpu[p].append((ebb.cpu_seconds() - c0) / n)
                if counter is not None:
                    counts = counter.stop()
                    ebb_sys[p].append(counts[SYSCALL_EVENTS[0]] / n)
                    ebb_uring[p].append(counts[SYSCALL_EVENTS[1]] / n)
                c0 = redis.cpu_seconds()
                runs[f"redis{p}"].append(bench_row(rport, get, n, p, 50, key_range=args.keys))
                redis_cpu[p].append((redis.cpu_seconds() - c0) / n)
            load.append(os.getloadavg()[0])
            print(f"  round {rnd + 1}: " + ", ".join(f"{k} {v[-1]['rps']:,.0f}"
                                                      for k, v in runs.items()),
                  file=sys.stderr, flush=True)
        after = info(eport, "storage"), info(eport, "stats")
        r["results"] = {k: median_row(v) for k, v in runs.items()}
        r["ebb_cpu_us"] = {p: statistics.median(v) * 1e6 for p, v in ebb_cpu.items()}
        r["redis_cpu_us"] = {p: statistics.median(v) * 1e6 for p, v in redis_cpu.items()}
        if args.syscalls:
            r["ebb_syscalls"] = {p: statistics.median(v) for p, v in ebb_sys.items()}
            r["ebb_uring_enters"] = {p: statistics.median(v) for p, v in ebb_uring.items()}
        hits = int(after[0]["block_cache_hits"]) - int(before[0]["block_cache_hits"])
        misses = int(after[0]["block_cache_misses"]) - int(before[0]["block_cache_misses"])
        r["hit_rate"] = hits / max(hits + misses, 1)
        r["disk_reads"] = int(after[1]["disk_reads"]) - int(before[1]["disk_reads"])
        r["disk_read_bytes"] = int(after[1]["disk_read_bytes"]) - int(before[1]["disk_read_bytes"])
        r["gets"] = sum(args.requests * (2 if p > 1 else 1) for p in (1, 16)) * args.rounds
        r["key_misses"] = int(after[1]["keyspace_misses"]) - int(before[1]["keyspace_misses"])
        r["inline_block_reads"] = int(after[1]["inline_block_reads"])
        r["disk_reader"] = after[1]["disk_reader"]
        r["load"] = load
    finally:
        ebb.stop()
        redis.stop()
    return r


def markdown(r):
    res = r["results"]
    mib = lambda kb: f"{kb / 1024:,.0f} MiB"  # noqa: E731
    data_mib = r["keys"] * (KEY_LEN + r["value_size"]) / (1 << 20)
    lines = [f"#### Beyond memory: {r['keys']:,} keys x {r['value_size']} B "
             f"({data_mib:,.0f} MiB of keys and values; {r['sst_bytes'] / (1 << 20):,.0f} MiB in "
             f"{r['files']} SST files) vs a {r['cache_mb']} MiB block cache, direct reads", "",
             "| random reads, 50 clients | req/s | p50 ms | p99 ms | ebb / fio |",
             "|---|---:|---:|---:|---:|"]

    def row(label, x, ref=None):
        ratio = f"{x['rps'] / ref['rps']:.2f}" if ref else ""
        return f"| {label} | {x['rps']:,.0f} | {x['p50']:.3f} | {x['p99']:.3f} | {ratio} |"

    lines += [row("fio 4 KiB, io_uring, depth 1", res["fio1"]),
              row("fio 4 KiB, io_uring, depth 32", res["fio32"]),
              row("fio 4 KiB, io_uring, depth 32, registered files and buffers",
                  res["fio32reg"]),
              row("fio 4 KiB, 50 readers at depth 1", res["fio50x1"]),
              row("ebb GET, P=1", res["ebb1"], res["fio50x1"]),
              row("ebb GET, P=16", res["ebb16"], res["fio32"]),
              row("redis-server GET (in memory), P=1", res["redis1"]),
              row("redis-server GET (in memory), P=16", res["redis16"])]
    per_key = lambda kb, empty: (kb * 1024 / r["keys"], (kb - empty) * 1024 / r["keys"])  # noqa
    e_all, e_net = per_key(r["ebb_rss"], r["ebb_rss_empty"])
    s_all, s_net = per_key(r["ebb_rss_restart"], r["ebb_rss_empty"])
    r_all, r_net = per_key(r["redis_rss"], r["redis_rss_empty"])
    m = r["ebb_mem"]
    lines += ["", "| memory | ebb after the load | ebb restarted | redis after the load |",
              "|---|---:|---:|---:|",
              f"| RSS | {mib(r['ebb_rss'])} | {mib(r['ebb_rss_restart'])} | "
              f"{mib(r['redis_rss'])} |",
              f"| RSS per key | {e_all:.1f} B | {s_all:.1f} B | {r_all:.1f} B |",
              f"| RSS per key, the empty server's RSS taken off | {e_net:.1f} B | {s_net:.1f} B | "
              f"{r_net:.1f} B |",
              "",
              f"ebb's engine memory: block cache {m['engine_block_cache_bytes'] / (1 << 20):,.0f} "
              f"MiB, table indexes {m['engine_table_index_bytes'] / (1 << 20):,.1f} MiB "
              f"({m['engine_table_index_bytes'] / r['keys']:.2f} B/key), bloom filters "
              f"{m['engine_table_filter_bytes'] / (1 << 20):,.1f} MiB "
              f"({m['engine_table_filter_bytes'] / r['keys']:.2f} B/key), memtable "
              f"{m['engine_memtable_bytes'] / (1 << 20):,.1f} MiB. During the GETs: block cache hit "
              f"rate {r['hit_rate']:.1%}, {r['disk_reads']:,} block reads for {r['gets']:,} GETs "
              f"({r['disk_reads'] / max(r['gets'], 1):.2f} per GET, "
              f"{r['disk_read_bytes'] / max(r['disk_reads'], 1):,.0f} bytes each) through "
              f"{r['disk_reader']}, "
              f"{r['inline_block_reads']} on the event loop, {r['key_misses']} GETs missed a key; "
              f"CPU per GET: ebb {r['ebb_cpu_us'][1]:.1f} us at P=1, "
              f"{r['ebb_cpu_us'][16]:.1f} us at P=16; redis-server in memory "
              f"{r['redis_cpu_us'][1]:.2f} / {r['redis_cpu_us'][16]:.2f} us; fio's own CPU per "
              f"4 KiB read {res['fio1']['cpu_us']:.1f} us at depth 1, "
              f"{res['fio32']['cpu_us']:.1f} us at depth 32 "
              f"({res['fio32reg']['cpu_us']:.2f} us with registered files and buffers: the "
              f"floor of a read, against 1.5x redis-server's GET in memory, "
              f"{1.5 * r['redis_cpu_us'][16]:.2f} us at P=16). Load: "
              + ", ".join(f"{x:.1f}" for x in r["load"]) + " (1-minute average, before and after "
              "each round); load times: ebb "
              f"{r['ebb_load_s']:.0f} s with flush and compaction, redis {r['redis_load_s']:.0f} s."]
    if "ebb_syscalls" in r:
        lines[-1] += (" System calls per GET: ebb "
                      + ", ".join(f"{r['ebb_syscalls'][p]:.3f} at P={p} (io_uring_enter "
                                  f"{r['ebb_uring_enters'][p]:.3f})" for p in (1, 16)) + ".")
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ebb", default="build/ebb-server")
    ap.add_argument("--keys", type=int, default=10_000_000)
    ap.add_argument("--value-size", type=int, default=100)
    ap.add_argument("--cache-mb", type=int, default=64, help="ebb's block-cache-size, MiB")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--requests", type=int, default=200000, help="GETs per run at P=1 (2x at 16)")
    ap.add_argument("--fio-seconds", type=int, default=10)
    ap.add_argument("--out", default="bench/results")
    ap.add_argument("--syscalls", action="store_true",
                    help="count ebb's system calls per GET with perf stat (adds to its CPU)")
    args = ap.parse_args()
    tools = ("fio", "redis-server", "redis-benchmark") + (("perf",) if args.syscalls else ())
    missing = [tool for tool in tools if not shutil.which(tool)]
    if missing:
        sys.exit(f"missing {', '.join(missing)}: scripts/install-deps.sh --bench installs them")
    if args.keys * (KEY_LEN + args.value_size) < 10 * args.cache_mb * (1 << 20):
        print("warning: the data is less than 10x the block cache", file=sys.stderr)
    os.makedirs(args.out, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="ebb-disk-bench-") as workdir:
        report = markdown(run(args, workdir))
    with open(os.path.join(args.out, "disk_bench.md"), "w") as f:
        f.write(report)
    print(report)


if __name__ == "__main__":
    main()
