"""redis-cli --cluster manages six ebb servers as a Redis Cluster: create, clients, reshard, failover.

Six ebb-server processes (cluster-enabled yes, cluster-node-timeout 2000) on free 127.0.0.1
ports, each with its own directory, configuration file and log. The test proves, in order:

1. `redis-cli --cluster create ... --cluster-replicas 1` makes 3 masters and 3 replicas, and
   `redis-cli --cluster check` finds every slot covered and every node agreeing;
2. cluster-aware clients read and write across all slots: redis-py's RedisCluster (strings with
   TTL, PUT rows with their timestamps, TLOG entries, TREG values), `redis-cli -c`, and ioredis's
   Cluster (tests/cluster/ioredis_cluster.mjs);
3. `redis-cli --cluster reshard` moves 4096 slots from one master to another while a client
   writes and reads: afterwards every acknowledged key is on exactly one master, the one that
   owns its slot, with its value, timestamps and TTL, and no read ever returned a wrong value;
4. kill -9 of a master: its replica is promoted, every slot is served again, every write the
   client made before the kill and WAIT acknowledged is there, and the old master, restarted,
   rejoins as a replica of the new one;
5. `redis-cli --cluster fix` closes a slot left open (MIGRATING/IMPORTING), `add-node` adds a
   seventh node, `rebalance --cluster-use-empty-masters` gives it slots and their keys, and
   `del-node` removes a replica from every node's table.

Prints the failover time (kill -> every slot served). Every wait is a bounded poll.
Usage: cluster_test.py <ebb-server | redis-server> <work dir>. With redis-server the same steps
run on Redis's own nodes (without ebb's types): a check of the test itself.
"""
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

import redis
from redis.cluster import ClusterNode, RedisCluster

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from spawned import poll, print_logs, stop_processes  # noqa: E402

SERVER = os.path.abspath(sys.argv[1])
WORK = os.path.abspath(sys.argv[2])
HERE = os.path.dirname(os.path.abspath(__file__))
EBB = "redis-server" not in os.path.basename(SERVER)
NODE_TIMEOUT_MS = 2000
TS_BASE_MS = 1700000000000  # PUT and TLOG timestamps: TS_BASE_MS + write number

started = time.monotonic()


def log(message):
    print("[%6.2f s] %s" % (time.monotonic() - started, message), flush=True)


def free_ports(count):
    """Ports p with p and p + 10000 (the bus) both free."""
    ports = []
    while len(ports) < count:
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
        s.close()
        if port + 10000 > 65535 or port in ports:
            continue
        try:
            b = socket.socket()
            b.bind(("127.0.0.1", port + 10000))
            b.close()
        except OSError:
            continue
        ports.append(port)
    return ports


def node(port, socket_timeout=5):
    return redis.Redis(host="127.0.0.1", port=port, socket_timeout=socket_timeout,
                       socket_connect_timeout=2, decode_responses=True)


def cli(*args, timeout=120):
    """redis-cli's exit status and output (stdout and stderr together)."""
    done = subprocess.run(["redis-cli"] + [str(a) for a in args], stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True, timeout=timeout)
    return done.returncode, done.stdout


