// TTL policy on every type (docs/expiry.md): a TREG's expiry renewed by each accepted SET, a
// TLOG's retention window on entries; type writes that win under every grace; whole-key deletes
// that outrank every version.
#include <gtest/gtest.h>

#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "storage/clock.h"
#include "storage/db/db_impl.h"
#include "tests/support/test_constants.h"
#include "tests/unit/types/types_fixture.h"
#include "types/keyspace.h"
#include "types/kv.h"
#include "types/tlog.h"
#include "types/treg.h"

namespace ebb::types {
namespace {

constexpr int64_t kFull = std::numeric_limits<int64_t>::max();

bool PrefixGlob(std::string_view pattern, std::string_view key) {
  if (!pattern.empty() && pattern.back() == '*') {
    return key.substr(0, pattern.size() - 1) == pattern.substr(0, pattern.size() - 1);
  }
  return pattern == key;
}

class ExpiryRulesTest : public TypesTest {
 protected:
  ExpiryRulesTest() : TypesTest(test::kTypesStartMs) {
    options_.memtable_size = 4 << 10;
    options_.target_file_size = 8 << 10;
  }
  void SetUp() override { Reopen(); }
  // Opens the keyspace (again) with the rules "w:*" 1s and "r:*" 500ms.
  void Reopen() {
    Open();
    ks_->set_ttl_policy(TtlPolicy(-1, {{"w:*", 1000}, {"r:*", 500}}, PrefixGlob));
  }
  // "[ts:value ...]|size|cutoff" of a log.
  std::string Log(std::string_view key) {
    Tlog log(*ks_, 0);
    const std::vector<TlogEntry> entries = Value(log.Get(key, UINT64_MAX));
    const uint64_t size = Value(log.Size(key));
    const uint64_t cutoff = Value(log.Cutoff(key));
    std::string out = "[";
    for (const TlogEntry& e : entries) {
      out += (out.size() > 1 ? " " : "") +
             std::to_string(static_cast<int64_t>(e.ts) - test::kTypesStartMs) + ":" + e.value;
    }
    return out + "]|" + std::to_string(size) + "|" + std::to_string(cutoff);
  }
  void Ins(std::string_view key, std::string_view value, int64_t offset) {
    Tlog log(*ks_, 0);
    ASSERT_TRUE(log.Insert(key, value, static_cast<uint64_t>(test::kTypesStartMs + offset)).ok());
  }
  bool Exists(std::string_view key) { return Value(ks_->Exists(0, key)); }
  std::optional<int64_t> ExpireAt(std::string_view key) { return Value(ks_->GetExpireAt(0, key)); }
  bool Expire(std::string_view key, int64_t at) { return Value(ks_->Expire(0, key, at, 0)); }
  bool Delete(std::string_view key) { return Value(ks_->Delete(0, key)); }
};

TEST_F(ExpiryRulesTest, ATregUnderARuleExpiresRenewedByEachAcceptedSet) {
  Treg reg(*ks_, 0);
  ASSERT_TRUE(reg.Set("r:1", "a", 5).ok());
  EXPECT_EQ(ExpireAt("r:1"), test::kTypesStartMs + 500);
  clock_->Advance(300);
  ASSERT_TRUE(reg.Set("r:1", "b", 6).ok());  // accepted: renewed
  EXPECT_EQ(ExpireAt("r:1"), test::kTypesStartMs + 800);
  clock_->Advance(100);
  ASSERT_TRUE(reg.Set("r:1", "old", 1).ok());  // ignored: not renewed
  EXPECT_EQ(ExpireAt("r:1"), test::kTypesStartMs + 800);
  clock_->Advance(400);
  EXPECT_FALSE(Exists("r:1"));
  // Without a rule a SET keeps a whole-key expiry.
  ASSERT_TRUE(reg.Set("plain", "a", 1).ok());
  ASSERT_TRUE(Expire("plain", clock_->NowMs() + 50));
  ASSERT_TRUE(reg.Set("plain", "b", 2).ok());
  EXPECT_EQ(ExpireAt("plain"), clock_->NowMs() + 50);
}

TEST_F(ExpiryRulesTest, ALogUnderARuleKeepsEachEntryForTheWindow) {
  Ins("w:log", "a", -500);  // entries at their own timestamps; window 1000 ms
  Ins("w:log", "b", 0);
  Ins("w:log", "c", 400);
  // ts + window <= now: expired on arrival, ignored
  EXPECT_EQ(Value(Tlog(*ks_, 0).Insert("w:log", "old",
                                       static_cast<uint64_t>(test::kTypesStartMs - 1000))),
            Tlog::InsertOutcome::kBelowRetention);
  EXPECT_EQ(Log("w:log"), "[400:c 0:b -500:a]|3|" + std::to_string(test::kTypesStartMs - 999));
  clock_->Advance(600);  // "a" leaves the window
  EXPECT_EQ(Log("w:log"), "[400:c 0:b]|2|" + std::to_string(test::kTypesStartMs - 399));
  ASSERT_TRUE(ks_->db().CompactAll().ok());
  EXPECT_EQ(Log("w:log"), "[400:c 0:b]|2|" + std::to_string(test::kTypesStartMs - 399));
  Reopen();
  EXPECT_EQ(Log("w:log"), "[400:c 0:b]|2|" + std::to_string(test::kTypesStartMs - 399));
  // The key lives until the window passes its newest entry.
  EXPECT_EQ(ExpireAt("w:log"), test::kTypesStartMs + 400 + 1000);
  clock_->Advance(799);
  EXPECT_TRUE(Exists("w:log"));
  EXPECT_EQ(Log("w:log"), "[400:c]|1|" + std::to_string(test::kTypesStartMs + 400));
  clock_->Advance(1);
  EXPECT_FALSE(Exists("w:log"));
  EXPECT_EQ(Log("w:log"), "[]|0|0");
}

TEST_F(ExpiryRulesTest, TrimAndClearOnAWindowedLog) {
  for (int i = 0; i < 5; i++) Ins("w:t", "v" + std::to_string(i), i * 10);
  Tlog log(*ks_, 0);
  ASSERT_TRUE(log.Trim("w:t", 2).ok());  // cutoff = ts of the 2nd newest
  EXPECT_EQ(Log("w:t"), "[40:v4 30:v3]|2|" + std::to_string(test::kTypesStartMs + 30));
  ASSERT_TRUE(log.Trim("w:t", 5).ok());  // fewer than 5: no change
  EXPECT_EQ(Log("w:t"), "[40:v4 30:v3]|2|" + std::to_string(test::kTypesStartMs + 30));
  ASSERT_TRUE(log.Clear("w:t").ok());
  EXPECT_EQ(Log("w:t"), "[]|0|" + std::to_string(test::kTypesStartMs + 41));
  EXPECT_TRUE(Exists("w:t"));  // its cutoff is above the window: still state
  clock_->Advance(1041);
  EXPECT_FALSE(Exists("w:t"));
}

TEST_F(ExpiryRulesTest, ALogCreatedWithoutARuleKeepsItsEntries) {
  Ins("plain", "a", -5000);
  ks_->set_ttl_policy(TtlPolicy(-1, {{"p*", 1000}}, PrefixGlob));
  Ins("plain", "b", -5000);  // the window is fixed when the log is created
  clock_->Advance(100'000);
  EXPECT_EQ(Log("plain"), "[-5000:b -5000:a]|2|0");
}

// A type write wins under every grace at once, and compaction keeps it: its metadata carries a
// timestamp >= every version's. A past DELETE is a version at its TS: it hides the log from
// reads that do not reach the log's version, and loses once versions merge — the log whole.
TEST_F(ExpiryRulesTest, ALogOverOutOfOrderVersionsStaysConsistentThroughCompaction) {
  Kv kv(*ks_, 0);
  ASSERT_TRUE(kv.Put({"k", "future", test::kTypesStartMs + 1'000'000, std::nullopt}).ok());
  ASSERT_TRUE(kv.Delete("k", 5).ok());
  KeyMetaRow meta;
  EXPECT_TRUE(ks_->GetMeta(0, "k", &meta).IsNotFound());  // grace 0: the tombstone
  Ins("k", "x", 0);  // absent at grace 0: a new log, stamped past the future string
  EXPECT_EQ(Log("k"), "[0:x]|1|0");
  ASSERT_TRUE(ks_->GetMeta(0, "k", &meta, kFull).ok());
  EXPECT_EQ(meta.type, KeyType::kTlog);
  ASSERT_TRUE(ks_->db().CompactAll().ok());
  EXPECT_EQ(Log("k"), "[0:x]|1|0");

  Ins("j", "a", 1);
  Ins("j", "b", 2);
  ASSERT_TRUE(kv.Delete("j", 5).ok());
  EXPECT_FALSE(Exists("j"));
  ks_->set_default_retrieval_grace(kFull);
  EXPECT_TRUE(Exists("j"));
  ks_->set_default_retrieval_grace(0);
  ASSERT_TRUE(ks_->db().CompactAll().ok());
  EXPECT_EQ(Log("j"), "[2:b 1:a]|2|0");  // metadata and entries agree
  Tlog log(*ks_, 0);
  ASSERT_TRUE(log.Clear("j").ok());
  EXPECT_EQ(Log("j"), "[]|0|" + std::to_string(test::kTypesStartMs + 3));
}

// DEL outranks every version whatever its timestamp, also one only a grace read sees.
TEST_F(ExpiryRulesTest, DeleteWipesWhatAnyGraceCouldRead) {
  Kv kv(*ks_, 0);
  ASSERT_TRUE(kv.Put({"d", "a", 200, std::nullopt}).ok());
  ASSERT_TRUE(kv.Delete("d", 100).ok());
  KeyMetaRow meta;
  ASSERT_TRUE(ks_->GetMeta(0, "d", &meta, 1000).ok());
  EXPECT_FALSE(Delete("d"));  // absent at the default grace
  EXPECT_TRUE(ks_->GetMeta(0, "d", &meta, kFull).IsNotFound());
  ASSERT_TRUE(ks_->db().CompactAll().ok());
  EXPECT_TRUE(ks_->GetMeta(0, "d", &meta, kFull).IsNotFound());
  // A key with no version at all costs no write.
  const uint64_t sequence = ks_->db().GetStats().last_sequence;
  EXPECT_FALSE(Delete("never"));
  EXPECT_EQ(ks_->db().GetStats().last_sequence, sequence);
}

TEST_F(ExpiryRulesTest, FlushDbRemovesEveryVersionOfEveryTypeInOneRecord) {
  Kv kv(*ks_, 0);
  ASSERT_TRUE(kv.Put({"f1", "future", test::kTypesStartMs + 1'000'000, std::nullopt}).ok());
  ASSERT_TRUE(kv.Put({"f1", "now", test::kTypesStartMs, std::nullopt}).ok());
  ASSERT_TRUE(kv.Put({"f2", "a", 200, std::nullopt}).ok());
  ASSERT_TRUE(kv.Delete("f2", 100).ok());
  Ins("log", "e", 0);
  Kv other(*ks_, 1);
  ASSERT_TRUE(other.Put({"kept", "v", test::kTypesStartMs, std::nullopt}).ok());
  ASSERT_TRUE(ks_->FlushDb(0).ok());
  KeyMetaRow meta;
  for (const char* key : {"f1", "f2", "log"}) {
    EXPECT_TRUE(ks_->GetMeta(0, key, &meta, kFull).IsNotFound()) << key;
  }
  EXPECT_EQ(Log("log"), "[]|0|0");
  EXPECT_EQ(Value(ks_->DbSize(0)), 0u);
  ASSERT_TRUE(ks_->db().CompactAll().ok());
  Reopen();
  for (const char* key : {"f1", "f2", "log"}) {
    EXPECT_TRUE(ks_->GetMeta(0, key, &meta, kFull).IsNotFound()) << key;
  }
  EXPECT_TRUE(ks_->GetMeta(1, "kept", &meta).ok());
  ASSERT_TRUE(ks_->FlushAll().ok());
  EXPECT_TRUE(ks_->GetMeta(1, "kept", &meta).IsNotFound());
}

// The entries of a log whose key expired (EXPIRE) carry no expiry of their own: compaction, on
// removing the expired metadata row, makes them due at once, so they are gone by the deadline.
TEST_F(ExpiryRulesTest, EntriesOfAnExpiredLogArePurgedByTheDeadline) {
  options_.purge_deadline_ms = 1000;
  Reopen();
  for (int i = 0; i < 50; i++) Ins("log", std::string(40, 'e') + std::to_string(i), i);
  ASSERT_TRUE(ks_->db().CompactAll().ok());  // the entries at the bottom
  ASSERT_TRUE(Expire("log", test::kTypesStartMs + 100));
  Kv kv(*ks_, 0);
  ASSERT_TRUE(kv.Put({"other", "v", test::kTypesStartMs, std::nullopt}).ok());
  ASSERT_TRUE(ks_->db().FlushMemtable().ok());
  clock_->Advance(100 + 500);  // expired, and due
  auto* impl = static_cast<storage::DBImpl*>(&ks_->db());
  for (int i = 0; i < 20 && impl->RunBackgroundCycle(); i++) {
  }
  const storage::Stats stats = ks_->db().GetStats();
  uint64_t entries = 0;
  for (const auto& level : stats.levels) entries += level.entries;
  EXPECT_EQ(entries, 2u);  // "other" and the version-hwm row: no entry of the log is left
  EXPECT_EQ(stats.purge_hints_pending, 0u);
}

}  // namespace
}  // namespace ebb::types
