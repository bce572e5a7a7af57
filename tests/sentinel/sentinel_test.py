"""Debian's redis-sentinel manages a group of ebb servers: automatic failover end to end.

One ebb master, two ebb replicas and three redis-sentinel processes (quorum 2,
down-after-milliseconds 1000) on free 127.0.0.1 ports, each with its own configuration file in a
temporary directory. The test proves, in order:

1. the sentinels find the replicas and each other (AUTH, INFO, PUBLISH/SUBSCRIBE on
   __sentinel__:hello; the servers ask for a password, the replicas give it to their master);
2. a script busy on a replica is stopped by the sentinels (-BUSY to their PING, SCRIPT KILL);
3. under a steady write load, each write followed by WAIT 1, kill -9 of the master: a replica is
   promoted (MULTI; REPLICAOF NO ONE; CONFIG REWRITE; CLIENT KILL; EXEC) — never the one with
   replica-priority 0 —, SENTINEL get-master-addr-by-name names it, the other replica follows
   it, and every write WAIT 1 acknowledged is on the new master;
4. redis-py's Sentinel(...).master_for() and ioredis with `sentinels` write and read through the
   new master;
5. the old master, restarted, is made a replica of the new one by the sentinels and ends with
   the same content (DEBUG DIGEST) as the others; the configuration files hold the new topology;
6. SENTINEL FAILOVER moves the master role once more, to the old master (the other replica has
   priority 0), the live master becoming a replica.

Prints the failover time (kill -> the new master answers writes). Every wait is a bounded poll.
Usage: sentinel_test.py <ebb-server> <work dir>; needs redis-sentinel, python3-redis, node.
"""
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

import redis
from redis.sentinel import Sentinel

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from spawned import poll, print_logs, stop_processes  # noqa: E402

EBB = os.path.abspath(sys.argv[1])
WORK = os.path.abspath(sys.argv[2])
HERE = os.path.dirname(os.path.abspath(__file__))
GROUP = "ebbgroup"
PASSWORD = "group-secret"  # every ebb server's requirepass and masterauth; Sentinel's auth-pass
TLOG_BASE_MS = 1700000000000  # the TLOG entries' timestamps: TLOG_BASE_MS + write number

started = time.monotonic()


def log(message):
    print("[%6.2f s] %s" % (time.monotonic() - started, message), flush=True)


def free_ports(count):
    sockets = []
    for _ in range(count):
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        sockets.append(s)
    ports = [s.getsockname()[1] for s in sockets]
    for s in sockets:
        s.close()
    return ports


def client(port, socket_timeout=5, password=None):
    return redis.Redis(host="127.0.0.1", port=port, socket_timeout=socket_timeout,
                       socket_connect_timeout=2, decode_responses=True, password=password)


def server(port, socket_timeout=5):
    """A connection to one of the ebb servers (they ask for the password)."""
    return client(port, socket_timeout, PASSWORD)