class Cluster:
    """The six servers and their files; stop() ends every one of them."""

    def __init__(self, root):
        self.root = root
        self.ports = free_ports(7)
        self.spare = self.ports.pop()  # added later with add-node
        self.procs = {}  # port -> Popen

    def conf(self, port):
        return os.path.join(self.root, "node%d.conf" % port)

    def write_conf(self, port):
        data = os.path.join(self.root, "node%d" % port)
        os.makedirs(data, exist_ok=True)
        lines = [
            "port %d" % port,
            "bind 127.0.0.1",
            "dir %s" % data,
            "logfile %s" % os.path.join(self.root, "node%d.log" % port),
            "cluster-enabled yes",
            "cluster-config-file nodes.conf",
            "cluster-node-timeout %d" % NODE_TIMEOUT_MS,
            "enable-debug-command yes",
        ]
        if not EBB:
            lines += ["save ''", "appendonly no"]
        with open(self.conf(port), "w") as f:
            f.write("\n".join(lines) + "\n")

    def start(self, port):
        if not os.path.exists(self.conf(port)):
            self.write_conf(port)
        with open(os.path.join(self.root, "node%d.stderr.log" % port), "a") as output:
            self.procs[port] = subprocess.Popen([SERVER, self.conf(port)], stdout=output,
                                                stderr=subprocess.STDOUT)
        poll("node %d answers PING" % port, lambda: node(port).ping(), 10)

    def kill(self, port):
        proc = self.procs.pop(port)
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=10)

    def stop(self):
        """Stops every process; returns those that did not exit with status 0."""
        procs = {"node %d" % port: proc for port, proc in self.procs.items()}
        self.procs.clear()
        return stop_processes(procs)

    def print_logs(self):
        print_logs(self.root, stderr_lines=200)


def nodes_view(port):
    """CLUSTER NODES of one node: {id: {"port", "flags", "master", "slots"}}."""
    view = {}
    for line in node(port).execute_command("CLUSTER", "NODES").splitlines():
        fields = line.split()
        address = fields[1].split("@")[0]
        view[fields[0]] = {
            "port": int(address.rsplit(":", 1)[1]) if ":" in address else 0,
            "flags": set(fields[2].split(",")),
            "master": fields[3],
            "slots": fields[8:],
        }
    return view


def masters(port):
    """{port: id} of the live masters that own slots, as `port` sees them."""
    return {n["port"]: i for i, n in nodes_view(port).items()
            if "master" in n["flags"] and "fail" not in n["flags"] and n["slots"]}


def check_clean(port):
    """redis-cli --cluster check passes with every slot covered and no warning."""
    status, output = cli("--cluster", "check", "127.0.0.1:%d" % port)
    return (status == 0 and "[OK] All 16384 slots covered." in output and "[ERR]" not in output
            and "[WARNING]" not in output and "Nodes don't agree" not in output)


def cluster_info(port):
    info = {}
    for line in node(port).execute_command("CLUSTER", "INFO").splitlines():
        if ":" in line:
            k, v = line.split(":", 1)
            info[k] = v.strip()
    return info


def cluster_client(port):
    return RedisCluster(startup_nodes=[ClusterNode("127.0.0.1", port)], decode_responses=True,
                        socket_timeout=5, socket_connect_timeout=2, cluster_error_retry_attempts=10)


def create(cluster):
    log("creating 3 masters + 3 replicas with redis-cli --cluster create")
    status, output = cli("--cluster", "create",
                         *["127.0.0.1:%d" % p for p in cluster.ports],
                         "--cluster-replicas", "1", "--cluster-yes", timeout=120)
    assert status == 0, "redis-cli --cluster create failed:\n" + output
    assert "[OK] All 16384 slots covered." in output, output
    poll("redis-cli --cluster check is clean", lambda: check_clean(cluster.ports[0]), 60, 0.5)
    for port in cluster.ports:
        poll("node %d: cluster_state ok and 6 nodes" % port,
             lambda: cluster_info(port)
             .items() >= {("cluster_state", "ok"), ("cluster_known_nodes", "6")}, 30)
    def three_and_three(port):
        view = nodes_view(port)
        return (len([n for n in view.values() if "master" in n["flags"] and n["slots"]]) == 3
                and len([n for n in view.values() if "slave" in n["flags"]]) == 3)

    for port in cluster.ports:  # the replicas' role reaches the other nodes by gossip
        poll("node %d sees 3 masters with slots and 3 replicas" % port,
             lambda: three_and_three(port), 30)


