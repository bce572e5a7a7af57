// Kv over a real engine (temp dir, ManualClock): out-of-order versions read with a retrieval
// grace (the SlateDB RFC's example and scenarios), expiry at the exact ms, WRONGTYPE, the Redis
// string helpers (SET conditions, APPEND, INCR family, MSET/MSETNX, GETDEL), and reopening.
#include "types/kv.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <limits>
#include <memory>
#include <optional>
#include <string>

#include "storage/clock.h"
#include "tests/unit/types/types_fixture.h"
#include "types/key_encoding.h"
#include "types/key_meta.h"
#include "types/keyspace.h"
#include "types/ttl_policy.h"

namespace ebb::types {
namespace {

constexpr int64_t kFullGrace = std::numeric_limits<int64_t>::max();
constexpr int64_t kStart = 1'000'000;

class KvTest : public TypesTest {
 protected:
  KvTest() : TypesTest(kStart) { options_.memtable_size = 4 << 10; }

  Kv kv(int64_t grace = 0, int db = 0) { return Kv(*ks_, db, grace); }

  void Put(std::string_view key, std::string_view value, int64_t ts,
           std::optional<int64_t> expire_at = std::nullopt, int db = 0) {
    ASSERT_TRUE(kv(0, db).Put({key, value, ts, expire_at}).ok());
  }

  // The value a read with `grace` returns, or "(nil)" / "(wrongtype)".
  std::string Read(std::string_view key, int64_t grace = 0, int db = 0) {
    OpResult<KvRow> row = kv(grace, db).Get(key, grace);
    EXPECT_TRUE(row.ok() || row.status() == OpStatus::kNotFound ||
                row.status() == OpStatus::kWrongType);
    if (row.status() == OpStatus::kNotFound) return "(nil)";
    if (row.status() == OpStatus::kWrongType) return "(wrongtype)";
    return row.ok() ? row->value : "(error)";
  }

