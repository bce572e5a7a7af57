"""redis-py (Debian's python3-redis) against ebb: the default transactional pipeline, WATCH,
pubsub() and expired keyspace events. Usage: redis_py_test.py <port>. Every wait is bounded."""
import sys
import time

import redis

PORT = int(sys.argv[1])


def get_message(pubsub, timeout=5.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        m = pubsub.get_message(timeout=0.1)
        if m is not None:
            return m
    raise AssertionError("no message within %.1f s" % timeout)


def scripting(r, other):
    """Lock (a Lua script per operation) and register_script, as applications use them."""
    lock = r.lock("resource", timeout=5, blocking_timeout=0.2)
    assert lock.acquire()
    assert r.pttl("resource") > 4000
    # Another client cannot take it, and gives up after its blocking timeout.
    rival = other.lock("resource", timeout=5, blocking_timeout=0.2)
    assert not rival.acquire()
    assert lock.extend(10)  # adds 10 s to what is left (an EVALSHA of redis-py's LUA_EXTEND)
    assert r.pttl("resource") > 14000
    assert lock.reacquire()  # back to the 5 s timeout
    assert r.pttl("resource") <= 5000
    assert lock.owned() and not rival.owned()
    lock.release()
    assert r.exists("resource") == 0
    # A lock whose key another client replaced is not the owner's any more: release fails
    # on the server's side (the script compares the token).
    assert lock.acquire()
    other.set("resource", "someone else")
    try:
        lock.release()
        raise AssertionError("releasing a lock not held must fail")
    except redis.exceptions.LockNotOwnedError:
        pass
    assert other.get("resource") == b"someone else"
    other.delete("resource")
    # An expired lock is free for the next owner; the old owner cannot extend it.
    short = r.lock("brief", timeout=0.1)
    assert short.acquire()
    time.sleep(0.3)
    nxt = other.lock("brief", timeout=5)
    assert nxt.acquire(blocking=False)
    try:
        short.extend(5)
        raise AssertionError("extending a lost lock must fail")
    except redis.exceptions.LockNotOwnedError:
        pass
    nxt.release()
    with r.lock("ctx", timeout=2):
        assert r.exists("ctx") == 1
    assert r.exists("ctx") == 0

    # register_script: EVALSHA first, EVAL on NOSCRIPT, then cached.
    r.script_flush()
    bump = r.register_script(
        "local v = redis.call('incrby', KEYS[1], ARGV[1]) "
        "if v > tonumber(ARGV[2]) then redis.call('set', KEYS[1], ARGV[2]) return -1 end "
        "return v")
    assert bump(keys=["capped"], args=[3, 10]) == 3
    assert r.script_exists(bump.sha) == [True]
    assert bump(keys=["capped"], args=[5, 10]) == 8
    assert bump(keys=["capped"], args=[5, 10]) == -1
    assert r.get("capped") == b"10"
    # In a pipeline (redis-py loads the script first, then EVALSHAs it).
    p = r.pipeline()
    bump(keys=["capped2"], args=[1, 10], client=p)
    bump(keys=["capped2"], args=[1, 10], client=p)
    assert p.execute() == [1, 2]
    # ebb's own types through a script.
    tlog = r.register_script("return redis.call('TLOG', 'INS', KEYS[1], ARGV[1], ARGV[2])")
    assert tlog(keys=["events"], args=["hello", 1000]) == b"OK"
    assert r.execute_command("TLOG", "SIZE", "events") == 1
    # Functions.
    r.function_load("#!lua name=pylib\nredis.register_function('twice', "
                    "function(keys, args) return 2 * tonumber(args[1]) end)", replace=True)
    assert r.fcall("twice", 0, 21) == 42
    r.function_delete("pylib")
    print("redis-py %s: Lock acquire/extend/reacquire/release, register_script, FCALL OK"
          % redis.__version__)


def acl(r):
    """A least-privilege user, connected with redis-py's username/password."""
    assert r.acl_setuser("app", enabled=True, passwords=["+app-secret"], keys=["app:*"],
                         commands=["+get", "+set", "+@tlog"])
    assert r.acl_whoami() == "default"
    user = r.acl_getuser("app")
    assert user["keys"] == ["~app:*"] and user["commands"] == ["+get", "+set"], user
    app = redis.Redis(port=PORT, username="app", password="app-secret")
    assert app.set("app:1", "v") and app.get("app:1") == b"v"
    try:
        app.get("other")
        raise AssertionError("NoPermissionError expected")
    except redis.exceptions.NoPermissionError:
        pass
    try:
        redis.Redis(port=PORT, username="app", password="wrong").ping()
        raise AssertionError("WRONGPASS expected")
    except redis.exceptions.ResponseError as e:
        assert str(e).startswith("WRONGPASS"), e
    assert r.acl_deluser("app") == 1


def timeseries(r):
    """redis-py's r.ts() client (RedisTimeSeries' commands) against ebb's TS.*."""
    ts = r.ts()
    assert ts.create("ts:py", labels={"room": "kitchen"})
    assert r.type("ts:py") == b"TSDB-TYPE"
    assert ts.add("ts:py", 10, 2.5) == 10
    assert ts.madd([("ts:py", 20, 3), ("ts:py", 30, 4)]) == [20, 30]
    assert tuple(ts.get("ts:py")) == (30, 4.0)
    assert [tuple(s) for s in ts.range("ts:py", "-", "+", aggregation_type="sum",
                                       bucket_size_msec=20)] == [(0, 2.5), (20, 7.0)]
    assert ts.incrby("ts:py", 1, timestamp=40) == 40
    assert tuple(ts.get("ts:py")) == (40, 5.0)
    info = ts.info("ts:py")  # redis-py's TSInfo reads every field RedisTimeSeries answers
    assert info.total_samples == 4 and info.chunk_count == 1 and info.memory_usage > 0, vars(info)
    assert info.first_time_stamp == 10 and info.lastTimeStamp == 40, vars(info)
    assert info.labels == {"room": "kitchen"} and info.chunk_size == 4096, vars(info)
    # Several series by their labels: TS.QUERYINDEX, TS.MGET, TS.MRANGE (GROUPBY too).
    assert ts.create("ts:py2", labels={"room": "hall", "kind": "temp"})
    assert ts.alter("ts:py", labels={"room": "kitchen", "kind": "temp"})
    assert ts.add("ts:py2", 10, 1) == 10
    assert ts.queryindex(["kind=temp", "room!=hall"]) == ["ts:py"]
    assert ts.mget(["room=(kitchen,hall)"], with_labels=True) == [
        {"ts:py": [{"room": "kitchen", "kind": "temp"}, 40, 5.0]},
        {"ts:py2": [{"room": "hall", "kind": "temp"}, 10, 1.0]}]
    assert ts.mrange(0, 20, ["kind=temp"]) == [
        {"ts:py": [{}, [(10, 2.5), (20, 3.0)]]}, {"ts:py2": [{}, [(10, 1.0)]]}]
    assert ts.mrevrange("-", "+", ["kind=temp"], count=1, select_labels=["room"]) == [
        {"ts:py": [{"room": "kitchen"}, [(40, 5.0)]]}, {"ts:py2": [{"room": "hall"}, [(10, 1.0)]]}]
    assert ts.mrange(0, 10, ["kind=temp"], groupby="kind", reduce="sum", with_labels=True) == [
        {"kind=temp": [{"kind": "temp", "__reducer__": "sum", "__source__": "ts:py,ts:py2"},
                       [(10, 3.5)]]}]
    r.delete("ts:py", "ts:py2")


def main():
    r = redis.Redis(port=PORT)
    other = redis.Redis(port=PORT)
    acl(r)
    scripting(r, other)
    timeseries(r)
    r.flushall()

    # r.pipeline() is transactional by default: MULTI ... EXEC.
    pipe = r.pipeline()
    assert pipe.set("k", 1).incr("k").get("k").execute() == [True, 2, b"2"]
    pipe = r.pipeline()
    pipe.set("a", "x").incr("a").set("b", "y")
    results = pipe.execute(raise_on_error=False)
    assert results[0] is True and isinstance(results[1], redis.ResponseError), results
    assert r.mget("a", "b") == [b"x", b"y"]

    # WATCH: another client's write fails the transaction.
    with r.pipeline() as p:
        p.watch("w")
        other.set("w", "changed")
        p.multi()
        p.set("w", "mine")
        try:
            p.execute()
            raise AssertionError("WatchError expected")
        except redis.WatchError:
            pass
    assert r.get("w") == b"changed"
    # The check-and-set idiom from redis-py's documentation.
    def incr_w(p):
        value = int(p.get("counter") or 0)
        p.multi()
        p.set("counter", value + 1)
    r.transaction(incr_w, "counter")
    r.transaction(incr_w, "counter")
    assert r.get("counter") == b"2"

    # pubsub(): channels and patterns.
    p = r.pubsub()
    p.subscribe("news")
    assert get_message(p)["type"] == "subscribe"
    p.psubscribe("n*")
    assert get_message(p)["type"] == "psubscribe"
    assert other.publish("news", "hello") == 2
    m1, m2 = get_message(p), get_message(p)
    assert (m1["type"], m1["channel"], m1["data"]) == ("message", b"news", b"hello"), m1
    assert (m2["type"], m2["pattern"], m2["data"]) == ("pmessage", b"n*", b"hello"), m2
    assert r.pubsub_numsub("news") == [(b"news", 1)]
    p.close()

    # Expired events fire by themselves, for a key no one reads.
    r.config_set("notify-keyspace-events", "Ex")
    p = r.pubsub(ignore_subscribe_messages=True)
    p.subscribe("__keyevent@0__:expired")
    time.sleep(0.1)
    r.set("soon", "v", px=200)
    m = get_message(p)
    assert (m["channel"], m["data"]) == (b"__keyevent@0__:expired", b"soon"), m
    p.close()
    r.config_set("notify-keyspace-events", "")
    print("redis-py %s: transactions, WATCH, pubsub, expired events OK" % redis.__version__)


if __name__ == "__main__":
    main()