def clients(cluster):
    log("redis-py RedisCluster, redis-cli -c and ioredis Cluster across all slots")
    rc = cluster_client(cluster.ports[0])
    slots_seen = set()
    for i in range(2000):
        key = "key:%d" % i
        assert rc.set(key, "v%d" % i, ex=3600)
        slots_seen.add(rc.keyslot(key))
    for i in range(2000):
        assert rc.get("key:%d" % i) == "v%d" % i
        assert 3500 < rc.ttl("key:%d" % i) <= 3600
    owners = {p: 0 for p in masters(cluster.ports[0])}
    for port in owners:
        owners[port] = node(port).dbsize()
    assert sum(owners.values()) == 2000 and min(owners.values()) > 500, owners
    if EBB:
        for i in range(300):
            key = "row:%d" % i
            ts = TS_BASE_MS + i
            assert rc.execute_command("PUT", key, "p%d" % i, "TS", ts) in ("OK", True)
            assert rc.execute_command("TLOG", "INS", "log:%d" % i, "e%d" % i, ts) is not None
            rc.execute_command("TREG", "SET", "reg:%d" % i, "r%d" % i, ts)
        for i in range(300):
            assert rc.execute_command("GET", "row:%d" % i) == "p%d" % i
            meta = rc.execute_command("GETMETA", "row:%d" % i)
            assert str(TS_BASE_MS + i) in [str(x) for x in meta], meta
            entries = rc.execute_command("TLOG", "GET", "log:%d" % i)
            assert entries == [["e%d" % i, TS_BASE_MS + i]], entries
            assert rc.execute_command("TREG", "GET", "reg:%d" % i) == ["r%d" % i, TS_BASE_MS + i]
    # redis-cli -c follows MOVED from whichever node it asks.
    for port in cluster.ports[:3]:
        status, output = cli("-c", "-p", port, "SET", "{cli}k", "from-%d" % port)
        assert status == 0 and output.strip() == "OK", output
        status, output = cli("-c", "-p", port, "GET", "{cli}k")
        assert output.strip() == "from-%d" % port, output
    modules = os.path.join(WORK, "node-clients")
    subprocess.run(["bash", os.path.join(HERE, "..", "clients", "node-modules.sh"), modules],
                   check=True, timeout=400)
    done = subprocess.run(["node", os.path.join(HERE, "ioredis_cluster.mjs"), modules,
                           "1" if EBB else "0", str(cluster.ports[1])],
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=60)
    assert done.returncode == 0, "ioredis Cluster:\n" + done.stdout
    rc.close()


class Load:
    """A client writing and reading keys through RedisCluster until stopped.

    acknowledged: key -> value of every SET the cluster acknowledged (each key written once, then
    read back at random); wrong: reads that returned anything but the acknowledged value."""

    def __init__(self, port, prefix):
        self.port = port
        self.prefix = prefix
        self.acknowledged = {}
        self.wrong = []
        self.errors = []
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self.run)

    def run(self):
        rc = cluster_client(self.port)
        rng = random.Random(7)
        i = 0
        while not self.stopping.is_set() and i < 200000:
            key = "%s:%d" % (self.prefix, i)
            value = "value-%d" % i
            try:
                if rc.set(key, value, ex=7200):
                    self.acknowledged[key] = value
                if self.acknowledged and i % 2 == 0:
                    probe = "%s:%d" % (self.prefix, rng.randrange(i + 1))
                    if probe in self.acknowledged:
                        got = rc.get(probe)
                        if got != self.acknowledged[probe]:
                            self.wrong.append((probe, got))
            except redis.RedisError as e:
                self.errors.append("%s: %r" % (key, e))
            i += 1
            if i % 50 == 0:
                time.sleep(0.005)
        rc.close()

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.stopping.set()
        self.thread.join(timeout=60)
        assert not self.thread.is_alive()


def key_owner_counts(cluster_ports, keys):
    """For each key, the masters holding it (KEYS per master, outside the cluster client)."""
    holders = {k: [] for k in keys}
    for port in masters(cluster_ports[0]):
        for k in node(port, 30).keys("*"):
            if k in holders:
                holders[k].append(port)
    return holders