  KvRow ReadRow(std::string_view key, int64_t grace = 0) {
    OpResult<KvRow> row = kv().Get(key, grace);
    EXPECT_TRUE(row.ok());
    return row.ok() ? *row : KvRow();
  }
};

TEST_F(KvTest, PutThenGetReturnsValueTimestampAndExpiry) {
  Put("k", "v", 123, 5'000'000);
  KvRow row = ReadRow("k");
  EXPECT_EQ(row.value, "v");
  EXPECT_EQ(row.ts, 123);
  EXPECT_EQ(row.expire_at_ms, 5'000'000);
  EXPECT_EQ(Read("missing"), "(nil)");
}

TEST_F(KvTest, EmptyAndBinaryValuesRoundTrip) {
  const std::string binary("a\0b\xff\r\n", 6);
  Put("bin", binary, 1);
  Put("empty", "", 1);
  EXPECT_EQ(Read("bin"), binary);
  EXPECT_EQ(Read("empty"), "");
}

TEST_F(KvTest, DatabasesAreSeparateKeyspaces) {
  Put("k", "zero", 1, std::nullopt, 0);
  Put("k", "one", 1, std::nullopt, 1);
  EXPECT_EQ(Read("k", 0, 0), "zero");
  EXPECT_EQ(Read("k", 0, 1), "one");
  EXPECT_EQ(Read("k", 0, 2), "(nil)");
}

// The RFC's example: versions @100, @50, @150 in walk order (newest write first), so written
// @150, then @50, then @100.
TEST_F(KvTest, RetrievalGraceFollowsTheRfcExample) {
  Put("a", "v150", 150);
  Put("a", "v50", 50);
  Put("a", "v100", 100);
  EXPECT_EQ(Read("a", -5), "v100");
  EXPECT_EQ(Read("a", 0), "v100");
  EXPECT_EQ(Read("a", 1), "v100");
  EXPECT_EQ(Read("a", 50), "v100");
  EXPECT_EQ(Read("a", 51), "v150");
  EXPECT_EQ(Read("a", kFullGrace), "v150");
  EXPECT_EQ(ReadRow("a", 51).ts, 150);
}

// RFC scenario 4: an out-of-order overwrite with an older timestamp loses under enough grace.
TEST_F(KvTest, OutOfOrderOverwriteLosesUnderGrace) {
  Put("a", "new", 100);
  Put("a", "old", 50);
  EXPECT_EQ(Read("a", 0), "old");
  EXPECT_EQ(Read("a", 51), "new");
}

// RFC scenario 5: a tombstone at ts 50 does not hide a value at ts 100 once they meet.
TEST_F(KvTest, OutOfOrderTombstoneLosesToNewerValue) {
  Put("a", "v", 100);
  ASSERT_TRUE(kv().Delete("a", 50).ok());
  EXPECT_EQ(Read("a", 0), "(nil)");
  EXPECT_EQ(Read("a", kFullGrace), "v");
  // A newer tombstone wins under every grace.
  ASSERT_TRUE(kv().Delete("a", 200).ok());
  EXPECT_EQ(Read("a", kFullGrace), "(nil)");
}

// RFC scenario 1: live until ts + ttl, absent from that exact ms on.
TEST_F(KvTest, ExpiresAtTheExactMillisecond) {
  Put("a", "v", kStart, kStart + 100);
  clock_->Set(kStart + 99);
  EXPECT_EQ(Read("a"), "v");
  clock_->Set(kStart + 100);
  EXPECT_EQ(Read("a"), "(nil)");
}

// RFC scenario 3: a newer write with a shorter TTL expires first and hides the older version.
TEST_F(KvTest, ExpiredVersionHidesOlderVersions) {
  Put("a", "first", 100, 200);
  Put("a", "second", 110, 150);
  clock_->Set(149);
  EXPECT_EQ(Read("a"), "second");
  clock_->Set(150);
  EXPECT_EQ(Read("a"), "(nil)");
  EXPECT_EQ(Read("a", kFullGrace), "(nil)");
}

// RFC scenario 2: a newer write with a newer TTL extends the row's life.
TEST_F(KvTest, InOrderOverwriteWithNewerTtlExtendsLife) {
  Put("a", "first", 100, 200);
  Put("a", "second", 150, 250);
  clock_->Set(249);
  EXPECT_EQ(Read("a"), "second");
  clock_->Set(250);
  EXPECT_EQ(Read("a"), "(nil)");
}

TEST_F(KvTest, ExpirationOffKeepsRecordingButNothingExpires) {
  ks_->db().SetExpirationEnabled(false);
  Put("a", "v", kStart, kStart + 10);
  clock_->Advance(1000);
  KvRow row = ReadRow("a");
  EXPECT_EQ(row.value, "v");
  EXPECT_EQ(row.expire_at_ms, kStart + 10);
  ks_->db().SetExpirationEnabled(true);
  EXPECT_EQ(Read("a"), "(nil)");
}

TEST_F(KvTest, OtherTypesAreWrongTypeAndPutOverwritesThem) {
  ASSERT_TRUE(ks_->db()
                  .Put(ks_->WriteOptions(), MetaKey(0, "t"), EncodeMetaValue(KeyType::kTreg, "x"))
                  .ok());
  EXPECT_EQ(Read("t"), "(wrongtype)");

  KvSetOptions get;
  get.get = true;
  get.ts = kStart;
  EXPECT_EQ(kv().Set("t", "s", get).status(), OpStatus::kWrongType);
  EXPECT_EQ(Read("t"), "(wrongtype)");
  EXPECT_EQ(kv().IncrBy("t", 1, kStart, std::nullopt).status(), OpStatus::kWrongType);
  EXPECT_EQ(kv().Append("t", "x", kStart, std::nullopt, 100).status(), OpStatus::kWrongType);

  Put("t", "now a string", kStart);
  EXPECT_EQ(Read("t"), "now a string");
}

TEST_F(KvTest, SetConditionsGetAndKeepTtl) {
  KvSetOptions nx;
  nx.condition = KvSetOptions::Condition::kNx;
  nx.ts = kStart;
  nx.expire_at_ms = kStart + 500;
  OpResult<KvSetResult> set = kv().Set("k", "1", nx);
  ASSERT_TRUE(set.ok());
  EXPECT_TRUE(set->written);
  set = kv().Set("k", "2", nx);
  ASSERT_TRUE(set.ok());
  EXPECT_FALSE(set->written);
  EXPECT_EQ(Read("k"), "1");

  KvSetOptions xx;
  xx.condition = KvSetOptions::Condition::kXx;
  xx.get = true;
  xx.keep_ttl = true;
  xx.ts = kStart + 1;
  set = kv().Set("k", "3", xx);
  ASSERT_TRUE(set.ok());
  EXPECT_TRUE(set->written);
  EXPECT_EQ(set->old, "1");
  KvRow row = ReadRow("k");
  EXPECT_EQ(row.value, "3");
  EXPECT_EQ(row.ts, kStart + 1);
  EXPECT_EQ(row.expire_at_ms, kStart + 500);

  set = kv().Set("absent", "x", xx);
  ASSERT_TRUE(set.ok());
  EXPECT_FALSE(set->written);
  EXPECT_EQ(set->old, std::nullopt);
  EXPECT_EQ(Read("absent"), "(nil)");

  // A plain SET replaces the expiry with its own (none here).
  KvSetOptions plain;
  plain.ts = kStart + 2;
  ASSERT_TRUE(kv().Set("k", "4", plain).ok());
  EXPECT_EQ(ReadRow("k").expire_at_ms, std::nullopt);
}

TEST_F(KvTest, IncrByParsesChecksOverflowAndKeepsExpiry) {
  OpResult<int64_t> value = kv().IncrBy("n", 5, kStart, kStart + 1000);
  ASSERT_TRUE(value.ok());
  EXPECT_EQ(*value, 5);
  EXPECT_EQ(ReadRow("n").expire_at_ms, kStart + 1000);  // a new key takes the given expiry

  value = kv().IncrBy("n", -7, kStart + 1, std::nullopt);
  ASSERT_TRUE(value.ok());
  EXPECT_EQ(*value, -2);
  KvRow row = ReadRow("n");
  EXPECT_EQ(row.value, "-2");
  EXPECT_EQ(row.expire_at_ms, kStart + 1000);  // an existing key keeps its expiry
  EXPECT_EQ(row.ts, kStart + 1);

  Put("max", "9223372036854775807", 1);
  EXPECT_EQ(kv().IncrBy("max", 1, kStart, std::nullopt).status(), OpStatus::kOverflow);
  EXPECT_EQ(Read("max"), "9223372036854775807");
  Put("min", "-9223372036854775808", 1);
  EXPECT_EQ(kv().IncrBy("min", -1, kStart, std::nullopt).status(), OpStatus::kOverflow);

  for (const char* bad : {"", " 1", "1 ", "+1", "01", "-0", "1.5", "abc", "99999999999999999999"}) {
    Put("bad", bad, 1);
    EXPECT_EQ(kv().IncrBy("bad", 1, kStart, std::nullopt).status(), OpStatus::kNotInteger)
        << "'" << bad << "'";
    EXPECT_EQ(Read("bad"), bad);
  }
}

// A derived write must supersede its base under any grace, even if the base's TS is ahead.
TEST_F(KvTest, ReadModifyWriteNeverGoesBackInTime) {
  Put("n", "10", kStart + 5000);
  ASSERT_TRUE(kv().IncrBy("n", 1, kStart, std::nullopt).ok());
  KvRow row = ReadRow("n", kFullGrace);
  EXPECT_EQ(row.value, "11");
  EXPECT_EQ(row.ts, kStart + 5000);
  ASSERT_TRUE(kv().Append("n", "x", kStart, std::nullopt, 100).ok());
  EXPECT_EQ(Read("n", kFullGrace), "11x");
}

TEST_F(KvTest, AppendCreatesExtendsKeepsExpiryAndRespectsMaxLength) {
  OpResult<int64_t> length = kv().Append("s", "abc", kStart, kStart + 100, 8);
  ASSERT_TRUE(length.ok());
  EXPECT_EQ(*length, 3);
  length = kv().Append("s", "defgh", kStart, std::nullopt, 8);
  ASSERT_TRUE(length.ok());
  EXPECT_EQ(*length, 8);
  KvRow row = ReadRow("s");
  EXPECT_EQ(row.value, "abcdefgh");
  EXPECT_EQ(row.expire_at_ms, kStart + 100);
  EXPECT_EQ(kv().Append("s", "i", kStart, std::nullopt, 8).status(), OpStatus::kTooLarge);
  EXPECT_EQ(Read("s"), "abcdefgh");
}

TEST_F(KvTest, MultiPutWritesEveryRowAndLaterDuplicatesWin) {
  ASSERT_TRUE(kv().MultiPut({{"a", "1", kStart, std::nullopt},
                             {"b", "2", kStart, kStart + 10},
                             {"a", "3", kStart, std::nullopt}})
                  .ok());
  EXPECT_EQ(Read("a"), "3");
  EXPECT_EQ(ReadRow("b").expire_at_ms, kStart + 10);
}

TEST_F(KvTest, MultiPutIfNoneExistWritesNothingWhenAnyKeyExists) {
  Put("b", "old", 1);
  OpResult<bool> written = kv().MultiPutIfNoneExist(
      {{"a", "1", kStart, std::nullopt}, {"b", "2", kStart, std::nullopt}});
  ASSERT_TRUE(written.ok());
  EXPECT_FALSE(*written);
  EXPECT_EQ(Read("a"), "(nil)");
  EXPECT_EQ(Read("b"), "old");
  written = kv().MultiPutIfNoneExist(
      {{"a", "1", kStart, std::nullopt}, {"c", "3", kStart, std::nullopt}});
  ASSERT_TRUE(written.ok());
  EXPECT_TRUE(*written);
  EXPECT_EQ(Read("a"), "1");
  EXPECT_EQ(Read("c"), "3");
}

TEST_F(KvTest, GetDelReturnsTheValueAndDeletesUnderEveryGrace) {
  Put("k", "future", kStart + 10'000);
  Put("k", "now", kStart);
  OpResult<KvRow> row = kv().GetDel("k");
  ASSERT_TRUE(row.ok());
  EXPECT_EQ(row->value, "now");
  EXPECT_EQ(Read("k"), "(nil)");
  EXPECT_EQ(Read("k", kFullGrace), "(nil)");
  EXPECT_EQ(kv().GetDel("k").status(), OpStatus::kNotFound);
}

TEST_F(KvTest, ReopenKeepsTimestampsAndExpiriesExactly) {
  Put("a", "v150", 150);
  Put("a", "v100", 100);
  Put("e", "x", kStart, kStart + 777);
  ASSERT_TRUE(kv().Delete("d", 5).ok());
  Open();
  EXPECT_EQ(Read("a", 0), "v100");
  EXPECT_EQ(Read("a", 51), "v150");
  KvRow row = ReadRow("e");
  EXPECT_EQ(row.ts, kStart);
  EXPECT_EQ(row.expire_at_ms, kStart + 777);
  clock_->Set(kStart + 777);
  EXPECT_EQ(Read("e"), "(nil)");
}

// The RFC's scenarios once versions have met in flushed files and in compaction: full-grace
// answers never change, and compaction converges every grace to them.
TEST_F(KvTest, ScenariosConvergeAfterFlushAndCompaction) {
  clock_->Set(200);
  Put("example", "v150", 150);
  Put("example", "v50", 50);
  Put("example", "v100", 100);
  Put("overwrite", "new", 100);
  Put("overwrite", "old", 50);
  Put("tomb", "v", 100);
  ASSERT_TRUE(kv().Delete("tomb", 50).ok());
  Put("older_ttl", "first", 100, 300);
  Put("older_ttl", "second", 110, 210);
  ASSERT_TRUE(ks_->db().FlushMemtable().ok());
  EXPECT_EQ(Read("example", kFullGrace), "v150");
  EXPECT_EQ(Read("overwrite", kFullGrace), "new");
  EXPECT_EQ(Read("tomb", kFullGrace), "v");
  EXPECT_EQ(Read("older_ttl", kFullGrace), "second");
  clock_->Set(220);  // "second" expired at 210, "first" would live until 300
  EXPECT_EQ(Read("older_ttl", kFullGrace), "(nil)");
  ASSERT_TRUE(ks_->db().CompactAll().ok());
  for (int64_t grace : {int64_t{0}, int64_t{1}, kFullGrace}) {
    EXPECT_EQ(Read("example", grace), "v150") << grace;
    EXPECT_EQ(Read("overwrite", grace), "new") << grace;
    EXPECT_EQ(Read("tomb", grace), "v") << grace;
    EXPECT_EQ(Read("older_ttl", grace), "(nil)") << grace;
  }
  Open();
  EXPECT_EQ(Read("example"), "v150");
  EXPECT_EQ(ReadRow("example").ts, 150);
  EXPECT_EQ(Read("older_ttl", kFullGrace), "(nil)");
}

TEST_F(KvTest, ExpiryAndTimestampsSurviveFlushCompactionAndReopen) {
  Put("e", "x", kStart, kStart + 500);
  Put("p", "y", -42);
  ASSERT_TRUE(ks_->db().CompactAll().ok());
  Open();
  KvRow e = ReadRow("e");
  EXPECT_EQ(e.ts, kStart);
  EXPECT_EQ(e.expire_at_ms, kStart + 500);
  KvRow p = ReadRow("p");
  EXPECT_EQ(p.ts, -42);
  EXPECT_EQ(p.expire_at_ms, std::nullopt);
  clock_->Set(kStart + 499);
  EXPECT_EQ(Read("e"), "x");
  clock_->Set(kStart + 500);
  EXPECT_EQ(Read("e"), "(nil)");
  ASSERT_TRUE(ks_->db().CompactAll().ok());
  EXPECT_EQ(Read("e", kFullGrace), "(nil)");
  EXPECT_EQ(Read("p"), "y");
}

// The policy's expiry as rows carry it: write option > first matching rule > default, NOTTL.
TEST_F(KvTest, TtlPolicyDecidesTheExpiryRowsCarry) {
  TtlPolicy policy(10'000, {{"session:", 60'000}, {"keep:", -1}},
                   [](std::string_view prefix, std::string_view key) {
                     return key.substr(0, prefix.size()) == prefix;
                   });
  auto put = [&](std::string_view key, ExpiryOption option) {
    std::optional<int64_t> expire_at;
    ASSERT_TRUE(policy.ResolveExpireAt(key, kStart, option, &expire_at));
    Put(key, "v", kStart, expire_at);
  };
  put("plain", ExpiryOption::Policy());
  put("session:1", ExpiryOption::Policy());
  put("keep:1", ExpiryOption::Policy());
  put("session:2", ExpiryOption::Relative(5));
  put("session:3", ExpiryOption::None());
  put("plain2", ExpiryOption::Absolute(kStart + 7));
  EXPECT_EQ(ReadRow("plain").expire_at_ms, kStart + 10'000);
  EXPECT_EQ(ReadRow("session:1").expire_at_ms, kStart + 60'000);
  EXPECT_EQ(ReadRow("keep:1").expire_at_ms, std::nullopt);
  EXPECT_EQ(ReadRow("session:2").expire_at_ms, kStart + 5);
  EXPECT_EQ(ReadRow("session:3").expire_at_ms, std::nullopt);
  EXPECT_EQ(ReadRow("plain2").expire_at_ms, kStart + 7);
  clock_->Set(kStart + 10'000);
  EXPECT_EQ(Read("plain"), "(nil)");
  EXPECT_EQ(Read("session:1"), "v");
  EXPECT_EQ(Read("session:2"), "(nil)");
  EXPECT_EQ(Read("keep:1"), "v");
}

TEST_F(KvTest, SetRangePadsOverwritesKeepsExpiryAndRespectsMaxLength) {
  OpResult<int64_t> length = kv().SetRange("r", 2, "ab", kStart, kStart + 9, 10);
  ASSERT_TRUE(length.ok());
  EXPECT_EQ(*length, 4);
  EXPECT_EQ(Read("r"), std::string("\0\0ab", 4));
  length = kv().SetRange("r", 1, "XYZ", kStart, std::nullopt, 10);
  ASSERT_TRUE(length.ok());
  EXPECT_EQ(*length, 4);
  KvRow row = ReadRow("r");
  EXPECT_EQ(row.value, std::string("\0XYZ", 4));
  EXPECT_EQ(row.expire_at_ms, kStart + 9);
  EXPECT_EQ(kv().SetRange("r", 8, "abc", kStart, std::nullopt, 10).status(), OpStatus::kTooLarge);
  EXPECT_EQ(kv().SetRange("r", std::numeric_limits<uint64_t>::max(), "a", kStart, std::nullopt, 10)
                .status(),
            OpStatus::kTooLarge);
  length = kv().SetRange("none", 3, "", kStart, std::nullopt, 10);
  ASSERT_TRUE(length.ok());
  EXPECT_EQ(*length, 0);
  EXPECT_EQ(Read("none"), "(nil)");
}

}  // namespace
}  // namespace ebb::types