class Group:
    """The processes of the test and their files; stop() ends every one of them."""

    def __init__(self, root):
        self.root = root
        ports = free_ports(6)
        self.ebb_ports = ports[:3]
        self.sentinel_ports = ports[3:]
        self.procs = {}  # name -> Popen

    def ebb_conf(self, i):
        return os.path.join(self.root, "ebb%d.conf" % i)

    def write_ebb_conf(self, i, master_port):
        data = os.path.join(self.root, "ebb%d" % i)
        os.makedirs(data, exist_ok=True)
        lines = [
            "port %d" % self.ebb_ports[i],
            "bind 127.0.0.1",
            "dir %s" % data,
            "logfile %s" % os.path.join(self.root, "ebb%d.log" % i),
            "enable-debug-command yes",
            "requirepass %s" % PASSWORD,
            "masterauth %s" % PASSWORD,
            # A script that runs this long makes the server answer -BUSY (step 2).
            "busy-reply-threshold 200",
        ]
        if master_port is not None:
            lines.append("replicaof 127.0.0.1 %d" % master_port)
        if i == 2:
            lines.append("replica-priority 0")  # never promoted: the sentinels must pick another
        with open(self.ebb_conf(i), "w") as f:
            f.write("\n".join(lines) + "\n")

    def start_ebb(self, i):
        name = "ebb%d" % i
        # Its log goes to its logfile; what reaches stderr (a sanitizer's report) goes here.
        with open(os.path.join(self.root, "ebb%d.stderr.log" % i), "a") as output:
            self.procs[name] = subprocess.Popen([EBB, self.ebb_conf(i)], stdout=output,
                                                stderr=subprocess.STDOUT)
        poll(name + " answers PING", lambda: server(self.ebb_ports[i]).ping(), 10)

    def kill_ebb(self, i):
        proc = self.procs.pop("ebb%d" % i)
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=10)

    def start_sentinel(self, i):
        conf = os.path.join(self.root, "sentinel%d.conf" % i)
        with open(conf, "w") as f:
            f.write("\n".join([
                "port %d" % self.sentinel_ports[i],
                "bind 127.0.0.1",
                "daemonize no",
                "dir %s" % self.root,
                "logfile %s" % os.path.join(self.root, "sentinel%d.log" % i),
                "loglevel verbose",
                "sentinel monitor %s 127.0.0.1 %d 2" % (GROUP, self.ebb_ports[0]),
                "sentinel auth-pass %s %s" % (GROUP, PASSWORD),
                "sentinel down-after-milliseconds %s 1000" % GROUP,
                "sentinel failover-timeout %s 3000" % GROUP,
                "sentinel parallel-syncs %s 1" % GROUP,
            ]) + "\n")
        name = "sentinel%d" % i
        self.procs[name] = subprocess.Popen(["redis-sentinel", conf], stdout=subprocess.DEVNULL,
                                            stderr=subprocess.STDOUT)
        poll(name + " answers PING", lambda: client(self.sentinel_ports[i]).ping(), 10)

    def stop(self):
        """Stops every process; returns those that did not exit with status 0."""
        return stop_processes(self.procs, timeout=10)

    def print_logs(self):
        # The sentinels' logs keep their events (+sdown, +switch-master, ...): the story of a
        # failover, which the last lines of a verbose log would not hold.
        print_logs(self.root, stderr_lines=300, event_logs=("sentinel",))


def sentinel_view(port):
    """(num-slaves, num-other-sentinels) of the group as one sentinel sees it."""
    master = client(port).sentinel_master(GROUP)
    return master["num-slaves"], master["num-other-sentinels"]


def master_addr(port):
    """SENTINEL get-master-addr-by-name as (host, port)."""
    host, master_port = client(port).sentinel_get_master_addr_by_name(GROUP)
    return host, int(master_port)


def role_is_replica_of(port, master_port):
    role = server(port).execute_command("ROLE")
    return role[0] == "slave" and int(role[2]) == master_port and role[3] == "connected"


def failover_settled(group, new_master):
    """Every sentinel names new_master, has no failover in progress, and all hold one epoch."""
    views = [client(port).sentinel_master(GROUP) for port in group.sentinel_ports]
    return all(v["port"] == new_master and "failover_in_progress" not in v["flags"]
               for v in views) and len({v["config-epoch"] for v in views}) == 1


def replicas_settled(group, master, replicas):
    """Every sentinel lists each of `replicas` as up, reporting the role slave of `master`."""
    for port in group.sentinel_ports:
        listed = {int(r["port"]): r for r in client(port).sentinel_slaves(GROUP)}
        for replica in replicas:
            r = listed.get(replica)
            if (r is None or r["role-reported"] != "slave" or int(r["master-port"]) != master
                    or r["master-link-status"] != "ok" or "s_down" in r["flags"]
                    or "disconnected" in r["flags"]):
                return False
    return True


def print_sentinel_views(group):
    """What each sentinel believes of the group, for the failure report."""
    for port in group.sentinel_ports:
        try:
            c = client(port)
            master = c.sentinel_master(GROUP)
            replicas = c.sentinel_slaves(GROUP)
            print("sentinel %d: master %s:%s flags %s config-epoch %s; replicas %s" % (
                port, master["ip"], master["port"], master["flags"], master["config-epoch"],
                ", ".join("%s %s" % (r["port"], r["flags"]) for r in replicas)), flush=True)
        except (redis.RedisError, OSError) as e:
            print("sentinel %d: %s" % (port, e), flush=True)


def busy_script_is_killed(group, replica_port):
    """Step 2: EVAL of an endless loop on a replica; the sentinels' SCRIPT KILL ends it."""
    outcome = {}

    def run():
        try:
            outcome["reply"] = server(replica_port, socket_timeout=20).eval("while true do end", 0)
        except redis.ResponseError as e:
            outcome["error"] = str(e)

    runner = threading.Thread(target=run)
    runner.start()
    runner.join(timeout=20)
    assert not runner.is_alive(), "the busy script was not stopped within 20 s"
    assert "Script killed by user with SCRIPT KILL" in outcome.get("error", ""), outcome
    # Every sentinel sees the replica answer PING again.
    for port in group.sentinel_ports:
        poll("sentinel %d sees the replica up" % port,
             lambda: all("s_down" not in r["flags"]
                         for r in client(port).sentinel_slaves(GROUP)), 10)