def reshard(cluster):
    view = masters(cluster.ports[0])
    ports = sorted(view)
    source, target = view[ports[0]], view[ports[1]]
    log("resharding 4096 slots %s -> %s under load" % (source[:8], target[:8]))
    with Load(cluster.ports[2], "load") as load:
        poll("the load has written", lambda: len(load.acknowledged) > 200, 30)
        status, output = cli("--cluster", "reshard", "127.0.0.1:%d" % cluster.ports[0],
                             "--cluster-from", source, "--cluster-to", target,
                             "--cluster-slots", 4096, "--cluster-yes", timeout=600)
        assert status == 0, "reshard failed:\n" + output[-3000:]
        time.sleep(0.5)
    log("the load wrote %d keys during the reshard" % len(load.acknowledged))
    assert not load.wrong, "wrong reads: %r" % load.wrong[:5]
    assert not load.errors, "errors the client saw: %r" % load.errors[:5]
    assert len(load.acknowledged) > 200
    poll("redis-cli --cluster check is clean after the reshard",
         lambda: check_clean(cluster.ports[0]), 60, 0.5)
    after = nodes_view(cluster.ports[0])
    assert after[target]["slots"], after[target]
    holders = key_owner_counts(cluster.ports, load.acknowledged)
    misplaced = [(k, h) for k, h in holders.items() if len(h) != 1]
    assert not misplaced, "keys not on exactly one master: %r" % misplaced[:5]
    rc = cluster_client(cluster.ports[0])
    for key, value in load.acknowledged.items():
        assert rc.get(key) == value, key
        ttl = rc.ttl(key)
        assert 0 < ttl <= 7200, (key, ttl)
    for i in range(2000):
        assert rc.get("key:%d" % i) == "v%d" % i
    if EBB:
        for i in range(300):
            entries = rc.execute_command("TLOG", "GET", "log:%d" % i)
            assert entries == [["e%d" % i, TS_BASE_MS + i]], entries
            meta = rc.execute_command("GETMETA", "row:%d" % i)
            assert str(TS_BASE_MS + i) in [str(x) for x in meta], meta
    rc.close()


def failover(cluster):
    view = nodes_view(cluster.ports[0])
    victim_id, victim = next((i, n) for i, n in view.items()
                             if "master" in n["flags"] and n["slots"])
    replica_port = next(n["port"] for n in view.values() if n["master"] == victim_id)
    survivor = next(p for p in cluster.ports if p not in (victim["port"], replica_port))
    rc = cluster_client(survivor)
    acknowledged = {}
    for i in range(500):
        key = "before-kill:%d" % i
        rc.set(key, str(i))
        acknowledged[key] = str(i)
    # WAIT on each master: every write above is on its replica.
    for port in masters(survivor):
        assert node(port).execute_command("WAIT", 1, 5000) >= 1
    log("kill -9 of master %d (replica %d)" % (victim["port"], replica_port))
    killed_at = time.monotonic()
    cluster.kill(victim["port"])
    poll("replica %d promoted" % replica_port,
         lambda: "master" in nodes_view(replica_port)[next(
             i for i, n in nodes_view(replica_port).items() if "myself" in n["flags"])]["flags"],
         NODE_TIMEOUT_MS / 1000 + 20)
    poll("cluster_state ok on the survivors",
         lambda: all(cluster_info(p)["cluster_state"] == "ok"
                     for p in cluster.ports if p != victim["port"]), 30)
    log("failover: every slot served %.2f s after the kill" % (time.monotonic() - killed_at))
    rc.close()
    rc = cluster_client(survivor)  # a new client learns the new topology from the start
    for key, value in acknowledged.items():
        assert rc.get(key) == value, key
    rc.close()
    log("restarting the old master")
    cluster.start(victim["port"])
    poll("the old master rejoins as a replica of the new one",
         lambda: nodes_view(victim["port"])[victim_id]["master"]
         == next(i for i, n in nodes_view(victim["port"]).items() if n["port"] == replica_port),
         60, 0.5)
    poll("redis-cli --cluster check is clean after the rejoin",
         lambda: check_clean(survivor), 60, 0.5)


