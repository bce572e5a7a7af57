"""What the Python tests that spawn servers share: bounded polls and stopping their processes.

tests/sentinel/sentinel_test.py and tests/cluster/cluster_test.py import it (their directory's
parent's support/ is put on sys.path).
"""
import os
import re
import signal
import subprocess
import sys
import time

import redis


def poll(what, probe, timeout, interval=0.05):
    """probe()'s first truthy answer within `timeout` seconds; a connection error is a no."""
    deadline = time.monotonic() + timeout
    last_error = None
    while time.monotonic() < deadline:
        try:
            value = probe()
            if value:
                return value
        except (redis.ConnectionError, redis.TimeoutError, redis.ResponseError) as e:
            last_error = e
        time.sleep(interval)
    raise AssertionError("%s: not within %.0f s (last error: %s)" % (what, timeout, last_error))


def stop_processes(procs, timeout=15):
    """SIGTERM to every process of `procs` (name -> Popen), then waits for each; returns those
    that did not exit with status 0 (a sanitizer's report makes a server exit with another).
    Empties `procs`."""
    for proc in procs.values():
        proc.send_signal(signal.SIGTERM)
    failed = []
    for name, proc in procs.items():
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)
        if proc.returncode != 0:
            failed.append("%s exited with %d" % (name, proc.returncode))
    procs.clear()
    return failed


def print_logs(root, stderr_lines=300, event_logs=()):
    """The tail of every *.log file in `root`, without the lines of clients connecting.

    A log whose name starts with one of `event_logs` (redis-sentinel's) keeps only its event
    lines (" +event" / " -event"), the last 80 of them."""
    for name in sorted(os.listdir(root)):
        if name.endswith(".log"):
            events = name.startswith(tuple(event_logs)) if event_logs else False
            with open(os.path.join(root, name), errors="replace") as f:
                lines = [line for line in f
                         if " - Accepted " not in line and " - Client closed " not in line
                         and (not events or re.search(r" [#*-] [+-][a-z]", line))]
            keep = stderr_lines if name.endswith(".stderr.log") else 80 if events else 40
            print("---- %s (last %d lines, without connections%s)" %
                  (name, keep, ", events only" if events else ""))
            sys.stdout.writelines(lines[-keep:])
