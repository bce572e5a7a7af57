#!/usr/bin/env python3
"""Time series: ebb's TS.* against redis-server storing each series in a sorted set, in one run.

Redis users without the RedisTimeSeries module keep a series as a sorted set, one member per
sample (ZADD key ts "ts:value", read back with ZRANGEBYSCORE) and aggregate it in a Lua script.
This script sets ebb-server (wal-fsync everysec) against redis-server so used (appendonly yes,
appendfsync everysec, no RDB saves; as bench/server_bench.py starts both) and measures:

- ingestion: TS.ADD key * value vs ZADD key score "member" with redis-benchmark, 50 clients over
  1,000 series, P=1 and P=16: requests/s and each server's CPU microseconds per request
  (utime + stime of /proc/<pid>/stat across the run), rounds alternating ebb and redis;
- aggregation: TS.RANGE over one hour of a series sampled every second (3,600 samples) with
  AGGREGATION avg 60000 vs EVALSHA of a Lua script that does the same over ZRANGEBYSCORE (its
  replies are checked equal to ebb's first): queries/s and server CPU per query;
- bytes per sample on disk, the same samples loaded into both (--series series of --hours hours
  at 1 s, a temperature in tenths of a degree that moves a tenth every ~10 s; one TS.ADD / ZADD
  per sample): ebb's whole data directory after DEBUG FLUSH-MEMTABLE and DEBUG COMPACT, redis'
  RDB after SAVE and its AOF (appendonlydir) as the load wrote it;
- RSS per series: --small-series series of 10 samples each, (RSS after - RSS before) / series;
  ebb also after its memtable is flushed and it restarts over its files (RSS - an empty
  server's), as bench/disk_bench.py does: what the series cost at rest;
- a series much larger than ebb's block cache (--big-samples samples of a noisy reading at 1 s,
  --cache-mb of block cache, direct reads, compacted, the server restarted): TS.RANGE reads of
  10 minutes, 1 hour and 6 hours at random places, each query's /proc/<pid>/io read_bytes beside
  the samples it returned — the I/O follows the range, not the series.

- a label filter over a large database (--label-only runs just this): --other-keys strings
  and --label-series series of 10 samples, `group` label = series number % 10, then
  TS.MRANGE - + FILTER group=3 (a tenth of the series) --label-queries times on one connection:
  server CPU microseconds per query; with --ebb-before, the same against that build too (ebb
  before the label index walked every key of the database per query).

Prints one Markdown table (progress goes to stderr).

Usage: bench/series_bench.py [--ebb build/ebb-server] [--rounds 2] [--requests 100000]
                             [--series 10] [--hours 6] [--queries 2000] [--small-series 20000]
                             [--big-samples 300000] [--cache-mb 0.25] [--range-queries 20]
                             [--label-only] [--ebb-before BIN] [--other-keys 100000]
                             [--label-series 100] [--label-queries 500]
"""
import argparse
import os
import random
import socket
import statistics
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from server_bench import Server, free_port, measure, resp  # noqa: E402

T0 = 1_700_000_000_000  # the first sample's timestamp (ms)
BUCKET_MS = 60_000
HOUR_MS = 3_600_000

# TS.RANGE key from to AGGREGATION avg 60000 over a sorted set of "ts:value" members: the
# buckets start at multiples of ARGV[3] (ALIGN 0), each reported as [start, "avg"].
AVG_LUA = """
local rows = redis.call('ZRANGEBYSCORE', KEYS[1], ARGV[1], ARGV[2])
local bucket = tonumber(ARGV[3])
local out, cur, sum, n = {}, nil, 0, 0
for _, m in ipairs(rows) do
  local sep = string.find(m, ':', 1, true)
  local ts = tonumber(string.sub(m, 1, sep - 1))
  local b = ts - (ts % bucket)
  if b ~= cur then
    if cur then out[#out + 1] = {cur, tostring(sum / n)} end
    cur, sum, n = b, 0, 0
  end
  sum = sum + tonumber(string.sub(m, sep + 1))
  n = n + 1
end
if cur then out[#out + 1] = {cur, tostring(sum / n)} end
return out
"""


