#!/usr/bin/env python3
"""Side-by-side server benchmark: ebb-server against redis-server, in one run.

Starts redis-server (appendonly yes, appendfsync everysec, no RDB saves) and ebb-server
(wal-fsync everysec) on free loopback ports, then runs redis-benchmark against both alternately
(A B A B ...) for every workload, and reports the median requests/s of each and their ratio.
The write workloads run again with both servers syncing every write (wal-fsync always vs
appendfsync always). Prints a Markdown table and, when gnuplot is present, writes a PNG bar chart.

Data held on disk rather than in memory is bench/disk_bench.py's part.

Pub/Sub and transactions (same servers, A B A B): redis-benchmark PUBLISH to a channel with 1 and
with 50 subscribers (each a socket read in bulk and discarded by this script), and MULTI / SET /
INCR / EXEC transactions — redis-benchmark sends one command per request, so this script sends
the transactions itself, pre-encoded and pipelined 16 deep on 50 connections — reported as
transactions per second.

Usage: bench/server_bench.py [--ebb build/ebb-server] [--rounds 2] [--requests 200000]
                             [--out bench/results] [--pubsub on|off|only]
                             [--monitors default|off|on] [--workloads SET,GET,...]
                             [--key-range 1000]
"""
import argparse
import base64
import csv
import io
import os
import shutil
import socket
import statistics
import subprocess
import sys
import selectors
import tempfile
import threading
import time

# (label, ebb command, redis command); a command of None means `-t <name>` of redis-benchmark.
WORKLOADS = [
    ("SET", ["SET", "k:__rand_int__", "xxx"], ["SET", "k:__rand_int__", "xxx"]),
    ("GET", ["GET", "k:__rand_int__"], ["GET", "k:__rand_int__"]),
    ("PUT vs SET", ["PUT", "k:__rand_int__", "xxx"], ["SET", "k:__rand_int__", "xxx"]),
    ("TLOG INS vs ZADD", ["TLOG", "INS", "log:__rand_int__", "m:__rand_int__", "__rand_int__"],
     ["ZADD", "z:__rand_int__", "__rand_int__", "m:__rand_int__"]),
    ("TLOG GET 10 vs ZREVRANGE 0 9", ["TLOG", "GET", "log:__rand_int__", "10"],
     ["ZREVRANGE", "z:__rand_int__", "0", "9", "WITHSCORES"]),
    ("TREG SET vs SET", ["TREG", "SET", "r:__rand_int__", "v:__rand_int__", "__rand_int__"],
     ["SET", "r:__rand_int__", "v:__rand_int__"]),
    ("TREG GET vs GET", ["TREG", "GET", "r:__rand_int__"], ["GET", "r:__rand_int__"]),
]
WRITE_LABELS = {"SET", "PUT vs SET", "TLOG INS vs ZADD", "TREG SET vs SET"}


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_ready(port, deadline_s=15):
    end = time.time() + deadline_s
    while time.time() < end:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5) as s:
                s.sendall(b"PING\r\n")
                if s.recv(16).startswith(b"+PONG"):
                    return
        except OSError:
            pass
        time.sleep(0.05)
    raise RuntimeError(f"server on port {port} did not answer PING")


def cpu_ticks(pid):
    """(utime, stime) of a process so far, in clock ticks, from /proc/<pid>/stat."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return int(fields[11]), int(fields[12])


class Server:
    def __init__(self, name, argv, port, workdir):
        self.name, self.port = name, port
        self.log = open(os.path.join(workdir, f"{name}.log"), "w")
        self.proc = subprocess.Popen(argv, stdout=self.log, stderr=subprocess.STDOUT, cwd=workdir)
        wait_ready(port)

    def stop(self):
        self.proc.terminate()
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.log.close()

    def cpu_seconds(self):
        """The process's CPU time so far: utime + stime from /proc/<pid>/stat, in seconds."""
        return sum(cpu_ticks(self.proc.pid)) / os.sysconf("SC_CLK_TCK")

    def rss_kb(self, field="VmRSS"):
        """Resident set size in KiB now (VmRSS), or its peak so far (field="VmHWM")."""
        try:
            with open(f"/proc/{self.proc.pid}/status") as f:
                for line in f:
                    if line.startswith(field + ":"):
                        return int(line.split()[1])
        except OSError:
            pass
        return 0


# --monitors: the slow log and the latency monitor as the servers start with them. "on" logs
# every command in the slow log and records every event of 1 ms or more: their whole cost.
MONITORS = {
    "default": [],
    "off": ["--slowlog-log-slower-than", "-1", "--latency-monitor-threshold", "0"],
    "on": ["--slowlog-log-slower-than", "0", "--latency-monitor-threshold", "1"],
}
monitor_args = MONITORS["default"]


