// Counters between active-active peers (docs/active-active.md, "Counters"), against spawned
// ebb-servers: INCR, INCRBY, DECR and DECRBY at every node of a mesh through a partition and a
// restart converge to the sum of every increment (the test's model); SET resets what its origin
// saw and keeps a concurrent increment; DEL removes a counter; an EXPIRE, a PERSIST and a
// snapshot for a node joining later carry it; a node given every delta in a random order ends
// alike. Every wait is a bounded poll.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "tests/support/active_active_mesh.h"
#include "tests/support/active_active_support.h"
#include "tests/support/test_constants.h"
#include "tests/support/test_seed.h"
#include "tests/support/test_server.h"

namespace ebb::test {
namespace {

class ActiveActiveCounterTest : public ActiveActiveMeshTest {
 protected:
  // Cuts (or heals) node `i` from every other node.
  void Isolate(int i, bool isolated) {
    for (size_t j = 0; j < c_.size(); j++) {
      if (static_cast<int>(j) != i) SetLink(c_[i].get(), n_[i], c_[j].get(), n_[j], !isolated);
    }
  }
  void ExpectEverywhere(const std::string& key, const std::string& value) {
    for (size_t i = 0; i < c_.size(); i++) {
      EXPECT_EQ(Cmd(c_[i].get(), {"GET", key}).str(), value) << key << " on n" << i;
    }
  }
};

// Random increments at three nodes, one cut off meanwhile and another restarted: every node
// reads each counter as the sum of every increment made to it, and reaches the same digest; a
// node joining later through snapshots (the logs no longer start at 1) does too, and so does a
// node given every delta of the three logs in one random order.
TEST_F(ActiveActiveCounterTest, ConcurrentIncrementsConvergeToTheirSum) {
  ASSERT_NO_FATAL_FAILURE(StartMesh(3, {"--peer-backlog-size", "20"}));
  const uint64_t seed = TestSeed(7);
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  std::map<std::string, int64_t> model;
  auto write_at = [&](int node, int count) {
    for (int i = 0; i < count; i++) {
      const std::string key = "c" + std::to_string(rng() % 4);
      const int64_t by = static_cast<int64_t>(rng() % 21) - 10;
      const uint64_t kind = rng() % 4;
      std::vector<std::string> args =
          kind == 0   ? std::vector<std::string>{"INCR", key}
          : kind == 1 ? std::vector<std::string>{"DECR", key}
          : kind == 2 ? std::vector<std::string>{"INCRBY", key, std::to_string(by)}
                      : std::vector<std::string>{"DECRBY", key, std::to_string(by)};
      const int64_t added = kind == 0 ? 1 : kind == 1 ? -1 : kind == 2 ? by : -by;
      const Reply r = Cmd(c_[node].get(), args);
      ASSERT_FALSE(r.is_error()) << args[0] << ": " << r.str();
      model[key] += added;
    }
  };
  for (int node = 0; node < 3; node++) write_at(node, 10);
  ASSERT_EQ(WaitConverged(Conns()), "");
  Isolate(0, true);
  for (int round = 0; round < 3; round++) {
    for (int node = 0; node < 3; node++) write_at(node, 8);
  }
  // n1 restarted in the middle, its clock pinned again; the others write meanwhile.
  ASSERT_EQ(n_[1].Stop(), 0) << n_[1].ReadLog();
  write_at(0, 5);
  write_at(2, 5);
  ASSERT_TRUE(n_[1].Start(args_[1])) << n_[1].error();
  c_[1] = n_[1].Connect();
  ASSERT_EQ(Cmd(c_[1].get(), {"DEBUG", "CLOCK", "SET", std::to_string(kPinnedNowMs)}).str(), "OK");
  write_at(1, 8);
  Isolate(0, false);
  ASSERT_EQ(WaitConverged(Conns()), "");
  for (const auto& [key, sum] : model) ExpectEverywhere(key, std::to_string(sum));
  const std::string digest = LogicalDigest(c_[0].get());
  EXPECT_EQ(Cmd(c_[2].get(), {"TYPE", "c0"}).str(), "string");
  EXPECT_EQ(Cmd(c_[2].get(), {"STRLEN", "c0"}).integer(),
            static_cast<int64_t>(std::to_string(model["c0"]).size()));

  // A node joining now: every log has moved past offset 1, so it is built from snapshots.
  ASSERT_TRUE(late_.Start(PeerArgs({&n_[0], &n_[1], &n_[2]}))) << late_.error();
  RedisConnection late = late_.Connect();
  ASSERT_EQ(WaitConverged({c_[0].get(), late.get()}), "");
  for (const auto& [key, sum] : model) {
    EXPECT_EQ(Cmd(late.get(), {"GET", key}).str(), std::to_string(sum)) << key;
  }
  EXPECT_GT(SnapshotsSent(), 0);
  EXPECT_EQ(LogicalDigest(late.get()), digest);
}

// The merge laws end to end: a node given every delta of three logs, in one seeded random order
// across origins and within each log, holds what the mesh holds.
TEST_F(ActiveActiveCounterTest, AnyOrderOfTheDeltasGivesTheSameCounters) {
  ASSERT_NO_FATAL_FAILURE(StartMesh(3));
  ASSERT_EQ(Cmd(c_[0].get(), {"SET", "k", "10"}).str(), "OK");
  ASSERT_EQ(WaitConverged(Conns()), "");
  Isolate(0, true);
  Isolate(1, true);
  ASSERT_EQ(Cmd(c_[0].get(), {"INCRBY", "k", "5"}).integer(), 15);
  ASSERT_EQ(Cmd(c_[1].get(), {"DECRBY", "k", "3"}).integer(), 7);
  ASSERT_EQ(Cmd(c_[2].get(), {"INCR", "k"}).integer(), 11);
  ASSERT_EQ(Cmd(c_[2].get(), {"SET", "k", "100"}).str(), "OK");  // saw only its own INCR
  ASSERT_EQ(Cmd(c_[2].get(), {"INCR", "k"}).integer(), 101);
  ASSERT_EQ(Cmd(c_[1].get(), {"INCR", "j"}).integer(), 1);
  ASSERT_EQ(Cmd(c_[0].get(), {"INCRBY", "j", "4"}).integer(), 4);
  Isolate(0, false);
  Isolate(1, false);
  ASSERT_EQ(WaitConverged(Conns()), "");
  ExpectEverywhere("k", "103");  // 100 + n0's 5 - n1's 3 + n2's INCR after the SET
  ExpectEverywhere("j", "5");
  const std::vector<LoggedDelta> all = EveryLoggedDeltaShuffled(11);
  RedisConnection ref = StartReference();
  ASSERT_TRUE(ref);
  ApplyInOrder(ref.get(), all);
  EXPECT_EQ(Cmd(ref.get(), {"GET", "k"}).str(), "103");
  EXPECT_EQ(Cmd(ref.get(), {"GET", "j"}).str(), "5");
  EXPECT_EQ(LogicalDigest(ref.get()), LogicalDigest(c_[0].get()));
}

// SET on a counter replaces what its origin had seen; an increment made concurrently elsewhere
// still adds to it, whichever arrives first. Errors are Redis's, on the origin.
TEST_F(ActiveActiveCounterTest, SetResetsWhatItsOriginSawAndKeepsAConcurrentIncrement) {
  ASSERT_NO_FATAL_FAILURE(StartMesh(2));
  Isolate(0, true);
  ASSERT_EQ(Cmd(c_[0].get(), {"INCRBY", "k", "5"}).integer(), 5);
  ASSERT_EQ(Cmd(c_[1].get(), {"INCRBY", "k", "7"}).integer(), 7);
  Isolate(0, false);  // concurrent: no reset
  ASSERT_EQ(WaitConverged(Conns()), "");
  ExpectEverywhere("k", "12");
  Isolate(0, true);
  ASSERT_EQ(Cmd(c_[0].get(), {"SET", "k", "100"}).str(), "OK");
  ASSERT_EQ(Cmd(c_[1].get(), {"INCRBY", "k", "3"}).integer(), 15);
  EXPECT_EQ(Cmd(c_[0].get(), {"GET", "k"}).str(), "100");
  Isolate(0, false);
  ASSERT_EQ(WaitConverged(Conns()), "");
  ExpectEverywhere("k", "103");
  // A later SET that saw everything resets it all (one at the same ms ranks by its value).
  for (auto& c : c_) {
    ASSERT_EQ(Cmd(c.get(), {"DEBUG", "CLOCK", "SET", std::to_string(kPinnedNowMs + 10)}).str(),
              "OK");
  }
  ASSERT_EQ(Cmd(c_[1].get(), {"SET", "k", "1"}).str(), "OK");
  ASSERT_EQ(WaitConverged(Conns()), "");
  ExpectEverywhere("k", "1");
  ASSERT_EQ(Cmd(c_[0].get(), {"DECR", "k"}).integer(), 0);
  // Redis's errors, judged on the origin; nothing logged.
  ASSERT_EQ(Cmd(c_[0].get(), {"SET", "s", "abc"}).str(), "OK");
  ASSERT_EQ(WaitConverged(Conns()), "");
  EXPECT_EQ(Cmd(c_[0].get(), {"INCR", "s"}).str(), "ERR value is not an integer or out of range");
  ASSERT_EQ(Cmd(c_[0].get(), {"SET", "big", "9223372036854775806"}).str(), "OK");
  EXPECT_EQ(Cmd(c_[0].get(), {"INCRBY", "big", "2"}).str(),
            "ERR increment or decrement would overflow");
  EXPECT_EQ(Cmd(c_[0].get(), {"INCR", "big"}).integer(), INT64_MAX);
  EXPECT_EQ(Cmd(c_[0].get(), {"DECRBY", "k", "-9223372036854775808"}).str(),
            "ERR decrement would overflow");
  EXPECT_EQ(Cmd(c_[0].get(), {"INCRBY", "k", "x"}).str(),
            "ERR value is not an integer or out of range");
  ASSERT_EQ(Cmd(c_[0].get(), {"TREG", "SET", "r", "v", "5"}).str(), "OK");
  EXPECT_EQ(Cmd(c_[0].get(), {"INCR", "r"}).str().rfind("WRONGTYPE", 0), 0u);
  EXPECT_EQ(Cmd(c_[0].get(), {"INCRBYFLOAT", "s", "1"}).str(), "ERR value is not a valid float");
  EXPECT_EQ(Cmd(c_[0].get(), {"INCRBYFLOAT", "k", "x"}).str(), "ERR value is not a valid float");
  ASSERT_EQ(Cmd(c_[0].get(), {"SET", "huge", "1e4932"}).str(), "OK");
  EXPECT_EQ(Cmd(c_[0].get(), {"INCRBYFLOAT", "huge", "1e4932"}).str(),
            "ERR increment would produce NaN or Infinity");
  ASSERT_EQ(WaitConverged(Conns()), "");
  ExpectEverywhere("k", "0");
  ExpectEverywhere("s", "abc");
  ExpectEverywhere("big", "9223372036854775807");
}

// INCRBYFLOAT adds to the same counter as INCR: concurrent float increments on every node sum,
// printed as Redis prints INCRBYFLOAT's result; an INCR on a value with a fraction is Redis's
// error, and a SET makes it an integer counter again.
TEST_F(ActiveActiveCounterTest, IncrByFloatAddsToTheCounter) {
  ASSERT_NO_FATAL_FAILURE(StartMesh(3));
  ASSERT_EQ(Cmd(c_[0].get(), {"SET", "f", "10.5"}).str(), "OK");
  ASSERT_EQ(WaitConverged(Conns()), "");
  Isolate(0, true);
  Isolate(1, true);
  EXPECT_EQ(Cmd(c_[0].get(), {"INCRBYFLOAT", "f", "0.25"}).str(), "10.75");
  EXPECT_EQ(Cmd(c_[1].get(), {"INCRBYFLOAT", "f", "-1.5"}).str(), "9");
  EXPECT_EQ(Cmd(c_[2].get(), {"INCRBY", "f", "1"}).str(),
            "ERR value is not an integer or out of range");
  EXPECT_EQ(Cmd(c_[2].get(), {"INCRBYFLOAT", "f", "5.0e3"}).str(), "5010.5");
  EXPECT_EQ(Cmd(c_[2].get(), {"INCRBYFLOAT", "g", "0.1"}).str(), "0.1");
  EXPECT_EQ(Cmd(c_[0].get(), {"INCR", "g"}).integer(), 1);
  Isolate(0, false);
  Isolate(1, false);
  ASSERT_EQ(WaitConverged(Conns()), "");
  ExpectEverywhere("f", "5009.25");  // 10.5 + 0.25 - 1.5 + 5000
  ExpectEverywhere("g", "1.1");
  EXPECT_EQ(Cmd(c_[1].get(), {"INCR", "f"}).str(), "ERR value is not an integer or out of range");
  ASSERT_EQ(Cmd(c_[1].get(), {"DEBUG", "CLOCK", "SET", std::to_string(kPinnedNowMs + 10)}).str(),
            "OK");
  ASSERT_EQ(Cmd(c_[1].get(), {"SET", "f", "7"}).str(), "OK");
  EXPECT_EQ(Cmd(c_[1].get(), {"INCR", "f"}).integer(), 8);
  ASSERT_EQ(WaitConverged(Conns()), "");
  ExpectEverywhere("f", "8");
}

// DEL of a counter removes every increment its origin saw (and, concurrently, those made on a
// node that had not seen the delete); increments made after it start from nothing.
TEST_F(ActiveActiveCounterTest, DelRemovesTheCounter) {
  ASSERT_NO_FATAL_FAILURE(StartMesh(2));
  Isolate(0, true);
  ASSERT_EQ(Cmd(c_[0].get(), {"INCRBY", "k", "5"}).integer(), 5);
  ASSERT_EQ(Cmd(c_[1].get(), {"INCRBY", "k", "7"}).integer(), 7);
  Isolate(0, false);
  ASSERT_EQ(WaitConverged(Conns()), "");
  Isolate(0, true);
  ASSERT_EQ(Cmd(c_[0].get(), {"DEL", "k"}).integer(), 1);
  ASSERT_EQ(Cmd(c_[0].get(), {"INCRBY", "k", "2"}).integer(), 2);
  ASSERT_EQ(Cmd(c_[1].get(), {"INCRBY", "k", "4"}).integer(), 16);  // had not seen the DEL
  Isolate(0, false);
  ASSERT_EQ(WaitConverged(Conns()), "");
  ExpectEverywhere("k", "2");
  ASSERT_EQ(Cmd(c_[1].get(), {"INCR", "k"}).integer(), 3);
  ASSERT_EQ(Cmd(c_[1].get(), {"FLUSHDB"}).str(), "OK");
  ASSERT_EQ(WaitConverged(Conns()), "");
  for (auto& c : c_) EXPECT_EQ(Cmd(c.get(), {"EXISTS", "k"}).integer(), 0);
  ASSERT_EQ(Cmd(c_[0].get(), {"DECR", "k"}).integer(), -1);
  ASSERT_EQ(WaitConverged(Conns()), "");
  ExpectEverywhere("k", "-1");
}

// EXPIRE and PERSIST apply to a counter as to a string, on every node at the same clock time;
// INCR keeps the expiry, and an INCR after it expired starts a new counter.
TEST_F(ActiveActiveCounterTest, ExpiryAppliesToACounter) {
  ASSERT_NO_FATAL_FAILURE(StartMesh(2));
  ASSERT_EQ(Cmd(c_[0].get(), {"INCRBY", "k", "5"}).integer(), 5);
  ASSERT_EQ(WaitConverged(Conns()), "");
  ASSERT_EQ(Cmd(c_[1].get(), {"INCRBY", "k", "1"}).integer(), 6);
  ASSERT_EQ(WaitConverged(Conns()), "");
  ASSERT_EQ(Cmd(c_[0].get(), {"PEXPIREAT", "k", std::to_string(kPinnedNowMs + 1000)}).integer(), 1);
  ASSERT_EQ(Cmd(c_[1].get(), {"INCR", "k"}).integer(), 7);
  ASSERT_EQ(WaitConverged(Conns()), "");
  for (auto& c : c_) EXPECT_EQ(Cmd(c.get(), {"PEXPIRETIME", "k"}).integer(), kPinnedNowMs + 1000);
  for (auto& c : c_) {
    ASSERT_EQ(Cmd(c.get(), {"DEBUG", "CLOCK", "SET", std::to_string(kPinnedNowMs + 1000)}).str(),
              "OK");
    EXPECT_EQ(Cmd(c.get(), {"EXISTS", "k"}).integer(), 0);
  }
  ASSERT_EQ(Cmd(c_[1].get(), {"INCR", "k"}).integer(), 1);
  ASSERT_EQ(WaitConverged(Conns()), "");
  ExpectEverywhere("k", "1");
  for (auto& c : c_) EXPECT_EQ(Cmd(c.get(), {"PTTL", "k"}).integer(), -1);
  ASSERT_EQ(Cmd(c_[0].get(), {"EXPIRE", "k", "100"}).integer(), 1);
  ASSERT_EQ(Cmd(c_[1].get(), {"INCR", "k"}).integer(), 2);
  ASSERT_EQ(WaitConverged(Conns()), "");
  ASSERT_EQ(Cmd(c_[1].get(), {"PERSIST", "k"}).integer(), 1);
  ASSERT_EQ(WaitConverged(Conns()), "");
  for (auto& c : c_) EXPECT_EQ(Cmd(c.get(), {"PTTL", "k"}).integer(), -1);
  ExpectEverywhere("k", "2");
}

// A counter's base that expired leaves the origin log by the purge deadline as its value-less
// form (`BASE reduced <ts> <expiry> <digest>`, the records kept), and a peer cut off meanwhile
// receives that form from the stream (no snapshot) and ends with the same digest.
TEST_F(ActiveActiveCounterTest, AnExpiredBaseLeavesTheLog) {
  ASSERT_NO_FATAL_FAILURE(StartMesh(3, {"--expiry-purge-deadline", "2s"}));
  ASSERT_EQ(Cmd(c_[0].get(), {"INCR", "k"}).integer(), 1);
  ASSERT_EQ(WaitConverged(Conns()), "");
  SetLink(c_[0].get(), n_[0], c_[2].get(), n_[2], false);
  ASSERT_EQ(Cmd(c_[0].get(), {"SET", "k", "4242", "PX", "1000"}).str(), "OK");
  ASSERT_EQ(Cmd(c_[0].get(), {"INCR", "k"}).integer(), 4243);
  ASSERT_EQ(WaitConverged({c_[0].get(), c_[1].get()}), "");
  // The base's form, as the log holds it: `counter k BASE <kind> ...`.
  auto base_kind = [&] {
    std::string kind;
    for (const LoggedDelta& delta : ReadOriginLog(n_[0])) {
      if (delta.args.size() > 3 && delta.args[0] == "counter" && delta.args[2] == "BASE") {
        kind = delta.args[3];
      }
    }
    return kind;
  };
  EXPECT_EQ(base_kind(), "value");
  for (auto& c : c_) {
    ASSERT_EQ(
        Cmd(c.get(), {"DEBUG", "CLOCK", "SET", std::to_string(kPinnedNowMs + 1000 + 2000 + 1)})
            .str(),
        "OK");
  }
  std::string kind;
  for (int i = 0; i < 100 && (kind = base_kind()) != "reduced"; i++) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_EQ(kind, "reduced");
  SetLink(c_[0].get(), n_[0], c_[2].get(), n_[2], true);
  ASSERT_EQ(WaitConverged(Conns()), "");
  EXPECT_EQ(InfoField(c_[0].get(), "peers", "snapshots_sent"), 0);
  // A new counter from an INCR after the expiry, alike everywhere.
  for (auto& c : c_) EXPECT_EQ(Cmd(c.get(), {"EXISTS", "k"}).integer(), 0);
  ASSERT_EQ(Cmd(c_[2].get(), {"INCR", "k"}).integer(), 1);
  ASSERT_EQ(WaitConverged(Conns()), "");
  ExpectEverywhere("k", "1");
}

}  // namespace
}  // namespace ebb::test