class Conn:
    """One connection: pipelined commands and a RESP reader (errors raise)."""

    def __init__(self, port):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=600)
        self.buf = bytearray()

    def close(self):
        self.sock.close()

    def _line(self):
        while True:
            end = self.buf.find(b"\r\n")
            if end >= 0:
                line = bytes(self.buf[:end])
                del self.buf[:end + 2]
                return line
            self._fill()

    def _fill(self):
        chunk = self.sock.recv(1 << 20)
        if not chunk:
            raise RuntimeError("the server closed the connection")
        self.buf += chunk

    def reply(self):
        line = self._line()
        kind, rest = line[:1], line[1:]
        if kind == b"-":
            raise RuntimeError(rest.decode())
        if kind in (b"+", b","):
            return rest
        if kind == b":":
            return int(rest)
        if kind == b"$":
            n = int(rest)
            if n < 0:
                return None
            while len(self.buf) < n + 2:
                self._fill()
            value = bytes(self.buf[:n])
            del self.buf[:n + 2]
            return value
        if kind in (b"*", b"%"):
            n = int(rest) * (2 if kind == b"%" else 1)
            return None if n < 0 else [self.reply() for _ in range(n)]
        if kind == b"_":
            return None
        raise RuntimeError(f"unexpected reply {line[:80]!r}")

    def call(self, *args):
        return self.pipeline([args])[0]

    def pipeline(self, commands, batch=2000):
        """Sends `commands` (tuples of str/bytes/int) `batch` at a time; their replies."""
        out = []
        for first in range(0, len(commands), batch):
            chunk = commands[first:first + batch]
            self.sock.sendall(b"".join(
                resp(*[a if isinstance(a, bytes) else str(a).encode() for a in c]) for c in chunk))
            out.extend(self.reply() for _ in chunk)
        return out


def start_ebb(ebb_bin, workdir, name, extra=()):
    port = free_port()
    data = os.path.join(workdir, name)
    os.makedirs(data, exist_ok=True)
    return Server(name, [os.path.abspath(ebb_bin), "--port", str(port), "--bind", "127.0.0.1",
                         "--dir", data, "--wal-fsync", "everysec",
                         "--enable-debug-command", "local", *extra], port, workdir), data


def start_redis(workdir, name):
    port = free_port()
    data = os.path.join(workdir, name)
    os.makedirs(data, exist_ok=True)
    return Server(name, ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--dir",
                         data, "--appendonly", "yes", "--appendfsync", "everysec", "--save", ""],
                  port, workdir), data


def dir_bytes(path):
    return sum(os.path.getsize(os.path.join(d, f)) for d, _, files in os.walk(path)
               for f in files)


def read_bytes(pid):
    with open(f"/proc/{pid}/io") as f:
        return int(next(line for line in f if line.startswith("read_bytes:")).split()[1])


def log(msg):
    print(msg, file=sys.stderr, flush=True)


# ---- ingestion ---------------------------------------------------------------------------------

def ingestion(ebb_bin, workdir, rounds, requests):
    ebb, _ = start_ebb(ebb_bin, workdir, "ebb-ingest")
    redis, _ = start_redis(workdir, "redis-ingest")
    ebb_cmd = ["TS.ADD", "ts:__rand_int__", "*", "21.5", "ON_DUPLICATE", "LAST"]
    redis_cmd = ["ZADD", "z:__rand_int__", "__rand_int__", "__rand_int__:21.5"]
    rows = []
    try:
        for pipeline in (1, 16):
            n = requests * (4 if pipeline > 1 else 1)
            runs = {"ebb": [], "redis": []}
            for _ in range(rounds):  # A B A B
                runs["ebb"].append(measure(ebb, ebb_cmd, n, pipeline, 50))
                runs["redis"].append(measure(redis, redis_cmd, n, pipeline, 50))
            med = {k: (statistics.median(r[0] for r in v), statistics.median(r[1] for r in v))
                   for k, v in runs.items()}
            log(f"  TS.ADD vs ZADD P={pipeline}: {med}")
            rows.append((f"TS.ADD vs ZADD, 50 clients, P={pipeline}: requests/s",
                         f"{med['ebb'][0]:,.0f}", f"{med['redis'][0]:,.0f}"))
            rows.append((f"TS.ADD vs ZADD, P={pipeline}: server CPU µs per request",
                         f"{med['ebb'][1]:.2f}", f"{med['redis'][1]:.2f}"))
    finally:
        ebb.stop()
        redis.stop()
    return rows


# ---- one dataset in both: aggregation queries and bytes on disk ------------------------------

def temperature(seed, count):
    """A reading every second in tenths of a degree, a tenth up or down about every 10 s."""
    rng = random.Random(seed)
    value, out = 200 + rng.randrange(50), []
    for i in range(count):
        if rng.random() < 0.1:
            value += rng.choice((-1, 1))
        out.append((T0 + i * 1000, value / 10))
    return out