def operations(cluster, spare_port):
    """An open slot closed by --cluster fix; a new master added and given slots (and their
    keys) by rebalance; a replica removed by del-node."""
    view = masters(cluster.ports[0])
    ports = sorted(view)
    owner, other = ports[0], ports[1]
    slot = int(next(n["slots"][0] for n in nodes_view(owner).values() if "myself" in n["flags"])
               .split("-")[0])
    log("an open slot (%d MIGRATING on %d, IMPORTING on %d) closed by --cluster fix"
        % (slot, owner, other))
    assert node(owner).execute_command("CLUSTER", "SETSLOT", slot, "MIGRATING", view[other])
    assert node(other).execute_command("CLUSTER", "SETSLOT", slot, "IMPORTING", view[owner])
    status, output = cli("--cluster", "check", "127.0.0.1:%d" % owner)
    assert "open slot" in output.lower(), output
    status, output = cli("--cluster", "fix", "127.0.0.1:%d" % owner, "--cluster-yes")
    assert status == 0, "fix failed:\n" + output[-3000:]
    poll("redis-cli --cluster check is clean after fix", lambda: check_clean(owner), 60, 0.5)

    log("add-node %d, rebalance onto it, del-node of a replica" % spare_port)
    cluster.start(spare_port)
    status, output = cli("--cluster", "add-node", "127.0.0.1:%d" % spare_port,
                         "127.0.0.1:%d" % owner)
    assert status == 0, "add-node failed:\n" + output[-3000:]
    new_id = node(spare_port).execute_command("CLUSTER", "MYID")
    poll("every node knows the new one",
         lambda: all(new_id in nodes_view(p) for p in masters(owner)), 30)
    # Until it has learned every slot's owner the new node is down and refuses what the
    # rebalance sends it (-CLUSTERDOWN), on redis-server as on ebb.
    poll("the new node's cluster_state is ok",
         lambda: cluster_info(spare_port)["cluster_state"] == "ok", 30)
    status, output = cli("--cluster", "rebalance", "127.0.0.1:%d" % owner,
                         "--cluster-use-empty-masters", timeout=600)
    assert status == 0, "rebalance failed:\n" + output[-3000:]
    poll("the new master owns slots", lambda: spare_port in masters(owner), 30)
    poll("redis-cli --cluster check is clean after rebalance", lambda: check_clean(owner), 60,
         0.5)
    assert node(spare_port).dbsize() > 0, "rebalance moved no keys"
    replica_id, replica_port = next((i, n["port"]) for i, n in nodes_view(owner).items()
                                    if "slave" in n["flags"])
    status, output = cli("--cluster", "del-node", "127.0.0.1:%d" % owner, replica_id)
    assert status == 0, "del-node failed:\n" + output[-3000:]
    poll("no node knows the removed replica",
         lambda: all(replica_id not in nodes_view(p) for p in cluster.procs
                     if p != replica_port), 30)
    poll("redis-cli --cluster check is clean after del-node", lambda: check_clean(owner), 60,
         0.5)
    rc = cluster_client(owner)
    for i in range(2000):
        assert rc.get("key:%d" % i) == "v%d" % i
    rc.close()


def main():
    root = tempfile.mkdtemp(prefix="cluster-", dir=WORK)
    cluster = Cluster(root)
    ok = False
    try:
        for port in cluster.ports:
            cluster.start(port)
        create(cluster)
        clients(cluster)
        reshard(cluster)
        failover(cluster)
        operations(cluster, cluster.spare)
        ok = True
    finally:
        failed = cluster.stop()
        if not ok or failed:
            cluster.print_logs()
        if failed:
            print("FAIL: " + "; ".join(failed))
            ok = False
    if ok:
        shutil.rmtree(root, ignore_errors=True)
        log("PASS")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
