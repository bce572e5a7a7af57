#!/usr/bin/python3
"""The pictures of docs/operations.md, drawn from a real run's scraped metrics.

Starts an ebb-server with `metrics-port` on free loopback ports (a small memtable so that
flushes and compactions happen within the run, `expiry-purge-deadline 20s`), scrapes its
/metrics every half second with python3-prometheus-client's parser, and drives it through four
phases, each marked on the plots:

  load     redis-benchmark writes SET and reads GET (50 clients, pipeline 16);
  expiry   a wave of PUT ... TTL 4000 (rows that expire 4 s after they are written), then
           nothing: the rows expire, and the purge deadline has the engine remove them;
  compact  DEBUG COMPACT, every level down to the last;
  replica  a second ebb-server started with --replicaof catches up with the data.

Writes the scraped series to <out>/operations_metrics.csv and, with gnuplot, the chart to
<out>/operations_metrics.png (docs/img/ in the repository).

Usage: bench/metrics_plots.py [--ebb build/ebb-server] [--out docs/img]
"""
import argparse
import csv
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

from prometheus_client.parser import text_string_to_metric_families

# The series plotted: (column, metric family, labels that must match, how it is read).
SERIES = [
    ("commands_per_s", "redis_commands_processed_total", {}, "rate"),
    ("set_p99_us", "redis_latency_percentiles_usec", {"cmd": "set", "quantile": "0.99"}, "value"),
    ("get_p99_us", "redis_latency_percentiles_usec", {"cmd": "get", "quantile": "0.99"}, "value"),
    ("memory_bytes", "redis_memory_used_bytes", {}, "value"),
    ("memtable_bytes", "ebb_memtable_bytes", {}, "value"),
    ("table_bytes", "ebb_level_bytes", {}, "sum"),
    ("keys", "redis_db_keys", {"db": "db0"}, "value"),
    ("expired_rows_per_s", "ebb_expired_rows_dropped_total", {}, "rate"),
    ("expired_whole_bytes", "ebb_expired_whole_file_bytes_total", {}, "value"),
    ("compaction_written_per_s", "ebb_compaction_written_bytes_total", {}, "rate"),
    ("flushes", "ebb_flushes_total", {}, "value"),
    ("replica_lag_bytes", "ebb_replica_lag_bytes", {}, "sum"),
]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start(ebb, port, directory, extra):
    os.makedirs(directory, exist_ok=True)
    log = open(os.path.join(directory, "server.log"), "w")
    proc = subprocess.Popen(
        [ebb, "--port", str(port), "--dir", directory, "--enable-debug-command", "yes"] + extra,
        stdout=log, stderr=subprocess.STDOUT)
    for _ in range(200):
        if cli(port, "PING") == "PONG":
            return proc
        time.sleep(0.05)
    proc.kill()
    sys.exit(f"ebb-server on port {port} did not start; see {directory}/server.log")


def cli(port, *args):
    done = subprocess.run(["redis-cli", "-p", str(port)] + list(args), capture_output=True,
                          text=True, timeout=120)
    return done.stdout.strip()


def bench(port, requests, *command):
    subprocess.run(["redis-benchmark", "-p", str(port), "-c", "50", "-P", "16", "-n",
                    str(requests), "-r", "200000", "-q"] + list(command),
                   stdout=subprocess.DEVNULL, check=True, timeout=300)


class Scraper:
    """Scrapes /metrics every `period` seconds into rows of SERIES columns."""

    def __init__(self, metrics_port, period=0.5):
        self.url = f"http://127.0.0.1:{metrics_port}/metrics"
        self.period = period
        self.rows = []
        self.phases = []  # (seconds since start, name)
        self.stop = threading.Event()
        self.start = time.monotonic()
        self.previous = {}

    def mark(self, name):
        self.phases.append((time.monotonic() - self.start, name))
        print(f"{time.monotonic() - self.start:6.1f} s  {name}", file=sys.stderr)

    def read(self):
        text = urllib.request.urlopen(self.url, timeout=5).read().decode()
        values = {}
        for family in text_string_to_metric_families(text):
            for column, name, labels, _ in SERIES:
                if family.name != name and family.name + "_total" != name:
                    continue
                for sample in family.samples:
                    if sample.name != name:
                        continue
                    if all(sample.labels.get(k) == v for k, v in labels.items()):
                        values[column] = values.get(column, 0.0) + sample.value
        return values

    def run(self):
        for _ in range(100000):
            if self.stop.is_set():
                return
            now = time.monotonic() - self.start
            try:
                values = self.read()
            except OSError:  # a scrape waits while DEBUG COMPACT holds the command thread
                continue
            row = {"t": round(now, 2)}
            for column, _, _, how in SERIES:
                value = values.get(column, 0.0)
                if how == "rate":
                    before = self.previous.get(column)
                    row[column] = 0.0 if before is None else max(
                        0.0, (value - before[1]) / (now - before[0]))
                    self.previous[column] = (now, value)
                else:
                    row[column] = value
            self.rows.append(row)
            self.stop.wait(self.period)