def load(port, commands):
    conn = Conn(port)
    conn.pipeline(commands)
    conn.close()


def load_both(ebb_port, redis_port, ebb_commands, redis_commands):
    """Loads both servers at once (one thread each)."""
    threads = [threading.Thread(target=load, args=a)
               for a in ((ebb_port, ebb_commands), (redis_port, redis_commands))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


def check_same_buckets(ebb_reply, lua_reply):
    got = [(int(ts), float(v)) for ts, v in ebb_reply]
    want = [(int(ts), float(v)) for ts, v in lua_reply]
    if len(got) != len(want) or any(
            g[0] != w[0] or abs(g[1] - w[1]) > 1e-9 * max(1, abs(w[1]))
            for g, w in zip(got, want)):
        raise RuntimeError(f"TS.RANGE and the Lua script differ: {got[:3]} vs {want[:3]}")


def dataset(ebb_bin, workdir, rounds, series, hours, queries):
    ebb, ebb_dir = start_ebb(ebb_bin, workdir, "ebb-data")
    redis, redis_dir = start_redis(workdir, "redis-data")
    rows = []
    try:
        samples = hours * 3600
        ebb_cmds, redis_cmds = [], []
        for s in range(series):
            for ts, v in temperature(s, samples):
                ebb_cmds.append(("TS.ADD", f"s:{s:03d}", ts, v))
                redis_cmds.append(("ZADD", f"z:{s:03d}", ts, f"{ts}:{v}"))
        log(f"  loading {len(ebb_cmds):,} samples into both")
        started = time.time()
        load_both(ebb.port, redis.port, ebb_cmds, redis_cmds)
        log(f"  loaded in {time.time() - started:.1f} s")
        total = len(ebb_cmds)
        del ebb_cmds, redis_cmds

        # One hour in the middle of series 0, avg per minute; the Lua script must agree.
        frm = T0 + (hours // 2) * HOUR_MS
        to = frm + HOUR_MS - 1
        conn_e, conn_r = Conn(ebb.port), Conn(redis.port)
        sha = conn_r.call("SCRIPT", "LOAD", AVG_LUA).decode()
        check_same_buckets(conn_e.call("TS.RANGE", "s:000", frm, to, "AGGREGATION", "avg",
                                       BUCKET_MS),
                           conn_r.call("EVALSHA", sha, 1, "z:000", frm, to, BUCKET_MS))
        conn_e.close()
        conn_r.close()
        ebb_q = ["TS.RANGE", "s:000", str(frm), str(to), "AGGREGATION", "avg", str(BUCKET_MS)]
        redis_q = ["EVALSHA", sha, "1", "z:000", str(frm), str(to), str(BUCKET_MS)]
        runs = {"ebb": [], "redis": []}
        for _ in range(rounds):
            runs["ebb"].append(measure(ebb, ebb_q, queries, 1, 50))
            runs["redis"].append(measure(redis, redis_q, queries, 1, 50))
        med = {k: (statistics.median(r[0] for r in v), statistics.median(r[1] for r in v))
               for k, v in runs.items()}
        log(f"  1 h avg 60000: {med}")
        rows.append(("1 h of a 1 s series (3,600 samples), avg per minute: TS.RANGE AGGREGATION "
                     "vs EVALSHA, 50 clients: queries/s",
                     f"{med['ebb'][0]:,.0f}", f"{med['redis'][0]:,.0f}"))
        rows.append(("the same: server CPU µs per query", f"{med['ebb'][1]:,.1f}",
                     f"{med['redis'][1]:,.1f}"))

        c = Conn(ebb.port)
        c.call("DEBUG", "FLUSH-MEMTABLE")
        c.call("DEBUG", "COMPACT")
        c.close()
        c = Conn(redis.port)
        c.call("SAVE")
        c.close()
        ebb_bytes = dir_bytes(ebb_dir)
        rdb = os.path.getsize(os.path.join(redis_dir, "dump.rdb"))
        aof = dir_bytes(os.path.join(redis_dir, "appendonlydir"))
        rows.append((f"bytes per sample on disk ({series} series × {samples:,} samples, "
                     "a temperature at 1 s): ebb's directory after DEBUG COMPACT vs RDB / AOF",
                     f"{ebb_bytes / total:.2f}",
                     f"{rdb / total:.2f} (RDB) / {aof / total:.2f} (AOF)"))
    finally:
        ebb.stop()
        redis.stop()
    return rows


# ---- many small series -------------------------------------------------------------------------

def small_series(ebb_bin, workdir, count):
    ebb, _ = start_ebb(ebb_bin, workdir, "ebb-small")
    redis, _ = start_redis(workdir, "redis-small")
    try:
        base = {"ebb": ebb.rss_kb(), "redis": redis.rss_kb()}
        ebb_cmds, redis_cmds = [], []
        for s in range(count):
            for i in range(10):
                ts, v = T0 + i * 1000, 20 + (s + i) % 7 / 10
                ebb_cmds.append(("TS.ADD", f"sensor:{s:07d}", ts, v))
                redis_cmds.append(("ZADD", f"sensor:{s:07d}", ts, f"{ts}:{v}"))
        load_both(ebb.port, redis.port, ebb_cmds, redis_cmds)
        time.sleep(1)
        after = {"ebb": ebb.rss_kb(), "redis": redis.rss_kb()}
        c = Conn(ebb.port)
        c.call("DEBUG", "FLUSH-MEMTABLE")  # the restart then replays no WAL into a memtable
        c.close()
        ebb.stop()
        empty, _ = start_ebb(ebb_bin, workdir, "ebb-empty")
        empty_rss = empty.rss_kb()
        empty.stop()
        ebb, _ = start_ebb(ebb_bin, workdir, "ebb-small")  # the same directory, restarted
        c = Conn(ebb.port)
        if c.call("TS.GET", f"sensor:{count - 1:07d}") is None:
            raise RuntimeError("the series did not survive the restart")
        c.close()
        restarted = ebb.rss_kb()
    finally:
        ebb.stop()
        redis.stop()
    per = {k: (after[k] - base[k]) * 1024 / count for k in after}
    log(f"  RSS KiB before {base} after {after}; ebb restarted {restarted}, empty {empty_rss}")
    return [(f"RSS per series ({count:,} series of 10 samples): (after - before) / series, bytes",
             f"{per['ebb']:,.0f} (after a restart: {(restarted - empty_rss) * 1024 / count:,.0f})",
             f"{per['redis']:,.0f}")]


# ---- a series larger than the block cache ------------------------------------------------------

def big_series(ebb_bin, workdir, samples, cache_mb, range_queries):
    cache = int(cache_mb * (1 << 20))
    extra = ("--block-cache-size", str(cache), "--use-direct-reads", "yes")
    ebb, data = start_ebb(ebb_bin, workdir, "ebb-big", extra)
    rows = []
    try:
        rng = random.Random(7)
        value, cmds = 1500.0, []
        for i in range(samples):  # a power reading in watts, two decimals, noisy
            value = max(0.0, value + rng.gauss(0, 5))
            cmds.append(("TS.ADD", "power", T0 + i * 1000, f"{value:.2f}"))
        log(f"  loading {samples:,} samples into ebb")
        started = time.time()
        load(ebb.port, cmds)
        log(f"  loaded in {time.time() - started:.1f} s")
        del cmds
        c = Conn(ebb.port)
        c.call("DEBUG", "FLUSH-MEMTABLE")
        c.call("DEBUG", "COMPACT")
        c.close()
        ebb.stop()
        stored = dir_bytes(data)
        ebb, _ = start_ebb(ebb_bin, workdir, "ebb-big", extra)  # an empty block cache
        pid = ebb.proc.pid
        c = Conn(ebb.port)
        rng = random.Random(11)
        span_ms = samples * 1000
        for label, width in (("10 min", 600_000), ("1 h", HOUR_MS), ("6 h", 6 * HOUR_MS)):
            width = min(width, span_ms)
            got, io = [], []
            for _ in range(range_queries):
                frm = T0 + rng.randrange(0, span_ms - width + 1000, 1000)
                before = read_bytes(pid)
                reply = c.call("TS.RANGE", "power", frm, frm + width - 1)
                io.append(read_bytes(pid) - before)
                got.append(len(reply))
            n, b = statistics.mean(got), statistics.mean(io)
            log(f"  {label}: {n:.0f} samples, read_bytes {b:,.0f}")
            rows.append((f"ebb, one series of {samples:,} samples ({stored / samples:.2f} bytes a "
                         f"sample on disk, {stored / (1 << 20):.1f} MiB) and a {cache_mb:g} MiB "
                         f"block cache, direct reads: a {label} TS.RANGE at a random place "
                         f"({n:,.0f} samples): read_bytes per query",
                         f"{b:,.0f} ({b / n:.1f} per sample)", "—"))
        c.close()
    finally:
        ebb.stop()
    return rows


# ---- a label filter over a database of mostly other keys ---------------------------------------

def label_filter_cpu(ebb_bin, workdir, name, others, series, queries):
    """Server CPU µs per TS.MRANGE FILTER group=3 over `others` strings and `series` series."""
    ebb, _ = start_ebb(ebb_bin, workdir, name)
    try:
        c = Conn(ebb.port)
        load(ebb.port, [("SET", f"other:{i:07d}", "v") for i in range(others)])
        cmds = []
        for s in range(series):
            cmds.append(("TS.CREATE", f"sensor:{s:04d}", "LABELS", "group", s % 10, "kind", "t"))
            cmds += [("TS.ADD", f"sensor:{s:04d}", T0 + i * 1000, s + i) for i in range(10)]
        load(ebb.port, cmds)
        query = ("TS.MRANGE", "-", "+", "FILTER", "group=3")
        expected = len([s for s in range(series) if s % 10 == 3])
        if len(c.call(*query)) != expected:
            raise RuntimeError("TS.MRANGE did not find the series of group 3")
        for _ in range(min(queries, 50)):  # warm
            c.call(*query)
        before = ebb.cpu_seconds()
        for _ in range(queries):
            c.call(*query)
        per = (ebb.cpu_seconds() - before) * 1e6 / queries
        c.close()
    finally:
        ebb.stop()
    log(f"  {name}: {per:,.1f} µs CPU per query")
    return per


def label_filter(ebb_bin, ebb_before, workdir, others, series, queries):
    now = label_filter_cpu(ebb_bin, workdir, "ebb-labels", others, series, queries)
    before = "—"
    if ebb_before:
        before = f"{label_filter_cpu(ebb_before, workdir, 'ebb-labels-before', others, series, queries):,.1f}"
    return [(f"TS.MRANGE - + FILTER group=3 ({series // 10} of {series} series of 10 samples, "
             f"{others:,} other keys): server CPU µs per query, ebb (before the label index: "
             f"{before})", f"{now:,.1f}", "—")]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ebb", default="build/ebb-server")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--requests", type=int, default=100000,
                    help="TS.ADD / ZADD requests per run at P=1 (4 times as many at P=16)")
    ap.add_argument("--series", type=int, default=10, help="series of the on-disk dataset")
    ap.add_argument("--hours", type=int, default=6, help="hours at 1 s of each of those series")
    ap.add_argument("--queries", type=int, default=2000, help="aggregation queries per run")
    ap.add_argument("--small-series", type=int, default=20000)
    ap.add_argument("--big-samples", type=int, default=300000)
    ap.add_argument("--cache-mb", type=float, default=0.25)
    ap.add_argument("--range-queries", type=int, default=20,
                    help="TS.RANGE reads of each width over the big series")
    ap.add_argument("--label-only", action="store_true",
                    help="only the label filter over a large database")
    ap.add_argument("--ebb-before", default="",
                    help="another ebb-server build to run the label filter against too")
    ap.add_argument("--other-keys", type=int, default=100000)
    ap.add_argument("--label-series", type=int, default=100)
    ap.add_argument("--label-queries", type=int, default=500)
    args = ap.parse_args()
    if args.hours < 2 or args.big_samples < 21600:
        ap.error("--hours must be at least 2 and --big-samples at least 21600 (6 h)")
    started = time.time()
    rows = []
    with tempfile.TemporaryDirectory(prefix="ebb-series-bench-") as workdir:
        log("a label filter over a large database")
        rows += label_filter(args.ebb, args.ebb_before, workdir, args.other_keys,
                             args.label_series, args.label_queries)
        if args.label_only:
            print_table(rows)
            return
        log("ingestion")
        rows += ingestion(args.ebb, workdir, args.rounds, args.requests)
        log("aggregation and bytes on disk")
        rows += dataset(args.ebb, workdir, args.rounds, args.series, args.hours, args.queries)
        log("RSS per series")
        rows += small_series(args.ebb, workdir, args.small_series)
        log("a series larger than the block cache")
        rows += big_series(args.ebb, workdir, args.big_samples, args.cache_mb,
                           args.range_queries)
    print_table(rows)
    log(f"{time.time() - started:.0f} s")


def print_table(rows):
    out = ["| measure | ebb (TS.*) | redis-server (sorted set, Lua) |", "|---|---:|---:|"]
    out += [f"| {m} | {e} | {r} |" for m, e, r in rows]
    print("\n".join(out))


if __name__ == "__main__":
    main()