class Writer(threading.Thread):
    """The steady load: SET w:<n> <n> and TLOG INS log <n> <ts>, each followed by WAIT 1 500.
    A write counts as acknowledged when WAIT answered 1 or more. Stops at the first error (the
    master is gone) or after `limit` writes."""

    def __init__(self, port, limit=200000):
        super().__init__()
        self.port = port
        self.limit = limit
        self.acked = []
        self.sent = 0

    def run(self):
        r = server(self.port, socket_timeout=3)
        try:
            for n in range(self.limit):
                self.sent = n + 1
                r.set("w:%d" % n, n)
                r.execute_command("TLOG", "INS", "log", "e:%d" % n, TLOG_BASE_MS + n)
                if r.execute_command("WAIT", 1, 500) >= 1:
                    self.acked.append(n)
        except (redis.ConnectionError, redis.TimeoutError):
            pass


def main():
    os.makedirs(WORK, exist_ok=True)
    root = tempfile.mkdtemp(prefix="sentinel.", dir=WORK)
    group = Group(root)
    ok = False
    try:
        run(group)
        ok = True
    finally:
        if not ok:
            print_sentinel_views(group)
        failed = group.stop()
        if failed or not ok:
            group.print_logs()
        shutil.rmtree(root, ignore_errors=True)
    assert not failed, failed
    log("passed")


