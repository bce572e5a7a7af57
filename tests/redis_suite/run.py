#!/usr/bin/env python3
"""Redis 7.0.15's ACL, latency-monitor and slowlog tests (unit/acl, unit/acl-v2,
unit/latency-monitor, unit/slowlog) against a server the harness starts.

Usage: run.py <server> <work dir> [--no-exclusions]
  <server>          ebb-server, or /usr/bin/redis-server for the side-by-side run
  --no-exclusions   judge every test, as for redis-server: any failure fails

Copies the vendored harness (tests/redis_suite/tests) into <work dir>/redis_suite, makes
src/redis-server the launcher beside this file (which execs <server>), and runs
`tclsh tests/test_helper.tcl --single unit/acl --single unit/acl-v2 --single
unit/latency-monitor --single unit/slowlog --durable` there, bounded by a timeout. Every test runs; none is skipped. Prints each test's outcome and the counts, then
fails (exit 1) when
  - a test failed that exclusions.txt does not name,
  - a test exclusions.txt names passed every time it ran (the exclusion is stale),
  - a server could not start, unless a "server-start:" line of exclusions.txt names its error
    (then the tests of that block do not run, and the block is counted),
  - the harness raised an exception, or it did not reach its end.
"""
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TIMEOUT_S = 300


def exclusions():
    """exclusions.txt: the test names, and the texts of "server-start: <text>" lines."""
    names, starts = set(), []
    with open(os.path.join(HERE, "exclusions.txt")) as f:
        for line in f:
            line = line.strip()
            if line.startswith("server-start: "):
                starts.append(line[len("server-start: "):])
            elif line and not line.startswith("#"):
                names.add(line)
    return names, starts


def start_failures(output):
    """The text of each "[err]: Can't start the Redis server" report (config, log, error)."""
    reports, current = [], None
    for line in output.splitlines():
        if line.startswith("[err]: Can't start the Redis server"):
            current = []
            reports.append(current)
        elif current is not None and re.match(r"\[(ok|err|skip|ignore|exception)\]|\[\d+/\d+ ", line):
            current = None
        elif current is not None:
            current.append(line)
    return ["\n".join(r) for r in reports]


def prepare(work):
    root = os.path.join(work, "redis_suite")
    shutil.rmtree(root, ignore_errors=True)
    shutil.copytree(os.path.join(HERE, "tests"), os.path.join(root, "tests"))
    os.makedirs(os.path.join(root, "src"))
    os.symlink(os.path.join(HERE, "redis-server"), os.path.join(root, "src", "redis-server"))
    return root


def run_harness(server, root):
    env = dict(os.environ, SUITE_SERVER=os.path.abspath(server), TERM="dumb")
    cmd = ["tclsh", "tests/test_helper.tcl", "--single", "unit/acl", "--single", "unit/acl-v2",
           "--single", "unit/latency-monitor", "--single", "unit/slowlog",
           "--clients", "1", "--durable", "--timeout", "120"]
    try:
        done = subprocess.run(cmd, cwd=root, env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True, timeout=TIMEOUT_S)
        return done.stdout, True
    except subprocess.TimeoutExpired as e:
        out = e.stdout.decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
        return out, False


def main():
    server, work = sys.argv[1], sys.argv[2]
    excluded, excluded_starts = exclusions()
    if sys.argv[3:] == ["--no-exclusions"]:
        excluded, excluded_starts = set(), []
    root = prepare(work)
    output, finished = run_harness(server, root)
    print(output)

    passed, failed, problems = [], [], []
    for line in output.splitlines():
        if m := re.match(r"\[ok\]: (.*) \(\d+ ms\)$", line):
            passed.append(m.group(1))
        elif m := re.match(r"\[err\]: (.*) in tests/unit/\S+\.tcl$", line):
            failed.append(m.group(1))
        elif line.startswith("[err]: ") and not line.startswith("[err]: Can't start"):
            problems.append(line)  # a sanitizer's report on a server's stderr, a leak, ...
        elif line.startswith("[exception]"):
            problems.append("the harness raised an exception")
    if not finished or "The End" not in output:
        problems.append("the harness did not reach its end")

    not_started = start_failures(output)
    for report in not_started:
        if not any(text in report for text in excluded_starts):
            problems.append("a server could not start:\n" + report)
    unused_starts = [t for t in excluded_starts if not any(t in r for r in not_started)]
    problems += [f"excluded server start that did not fail: {t}" for t in unused_starts]
    unexpected = [name for name in failed if name not in excluded]
    stale = sorted(name for name in excluded if name in passed and name not in failed)
    print(f"{os.path.basename(server)}: {len(passed)} passed, {len(failed)} failed "
          f"({len(failed) - len(unexpected)} on the exclusion list), "
          f"{len(not_started)} server block(s) did not start")
    for name in unexpected:
        problems.append(f"failed, not excluded: {name}")
    for name in stale:
        problems.append(f"excluded but passed: {name}")
    for problem in problems:
        print("FAIL:", problem)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
