// `expired` keyspace events on time, driven by DEBUG CLOCK: each key fires exactly when the clock
// passes its expire_at — not before, once, for every type, with no read of the key — counts in
// INFO's expired_keys once, and invalidates WATCH.
#include "server/services/expiry_events.h"

#include <gtest/gtest.h>

#include <string>

#include "server/services/server_context.h"
#include "tests/support/command_runner.h"
#include "tests/support/test_constants.h"

namespace ebb::test {
namespace {

class ExpiryEventsTest : public CommandTest {
 protected:
  void SetUp() override {
    CommandTest::SetUp();
    PinClock(kPinnedNowMs);
    listener_ = ebb_->AddClient();
    ASSERT_EQ(Do({"CONFIG", "SET", "notify-keyspace-events", "Ex"}), "+OK");
    ebb_->DoAs(listener_, {"SUBSCRIBE", "__keyevent@0__:expired", "__keyevent@1__:expired"});
    ebb_->TakePushed(listener_);
  }
  // The keys whose `expired` event arrived since the last call, "db:key" in arrival order.
  std::string Expired() {
    std::string out;
    for (const Reply& m : ParseAll(ebb_->TakePushed(listener_))) {
      out += (out.empty() ? "" : " ") + m[1].str().substr(11, 1) + ":" + m[2].str();
    }
    return out;
  }
  long long ExpiredKeys() { return InfoField(Cmd({"INFO", "stats"}).str(), "expired_keys"); }
  size_t listener_ = 0;
};

TEST_F(ExpiryEventsTest, EveryTypeFiresWhenTheClockPassesItsExpiry) {
  EXPECT_EQ(Do({"SET", "s", "v", "PX", "100"}), "+OK");
  EXPECT_EQ(Do({"PUT", "row", "v", "TTL", "150"}), "+OK");
  EXPECT_EQ(Do({"TLOG", "INS", "log", "e", "1"}), "+OK");
  EXPECT_EQ(Do({"PEXPIRE", "log", "200"}), ":1");
  EXPECT_EQ(Do({"TREG", "SET", "reg", "v", "1"}), "+OK");
  EXPECT_EQ(Do({"PEXPIREAT", "reg", std::to_string(kPinnedNowMs + 200)}), ":1");
  EXPECT_EQ(Do({"SELECT", "1"}), "+OK");
  EXPECT_EQ(Do({"SET", "other", "v", "PX", "100"}), "+OK");
  Advance(99);
  EXPECT_EQ(Expired(), "");
  Advance(1);
  EXPECT_EQ(Expired(), "0:s 1:other");
  Advance(49);
  EXPECT_EQ(Expired(), "");
  Advance(1);
  EXPECT_EQ(Expired(), "0:row");
  Advance(50);
  EXPECT_EQ(Expired(), "0:log 0:reg");
  Advance(10'000);
  EXPECT_EQ(Expired(), "");  // once
  EXPECT_EQ(ExpiredKeys(), 5);
  // Reading the expired keys now counts nothing more.
  EXPECT_EQ(Do({"GET", "other"}), "nil");
  EXPECT_EQ(Do({"SELECT", "0"}), "+OK");
  EXPECT_EQ(Do({"EXISTS", "s", "row", "log", "reg"}), ":0");
  EXPECT_EQ(ExpiredKeys(), 5);
}

TEST_F(ExpiryEventsTest, ChangedExpiriesFireOnlyAsTheyAreNow) {
  EXPECT_EQ(Do({"SET", "moved", "v", "PX", "100"}), "+OK");
  EXPECT_EQ(Do({"PEXPIRE", "moved", "300"}), ":1");
  EXPECT_EQ(Do({"SET", "kept", "v", "PX", "100"}), "+OK");
  EXPECT_EQ(Do({"PERSIST", "kept"}), ":1");
  EXPECT_EQ(Do({"SET", "deleted", "v", "PX", "100"}), "+OK");
  EXPECT_EQ(Do({"DEL", "deleted"}), ":1");
  EXPECT_EQ(Do({"SET", "rewritten", "v", "PX", "100"}), "+OK");
  EXPECT_EQ(Do({"SET", "rewritten", "w"}), "+OK");
  Advance(200);
  EXPECT_EQ(Expired(), "");
  Advance(100);
  EXPECT_EQ(Expired(), "0:moved");
  EXPECT_EQ(Do({"MGET", "kept", "rewritten"}), "[$v,$w]");
}

TEST_F(ExpiryEventsTest, KeysWrittenBeforeTheEventsWereSelectedFireToo) {
  EXPECT_EQ(Do({"CONFIG", "SET", "notify-keyspace-events", ""}), "+OK");
  EXPECT_EQ(Do({"SET", "early", "v", "PX", "100"}), "+OK");
  EXPECT_EQ(Do({"TREG", "SET", "early-reg", "v", "3"}), "+OK");
  EXPECT_EQ(Do({"PEXPIRE", "early-reg", "50"}), ":1");
  EXPECT_EQ(Do({"CONFIG", "SET", "notify-keyspace-events", "KEA"}), "+OK");  // rebuilt here
  ebb_->DoAs(listener_, {"UNSUBSCRIBE", "__keyevent@1__:expired"});
  ebb_->TakePushed(listener_);
  Advance(100);
  EXPECT_EQ(Expired(), "0:early-reg 0:early");
}

TEST_F(ExpiryEventsTest, TransactionsExpiriesAreIndexed) {
  EXPECT_EQ(Do({"MULTI"}), "+OK");
  EXPECT_EQ(Do({"SET", "t", "v", "PX", "10"}), "+QUEUED");
  EXPECT_EQ(Do({"EXEC"}), "[+OK]");
  Advance(10);
  EXPECT_EQ(Expired(), "0:t");
}

TEST_F(ExpiryEventsTest, ExpiryInvalidatesWatch) {
  const size_t other = ebb_->AddClient();
  EXPECT_EQ(Do({"SET", "w", "v", "PX", "100"}), "+OK");
  EXPECT_EQ(ebb_->DoAs(other, {"WATCH", "w"}), "+OK");
  Advance(100);
  EXPECT_EQ(Expired(), "0:w");
  EXPECT_EQ(ebb_->DoAs(other, {"MULTI"}), "+OK");
  EXPECT_EQ(ebb_->DoAs(other, {"EXEC"}), "nil");
}

TEST_F(ExpiryEventsTest, NothingFiresWhileExpirationIsOff) {
  EXPECT_EQ(Do({"SET", "k", "v", "PX", "100"}), "+OK");
  EXPECT_EQ(Do({"CONFIG", "SET", "expiration", "off"}), "+OK");
  Advance(1000);
  EXPECT_EQ(Expired(), "");
  EXPECT_EQ(Do({"GET", "k"}), "$v");
}

TEST_F(ExpiryEventsTest, MoreExpiriesThanTheIndexHoldsAllFireInOrder) {
  ebb_->context().expiry_events().set_max_entries(4);
  EXPECT_EQ(Do({"CONFIG", "SET", "notify-keyspace-events", ""}), "+OK");
  EXPECT_EQ(Do({"CONFIG", "SET", "notify-keyspace-events", "Ex"}), "+OK");  // rebuilt at 4
  std::string expected;
  for (int i = 9; i >= 0; i--) {  // written latest first
    const std::string key = "k" + std::to_string(i);
    EXPECT_EQ(Do({"SET", key, "v", "PX", std::to_string(100 * (i + 1))}), "+OK");
  }
  EXPECT_LE(ebb_->context().expiry_events().size(), 4u);
  std::string fired;
  for (int step = 0; step < 12; step++) {
    Advance(100);
    const std::string now = Expired();
    if (!now.empty()) fired += (fired.empty() ? "" : " ") + now;
  }
  EXPECT_EQ(fired, "0:k0 0:k1 0:k2 0:k3 0:k4 0:k5 0:k6 0:k7 0:k8 0:k9");
  EXPECT_EQ(ExpiredKeys(), 10);
}

}  // namespace
}  // namespace ebb::test