def plot(csv_path, phases, png):
    if not shutil.which("gnuplot"):
        print("gnuplot not found: no chart written", file=sys.stderr)
        return
    marks = "\n".join(
        f"set arrow from {t:.1f}, graph 0 to {t:.1f}, graph 1 nohead dt 2 lc rgb 'gray40'\n"
        f"set label '{name}' at {t + 0.3:.1f}, graph 0.06 tc rgb 'gray30'"
        for t, name in phases)
    script = f"""
set terminal pngcairo size 1400,1400 noenhanced
set output '{png}'
set datafile separator ','
set key autotitle columnhead below horizontal
set grid
set multiplot layout 4,1 title 'One ebb-server through a load, an expiry wave and its purge, a compaction and a replica catching up'
{marks}
set ylabel 'commands/s'
set y2label 'p99 (us)'
set y2tics
set ytics nomirror
plot '{csv_path}' using 1:2 with lines lw 2 title 'commands/s', \\
     '' using 1:3 axes x1y2 with lines title 'SET p99 us (since start)', '' using 1:4 axes x1y2 with lines title 'GET p99 us (since start)'
unset y2label
unset y2tics
set ytics mirror
set ylabel 'MiB'
plot '{csv_path}' using 1:($5/1048576) with lines lw 2 title 'memory used', \\
     '' using 1:($6/1048576) with lines title 'memtables', '' using 1:($7/1048576) with lines title 'table files'
set ylabel 'rows/s, keys'
set y2label 'MiB'
set y2tics
set ytics nomirror
plot '{csv_path}' using 1:9 with lines lw 2 title 'expired rows dropped /s', \\
     '' using 1:8 with lines title 'keys (db0)', \\
     '' using 1:($10/1048576) axes x1y2 with lines title 'whole-file expiry, MiB (total)'
set ylabel 'MiB/s'
set y2label 'MiB'
set xlabel 'seconds'
plot '{csv_path}' using 1:($11/1048576) with lines lw 2 title 'compaction written MiB/s', \\
     '' using 1:($13/1048576) axes x1y2 with lines lw 2 title 'replica lag MiB'
unset multiplot
"""
    subprocess.run(["gnuplot"], input=script, text=True, check=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ebb", default="build/ebb-server")
    parser.add_argument("--out", default="docs/img")
    args = parser.parse_args()
    ebb = os.path.abspath(args.ebb)
    work = tempfile.mkdtemp(prefix="ebb-metrics-plots-")
    port, metrics_port, replica_port = free_port(), free_port(), free_port()
    servers = []
    scraper = None
    try:
        servers.append(start(ebb, port, os.path.join(work, "master"), [
            "--metrics-port", str(metrics_port), "--memtable-size", "1mb",
            "--expiry-purge-deadline", "20s", "--wal-fsync", "everysec"]))
        scraper = Scraper(metrics_port)
        thread = threading.Thread(target=scraper.run)
        thread.start()
        time.sleep(2)
        scraper.mark("load")
        bench(port, 600000, "SET", "k:__rand_int__", "x" * 64)
        bench(port, 600000, "GET", "k:__rand_int__")
        time.sleep(2)
        scraper.mark("expiry")
        bench(port, 300000, "PUT", "e:__rand_int__", "y" * 64, "TTL", "4000")
        time.sleep(30)
        scraper.mark("compact")
        cli(port, "DEBUG", "COMPACT")
        time.sleep(4)
        scraper.mark("replica")
        servers.append(start(ebb, replica_port, os.path.join(work, "replica"),
                             ["--replicaof", "127.0.0.1", str(port)]))
        for _ in range(600):
            if "master_link_status:up" in cli(replica_port, "INFO", "replication"):
                break
            time.sleep(0.1)
        bench(port, 200000, "SET", "k:__rand_int__", "z" * 64)
        time.sleep(6)
        scraper.stop.set()
        thread.join()
    finally:
        if scraper is not None:
            scraper.stop.set()
        for proc in servers:
            proc.terminate()
            proc.wait(timeout=30)
    os.makedirs(args.out, exist_ok=True)
    csv_path = os.path.join(args.out, "operations_metrics.csv")
    with open(csv_path, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=["t"] + [s[0] for s in SERIES])
        writer.writeheader()
        writer.writerows(scraper.rows)
    plot(csv_path, scraper.phases, os.path.join(args.out, "operations_metrics.png"))
    print(f"{len(scraper.rows)} scrapes; {csv_path}", file=sys.stderr)
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
