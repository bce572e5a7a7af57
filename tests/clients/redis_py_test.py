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


def main():
    r = redis.Redis(port=PORT)
    other = redis.Redis(port=PORT)
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
