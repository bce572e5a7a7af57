#!/usr/bin/env python3
"""Instructions per request over a whole ebb-server process, counted by callgrind.

bench/dispatch_cost.sh counts inside Dispatcher::Dispatch only; this counts every thread of the
process (reading and parsing the request, the reply, the engine's threads, a peer's link
threads), so the figures of docs/performance.md's rounds that say "callgrind over the whole
process" can be taken again. One server runs under `valgrind --tool=callgrind` with collection
off; after `--warmup` requests of the workload it is switched on for `--requests` more, then
dumped, and the instructions counted are divided by those requests:

  --role lone     a single ebb-server, the load on it: per request;
  --role origin   node 0 of a fully linked three-node active-active mesh (the other two at full
                  speed), the load on it: per write, its log and its streams included;
  --role peer     node 1 of that mesh, the load on node 0: per delta it applied (collection ends
                  once both peers report node 0's last offset applied).

The load is redis-benchmark, 50 clients, `-P --pipeline`, `-r --key-range`, the command of
`--command` (set, get, or any redis-benchmark command line after --); `--command get` first
SETs `--warmup` keys of the range, so that the GETs find them. Counts move by a few
percent between runs of one build (the batches the peers are sent differ); compare builds with
two runs each.

Usage: bench/process_cost.py [--ebb build/ebb-server] [--role lone|origin|peer]
                             [--requests 50000] [--warmup 20000] [--pipeline 16]
                             [--key-range 1000] [--command set|get|-- <redis-benchmark args>]
                             [--string-rule timestamp|observed-remove]
                             [--server-arg=ARG ...] [--keep-profile PATH]
"""
import argparse
import glob
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from server_bench import Server, bench, free_port  # noqa: E402
from active_active_bench import wait_applied, wait_linked  # noqa: E402

COMMANDS = {
    "set": ["set", "key:__rand_int__", "xxx"],
    "get": ["get", "key:__rand_int__"],
}


def start_nodes(ebb, workdir, role, out_file, string_rule, server_args):
    """The servers of `role` (a mesh's nodes under active-active-string-rule `string_rule`, each
    given `server_args` too), the one under callgrind at index `measured` of the list."""
    count = 1 if role == "lone" else 3
    measured = 1 if role == "peer" else 0
    ports = [free_port() for _ in range(count)]
    servers = []
    for i, port in enumerate(ports):
        data = os.path.join(workdir, f"node{i}")
        os.makedirs(data)
        argv = [ebb, "--port", str(port), "--bind", "127.0.0.1", "--dir", data,
                "--wal-fsync", "everysec"] + server_args
        for j, other in enumerate(ports):
            if j != i:
                argv += ["--peer", "127.0.0.1", str(other)]
        if count > 1:
            argv += ["--active-active-string-rule", string_rule]
        if i == measured:
            argv = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out_file}",
                    "--instr-atstart=no"] + argv
        servers.append(Server(f"node{i}", argv, port, workdir))
    if count > 1:
        wait_linked(servers, deadline_s=120)
    return servers, servers[measured]


def callgrind(pid, *args):
    subprocess.run(["callgrind_control", *args, str(pid)], check=True, capture_output=True)


def total_instructions(out_file):
    """The PROGRAM TOTALS of the dump callgrind_control -d wrote (`<out_file>.1`)."""
    dumps = sorted(glob.glob(out_file + ".*"))
    if not dumps:
        raise RuntimeError(f"no callgrind dump next to {out_file}")
    text = subprocess.run(["callgrind_annotate", dumps[0]], capture_output=True, text=True,
                          check=True).stdout
    for line in text.splitlines():
        if "PROGRAM TOTALS" in line:
            return int(line.split()[0].replace(",", ""))
    raise RuntimeError(f"no PROGRAM TOTALS in {dumps[0]}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--ebb", default="build/ebb-server")
    parser.add_argument("--role", choices=["lone", "origin", "peer"], default="lone")
    parser.add_argument("--requests", type=int, default=50000)
    parser.add_argument("--warmup", type=int, default=20000)
    parser.add_argument("--pipeline", type=int, default=16)
    parser.add_argument("--key-range", type=int, default=1000)
    parser.add_argument("--command", default="set")
    parser.add_argument("--string-rule", choices=["timestamp", "observed-remove"],
                        default="timestamp", help="the mesh's active-active-string-rule")
    parser.add_argument("--server-arg", action="append", default=[], metavar="ARG",
                        help="one more ebb-server argument for every node (repeatable), e.g. "
                             "--server-arg=--latency-monitor-threshold=100")
    parser.add_argument("--keep-profile", metavar="PATH",
                        help="copy callgrind's dump there, for callgrind_annotate")
    parser.add_argument("rest", nargs="*", help="after --: a redis-benchmark command line")
    args = parser.parse_args()
    command = args.rest or COMMANDS.get(args.command)
    if command is None:
        parser.error(f"--command {args.command}: set, get, or a command line after --")
    if args.role != "lone" and command[0].lower() != "set":
        parser.error("the mesh roles measure writes: --command set")

    workdir = tempfile.mkdtemp(prefix="process-cost-")
    out_file = os.path.join(workdir, "callgrind.out")
    servers, measured = start_nodes(os.path.abspath(args.ebb), workdir, args.role, out_file,
                                    args.string_rule, args.server_arg)
    try:
        load = servers[0].port
        if args.command == "get" and not args.rest:
            bench(load, COMMANDS["set"], args.warmup, args.pipeline, 50, args.key_range)
        bench(load, command, args.warmup, args.pipeline, 50, args.key_range)
        if args.role != "lone":
            wait_applied(servers)
        callgrind(measured.proc.pid, "-i", "on")
        bench(load, command, args.requests, args.pipeline, 50, args.key_range)
        if args.role != "lone":
            wait_applied(servers)
        callgrind(measured.proc.pid, "-d")
        callgrind(measured.proc.pid, "-i", "off")
        per = total_instructions(out_file) / args.requests
        if args.keep_profile:
            shutil.copy(sorted(glob.glob(out_file + ".*"))[0], args.keep_profile)
        unit = {"lone": "request", "origin": "write", "peer": "applied delta"}[args.role]
        print(f"{args.role}: {per:,.0f} instructions per {unit} "
              f"({' '.join(command)}, P={args.pipeline}, {args.key_range} keys, "
              f"{args.requests} requests after {args.warmup})")
    finally:
        for server in servers:
            server.stop()
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
