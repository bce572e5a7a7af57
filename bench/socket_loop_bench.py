#!/usr/bin/env python3
"""What an event loop's system calls cost a server on this machine, apart from its work: CPU per
PING of build/socket_loop_probe on an epoll loop (a recv and a send per ready client per pass, as
redis-server and ebb-server run) and on an io_uring loop (multishot receives, each pass's sends
and its wait in one io_uring_enter), beside ebb-server and redis-server answering the same PINGs,
in one run (docs/performance.md, "Socket I/O through io_uring, measured"): what each server
spends above a loop that does nothing but its system calls.

Each server runs on a free loopback port; redis-benchmark sends PING as a multi-bulk request
(`-t ping_mbulk`, 50 clients) at each pipeline depth; the servers are alternated for `--rounds`
rounds, and each row is the median of its rounds: the process's utime + stime from
/proc/<pid>/stat over the run divided by the requests, user and kernel apart, and req/s. The
probe's null system call (getppid) is timed first: the floor of every call a loop makes.

Usage: bench/socket_loop_bench.py [--probe build/socket_loop_probe] [--ebb build/ebb-server]
                                  [--rounds 3]
                                  [--requests 300000] [--pipelines 1,16]
                                  [--loops epoll,uring,uring-plain]
(at P=16 each run takes ten times --requests)
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from server_bench import Server, cpu_ticks, free_port  # noqa: E402

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def run_pings(server, requests, pipeline):
    """(req/s, user µs a request, kernel µs a request) of one redis-benchmark run."""
    user0, sys0 = cpu_ticks(server.proc.pid)
    out = subprocess.run(
        ["redis-benchmark", "-h", "127.0.0.1", "-p", str(server.port), "-c", "50", "-n",
         str(requests), "-P", str(pipeline), "-t", "ping_mbulk", "--csv"],
        capture_output=True, text=True, check=True).stdout
    user1, sys1 = cpu_ticks(server.proc.pid)
    rps = float(out.strip().splitlines()[-1].split(",")[1].strip('"'))
    to_us = 1e6 / CLOCK_TICKS / requests
    return rps, (user1 - user0) * to_us, (sys1 - sys0) * to_us


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--probe", default="build/socket_loop_probe")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--requests", type=int, default=300000)
    ap.add_argument("--pipelines", default="1,16")
    ap.add_argument("--loops", default="epoll,uring,uring-plain")
    ap.add_argument("--ebb", default="build/ebb-server")
    args = ap.parse_args()
    probe = os.path.abspath(args.probe)
    print(subprocess.run([probe, "syscall"], capture_output=True, text=True,
                         check=True).stdout.strip())
    with tempfile.TemporaryDirectory(prefix="socket-loop-") as workdir:
        servers = []
        for loop in args.loops.split(","):
            port = free_port()
            servers.append(Server(f"probe {loop}", [probe, loop, str(port)], port, workdir))
        port = free_port()
        ebb_dir = os.path.join(workdir, "ebb")
        os.makedirs(ebb_dir)
        servers.append(Server("ebb-server", [
            os.path.abspath(args.ebb), "--port", str(port), "--bind", "127.0.0.1", "--dir",
            ebb_dir, "--wal-fsync", "everysec"], port, workdir))
        port = free_port()
        servers.append(Server("redis-server", [
            "redis-server", "--port", str(port), "--bind", "127.0.0.1", "--dir", workdir,
            "--save", "", "--appendonly", "yes", "--appendfsync", "everysec"], port, workdir))
        try:
            print("| loop | P | req/s | CPU µs/req | user | kernel |")
            print("|---|---:|---:|---:|---:|---:|")
            for pipeline in (int(p) for p in args.pipelines.split(",")):
                requests = args.requests * (10 if pipeline > 1 else 1)
                runs = {s.name: [] for s in servers}
                for _ in range(args.rounds):
                    for server in servers:
                        runs[server.name].append(run_pings(server, requests, pipeline))
                for name, results in runs.items():
                    rps = statistics.median(r[0] for r in results)
                    user = statistics.median(r[1] for r in results)
                    kernel = statistics.median(r[2] for r in results)
                    total = statistics.median(r[1] + r[2] for r in results)
                    print(f"| {name} | {pipeline} | {rps:,.0f} | {total:.2f} | {user:.2f} | "
                          f"{kernel:.2f} |")
        finally:
            for server in servers:
                server.stop()


if __name__ == "__main__":
    main()