def start_pair(ebb_bin, workdir, fsync_always):
    rport, eport = free_port(), free_port()
    rdir, edir = os.path.join(workdir, "redis"), os.path.join(workdir, "ebb")
    for d in (rdir, edir):
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
    redis = Server("redis", ["redis-server", "--port", str(rport), "--bind", "127.0.0.1",
                             "--dir", rdir, "--appendonly", "yes", "--appendfsync",
                             "always" if fsync_always else "everysec", "--save", ""] +
                   monitor_args,
                   rport, workdir)
    ebb = Server("ebb", [os.path.abspath(ebb_bin), "--port", str(eport), "--bind", "127.0.0.1",
                         "--dir", edir, "--wal-fsync", "always" if fsync_always else "everysec"] +
                 monitor_args,
                 eport, workdir)
    return redis, ebb


def bench_row(port, command, requests, pipeline, clients, key_range=1000):
    """redis-benchmark's result: requests/s ("rps") and latency percentiles in ms ("p50",
    "p99")."""
    argv = ["redis-benchmark", "-h", "127.0.0.1", "-p", str(port), "-c", str(clients),
            "-n", str(requests), "-r", str(key_range), "-P", str(pipeline), "--csv"] + command
    out = subprocess.run(argv, capture_output=True, text=True, timeout=600).stdout
    rows = list(csv.reader(io.StringIO(out)))
    # "test","rps","avg_latency_ms","min_latency_ms","p50_latency_ms","p95_latency_ms",...
    for row in rows[1:]:
        if len(row) >= 7:
            return {"rps": float(row[1]), "p50": float(row[4]), "p99": float(row[6])}
    raise RuntimeError(f"no result from: {' '.join(argv)}\n{out}")


def bench(port, command, requests, pipeline, clients, key_range=1000):
    return bench_row(port, command, requests, pipeline, clients, key_range)["rps"]


def measure(server, command, requests, pipeline, clients, key_range=1000):
    """(requests/s, the server's CPU microseconds per request) of one redis-benchmark run: the
    server process's utime + stime across the run over the requests it served."""
    before = server.cpu_seconds()
    rps = bench(server.port, command, requests, pipeline, clients, key_range)
    return rps, (server.cpu_seconds() - before) * 1e6 / requests


def run_suite(ebb_bin, workdir, rounds, requests, fsync_always, labels, key_range):
    redis, ebb = start_pair(ebb_bin, workdir, fsync_always)
    results = []
    try:
        for label, ebb_cmd, redis_cmd in WORKLOADS:
            if label not in labels:
                continue
            for pipeline in (1, 16):
                n = requests * (4 if pipeline > 1 else 1)
                ebb_runs, redis_runs = [], []
                for _ in range(rounds):  # A B A B: alternate so drift hits both alike
                    ebb_runs.append(measure(ebb, ebb_cmd, n, pipeline, 50, key_range))
                    redis_runs.append(measure(redis, redis_cmd, n, pipeline, 50, key_range))
                e, r = (statistics.median(x[0] for x in runs) for runs in (ebb_runs, redis_runs))
                ec, rc = (statistics.median(x[1] for x in runs) for runs in (ebb_runs, redis_runs))
                results.append((label, pipeline, e, r, ec, rc))
                print(f"  {label:32} P={pipeline:<2} ebb {e:>12,.0f}  redis {r:>12,.0f}  "
                      f"x{e / r:.2f}  CPU us/req ebb {ec:.2f} redis {rc:.2f}", file=sys.stderr,
                      flush=True)
        rss = (ebb.rss_kb(), redis.rss_kb())
    finally:
        ebb.stop()
        redis.stop()
    return results, rss


class Subscribers:
    """`count` connections SUBSCRIBEd to `channel`, drained by one thread until stop()."""

    def __init__(self, port, channel, count):
        self.socks = []
        for _ in range(count):
            s = socket.create_connection(("127.0.0.1", port))
            s.sendall(resp(b"SUBSCRIBE", channel.encode()))
            s.recv(1024)  # the confirmation
            s.setblocking(False)
            self.socks.append(s)
        self.stopping = False
        self.thread = threading.Thread(target=self._drain, daemon=True)
        self.thread.start()

    def _drain(self):
        sel = selectors.DefaultSelector()
        for s in self.socks:
            sel.register(s, selectors.EVENT_READ)
        while not self.stopping:
            for key, _ in sel.select(timeout=0.1):
                try:
                    key.fileobj.recv(1 << 20)
                except BlockingIOError:
                    pass

    def stop(self):
        self.stopping = True
        self.thread.join()
        for s in self.socks:
            s.close()