def run(group):
    master_port = group.ebb_ports[0]
    replica_ports = group.ebb_ports[1:]
    group.write_ebb_conf(0, None)
    group.start_ebb(0)
    for i in (1, 2):
        group.write_ebb_conf(i, master_port)
        group.start_ebb(i)
    for port in replica_ports:
        poll("replica %d linked" % port, lambda: role_is_replica_of(port, master_port), 15)
    for i in range(3):
        group.start_sentinel(i)

    # 1. Discovery: both replicas from the master's INFO, the other sentinels from hello messages.
    for port in group.sentinel_ports:
        poll("sentinel %d sees 2 replicas and 2 sentinels" % port,
             lambda: sentinel_view(port) == (2, 2), 20)
    log("3 sentinels monitor the master and 2 replicas")

    # 2. A busy script answered by SCRIPT KILL.
    busy_script_is_killed(group, replica_ports[0])
    log("the sentinels stopped a busy script on a replica with SCRIPT KILL")

    # 3. Kill -9 the master under load.
    writer = Writer(master_port)
    writer.start()
    poll("acknowledged writes before the kill", lambda: len(writer.acked) >= 200, 20)
    time.sleep(0.5)
    kill_time = time.monotonic()
    group.kill_ebb(0)
    writer.join(timeout=10)
    assert not writer.is_alive(), "the writer did not stop after the kill"
    log("killed the master after %d writes, %d acknowledged by WAIT 1" %
        (writer.sent, len(writer.acked)))

    def promoted():
        for port in replica_ports:
            try:
                if server(port, socket_timeout=1).set("probe:%d" % port, "1"):
                    return port
            except redis.ReadOnlyError:
                pass
        return None

    new_master = poll("a replica answers writes", promoted, 30, interval=0.02)
    writes_time = time.monotonic() - kill_time
    assert new_master == group.ebb_ports[1], "the replica with replica-priority 0 was promoted"

    def announced_master(port):
        addr = master_addr(port)
        return addr if addr[1] != master_port else None

    poll("SENTINEL get-master-addr-by-name names a new master",
         lambda: announced_master(group.sentinel_ports[0]), 30, interval=0.02)
    announce_time = time.monotonic() - kill_time
    for port in group.sentinel_ports:
        addr = poll("sentinel %d names the new master" % port, lambda: announced_master(port), 15)
        assert addr == ("127.0.0.1", new_master), (port, addr, new_master)
    print("failover time: kill -9 -> new master answers writes: %.2f s; "
          "-> SENTINEL get-master-addr-by-name names it: %.2f s" % (writes_time, announce_time),
          flush=True)

    other = [p for p in replica_ports if p != new_master][0]
    poll("the other replica follows the new master", lambda: role_is_replica_of(other, new_master),
         30)
    log("replica %d follows the new master %d" % (other, new_master))

    m = server(new_master)
    missing = [n for n in writer.acked if m.get("w:%d" % n) != str(n)]
    assert not missing, "acknowledged writes lost: %s" % missing[:20]
    entries = {e[0] for e in m.execute_command("TLOG", "GET", "log", writer.sent + 10)}
    missing = [n for n in writer.acked if "e:%d" % n not in entries]
    assert not missing, "acknowledged TLOG entries lost: %s" % missing[:20]
    log("all %d acknowledged writes are on the new master" % len(writer.acked))

    # 4. Clients that ask the sentinels.
    sentinel = Sentinel([("127.0.0.1", p) for p in group.sentinel_ports], socket_timeout=5,
                        password=PASSWORD, sentinel_kwargs={"socket_timeout": 5})
    assert sentinel.discover_master(GROUP) == ("127.0.0.1", new_master)
    through = sentinel.master_for(GROUP, socket_timeout=5, decode_responses=True)
    assert through.set("via:redis-py", "written")
    assert through.get("via:redis-py") == "written"
    assert through.info("server")["tcp_port"] == new_master
    assert ("127.0.0.1", other) in sentinel.discover_slaves(GROUP)
    log("redis-py Sentinel.master_for wrote and read through the new master")
    modules = os.path.join(WORK, "clients-node")
    subprocess.run(["bash", os.path.join(HERE, "..", "clients", "node-modules.sh"), modules],
                   check=True, timeout=360)
    subprocess.run(["node", os.path.join(HERE, "ioredis_sentinel.mjs"), GROUP, PASSWORD,
                    str(new_master), os.path.join(modules, "node_modules")] +
                   [str(p) for p in group.sentinel_ports], check=True, timeout=60)

    # 5. The old master comes back and is made a replica of the new one. First every sentinel
    # must be done with the failover and hold its configuration (the leader ends it only once the
    # replicas are reconfigured): a sentinel still on the old configuration would, as Redis's
    # do, make the restarted old master the master again.
    poll("every sentinel ended the failover with the same configuration",
         lambda: failover_settled(group, new_master), 30, interval=0.1)
    restart_time = time.monotonic()
    group.start_ebb(0)
    poll("the old master rejoins as a replica of the new one",
         lambda: role_is_replica_of(master_port, new_master), 45, interval=0.1)
    log("the restarted old master follows the new master after %.1f s" %
        (time.monotonic() - restart_time))
    m.set("last", "write")
    assert m.execute_command("WAIT", 2, 10000) == 2
    digests = [server(p).execute_command("DEBUG", "DIGEST") for p in group.ebb_ports]
    assert len(set(digests)) == 1 and digests[0] != "0" * 40, digests
    info = m.info("replication")
    assert info["connected_slaves"] == 2, info
    log("the three servers hold the same data (DEBUG DIGEST %s)" % digests[0])

    # The servers' configuration files, rewritten inside the sentinels' transactions.
    def conf(i):
        with open(group.ebb_conf(i)) as f:
            return f.read()

    promoted_index = group.ebb_ports.index(new_master)
    other_index = group.ebb_ports.index(other)
    assert "replicaof" not in conf(promoted_index), conf(promoted_index)
    for i in (0, other_index):
        assert "replicaof 127.0.0.1 %d\n" % new_master in conf(i), conf(i)

    # 6. A failover asked for (SENTINEL FAILOVER): the live master is made a replica in turn.
    # Each sentinel must first have seen the old master report itself a replica (it asks a
    # replica's INFO every 10 s): one that still remembers it as a master would, as Redis's do,
    # turn it back into a replica right after the failover promotes it.
    poll("every sentinel sees both replicas following the master",
         lambda: replicas_settled(group, new_master, [master_port, other]), 30, interval=0.2)
    manual_time = time.monotonic()
    poll("SENTINEL FAILOVER accepted",
         lambda: client(group.sentinel_ports[0]).execute_command("SENTINEL", "FAILOVER", GROUP),
         20, interval=0.2)
    third = poll("the sentinels name another master",
                 lambda: (lambda a: a[1] if a[1] != new_master else None)(
                     master_addr(group.sentinel_ports[0])), 30)
    assert third == master_port, "the replica with replica-priority 0 was promoted"
    for port in group.ebb_ports:
        if port != third:
            poll("%d follows %d" % (port, third), lambda: role_is_replica_of(port, third), 45,
                 interval=0.1)
    last = server(third)
    last.set("after", "manual failover")
    assert last.execute_command("WAIT", 2, 10000) == 2
    digests = [server(p).execute_command("DEBUG", "DIGEST") for p in group.ebb_ports]
    assert len(set(digests)) == 1, digests
    log("SENTINEL FAILOVER: %d is master, both others follow it, same DEBUG DIGEST after %.1f s" %
        (third, time.monotonic() - manual_time))


if __name__ == "__main__":
    main()