def transactions(port, count, clients=50, depth=16):
    """MULTI SET INCR EXEC `count` times over `clients` connections, `depth` in flight on each;
    returns transactions per second."""
    one = resp(b"MULTI") + resp(b"SET", b"tx:k", b"1") + resp(b"INCR", b"tx:k") + resp(b"EXEC")
    per_client = count // clients
    done = [0.0] * clients

    def run(i):
        s = socket.create_connection(("127.0.0.1", port))
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        sent = received = 0
        tail = b""
        while received < per_client:
            burst = min(depth - (sent - received), per_client - sent)
            if burst > 0:
                s.sendall(one * burst)
                sent += burst
            data = tail + s.recv(1 << 16)
            received += data.count(b"*2\r\n")  # one EXEC reply per transaction
            tail = data[-3:]
        s.close()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(clients)]
    start = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return per_client * clients / (time.perf_counter() - start)


def run_pubsub_suite(ebb_bin, workdir, rounds, requests):
    redis, ebb = start_pair(ebb_bin, workdir, False)
    results = []
    try:
        for subscribers in (1, 50):
            subs = [Subscribers(ebb.port, "ch", subscribers),
                    Subscribers(redis.port, "ch", subscribers)]
            try:
                for pipeline in (1, 16):
                    n = requests * (4 if pipeline > 1 else 1) // (10 if subscribers > 1 else 1)
                    cmd = ["PUBLISH", "ch", "message:__rand_int__"]
                    e = statistics.median(
                        [x for _ in range(rounds)
                         for x in [bench(ebb.port, cmd, n, pipeline, 50)]])
                    r = statistics.median(
                        [x for _ in range(rounds)
                         for x in [bench(redis.port, cmd, n, pipeline, 50)]])
                    label = f"PUBLISH to {subscribers} subscriber{'s' if subscribers > 1 else ''}"
                    results.append((label, pipeline, e, r))
                    print(f"  {label:32} P={pipeline:<2} ebb {e:>12,.0f}  redis {r:>12,.0f}  "
                          f"x{e / r:.2f}", file=sys.stderr, flush=True)
            finally:
                for sub in subs:
                    sub.stop()
        ebb_tps, redis_tps = [], []
        for _ in range(rounds):  # A B A B
            ebb_tps.append(transactions(ebb.port, requests // 2))
            redis_tps.append(transactions(redis.port, requests // 2))
        e, r = statistics.median(ebb_tps), statistics.median(redis_tps)
        results.append(("MULTI SET INCR EXEC (transactions/s)", 16, e, r))
        print(f"  {'MULTI SET INCR EXEC':32} P=16 ebb {e:>12,.0f}  redis {r:>12,.0f}  "
              f"x{e / r:.2f}", file=sys.stderr, flush=True)
    finally:
        ebb.stop()
        redis.stop()
    return results


def markdown(title, results):
    """A table of (label, P, ebb req/s, redis req/s[, ebb CPU us/req, redis CPU us/req]) rows;
    the CPU ratio is redis / ebb (above 1: ebb spends less CPU per request)."""
    cpu = all(len(row) == 6 for row in results)
    head = "| workload | P | ebb req/s | redis req/s | ebb / redis |"
    rule = "|---|---:|---:|---:|---:|"
    if cpu:
        head += " ebb CPU µs/req | redis CPU µs/req | redis / ebb CPU |"
        rule += "---:|---:|---:|"
    lines = [f"#### {title}", "", head, rule]
    for row in results:
        label, p, e, r = row[:4]
        line = f"| {label} | {p} | {e:,.0f} | {r:,.0f} | {e / r:.2f} |"
        if cpu:
            line += f" {row[4]:.2f} | {row[5]:.2f} | {row[5] / row[4]:.2f} |"
        lines.append(line)
    return "\n".join(lines) + "\n"


def plot(results, path, key_range):
    if not shutil.which("gnuplot"):
        print("gnuplot not found: no chart written", file=sys.stderr)
        return
    data = path + ".dat"
    with open(data, "w") as f:
        for label, p, e, r, *_ in results:
            f.write(f"\"{label} P={p}\" {e:.0f} {r:.0f}\n")
    script = f"""
set terminal pngcairo size 1400,700 noenhanced
set output '{path}'
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set ylabel 'requests/s (median)'
set xtics rotate by -35
set bmargin 14
set rmargin 16
set key top right
set grid ytics
set title 'ebb-server vs redis-server (50 clients, -r {key_range})'
plot '{data}' using 2:xtic(1) title 'ebb', '' using 3 title 'redis'
"""
    subprocess.run(["gnuplot"], input=script, text=True, check=True)


# --- Talking to a server directly: loading keys, INFO (bench/disk_bench.py uses these too). ---

KEY_LEN = 16  # "key:" + the 12 digits redis-benchmark substitutes for __rand_int__


def resp(*args):
    out = [b"*%d\r\n" % len(args)]
    for a in args:
        out.append(b"$%d\r\n%s\r\n" % (len(a), a))
    return b"".join(out)


def call(port, *args):
    """Sends one command on a fresh connection and returns the raw reply (enough for +OK/-ERR)."""
    with socket.create_connection(("127.0.0.1", port), timeout=600) as s:
        s.sendall(resp(*[a.encode() if isinstance(a, str) else a for a in args]))
        reply = s.recv(1 << 16)
    if not reply or reply.startswith(b"-"):
        raise RuntimeError(f"{' '.join(map(str, args))} on port {port}: {reply!r}")
    return reply


def info(port, section):
    reply = call(port, "INFO", section).decode()
    return dict(line.split(":", 1) for line in reply.splitlines()[1:] if ":" in line)


def load_keys(port, nkeys, value_size, batch=10000):
    """SETs key:000000000000 .. key:<nkeys-1> (every key exactly once, the names redis-benchmark's
    -r nkeys draws from) to random base64 values, pipelined in batches; raises on any non-OK."""
    raw = (value_size * 3 + 3) // 4
    with socket.create_connection(("127.0.0.1", port), timeout=600) as s:
        for first in range(0, nkeys, batch):
            n = min(batch, nkeys - first)
            values = base64.b64encode(os.urandom(raw * n))
            step = len(values) // n
            s.sendall(b"".join(resp(b"SET", b"key:%012d" % (first + i),
                                    values[i * step:i * step + value_size]) for i in range(n)))
            want, got = b"+OK\r\n" * n, bytearray()
            while len(got) < len(want):
                chunk = s.recv(1 << 20)
                if not chunk:
                    raise RuntimeError(f"port {port} closed the connection during the load")
                got += chunk
            if got != want:
                raise RuntimeError(f"load on port {port} got {bytes(got[:200])!r}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ebb", default="build/ebb-server")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--requests", type=int, default=200000)
    ap.add_argument("--out", default="bench/results")
    ap.add_argument("--pubsub", choices=["on", "off", "only"], default="on",
                    help="run the Pub/Sub and transaction table (on), skip it, or run only it "
                    "(written to pubsub_bench.md)")
    ap.add_argument("--monitors", choices=sorted(MONITORS), default="default",
                    help="the slow log and latency monitor on both servers: their defaults, "
                    "off, or on for every command and every event of 1 ms")
    ap.add_argument("--workloads", default="",
                    help="comma-separated labels of the workloads to run (default: all)")
    ap.add_argument("--key-range", type=int, default=1000,
                    help="redis-benchmark's -r: the keys each workload draws from (1,000 stay "
                    "in the CPU cache; 100,000 do not)")
    args = ap.parse_args()
    global monitor_args
    monitor_args = MONITORS[args.monitors]
    chosen = set(args.workloads.split(",")) if args.workloads else {w[0] for w in WORKLOADS}
    os.makedirs(args.out, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="ebb-bench-") as workdir:
        if args.pubsub == "only":
            report = markdown("Pub/Sub and transactions (everysec)",
                              run_pubsub_suite(args.ebb, workdir, args.rounds, args.requests))
            with open(os.path.join(args.out, "pubsub_bench.md"), "w") as f:
                f.write(report)
            print(report)
            return
        print("everysec:", file=sys.stderr)
        everysec, rss = run_suite(args.ebb, workdir, args.rounds, args.requests, False, chosen,
                                  args.key_range)
        print("always:", file=sys.stderr)
        # A quarter of the requests: every write waits for the disk. Shorter runs (a tenth was
        # tried) last under half a second at P=16 and move by 30% between rounds.
        always, _ = run_suite(args.ebb, workdir, args.rounds, max(args.requests // 4, 10000),
                              True, WRITE_LABELS & chosen, args.key_range)
        pubsub = (run_pubsub_suite(args.ebb, workdir, args.rounds, args.requests)
                  if args.pubsub == "on" else [])
        report = (markdown("wal-fsync everysec vs appendfsync everysec", everysec) + "\n" +
                  (markdown("Pub/Sub and transactions (everysec)", pubsub) + "\n"
                   if pubsub else "") +
                  markdown("wal-fsync always vs appendfsync always", always) +
                  f"\nRSS after the everysec run: ebb {rss[0] // 1024} MiB, "
                  f"redis {rss[1] // 1024} MiB\n")
        plot(everysec + [(f"{l} (always)", p, e, r) for l, p, e, r, *_ in always],
             os.path.join(args.out, "server_bench.png"), args.key_range)
    with open(os.path.join(args.out, "server_bench.md"), "w") as f:
        f.write(report)
    print(report)


if __name__ == "__main__":
    main()
