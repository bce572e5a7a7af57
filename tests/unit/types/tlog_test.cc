// Tlog and Treg over a real engine: every answer equals the reference models TlogState and
// TregState, across flushes, compactions (which drop cut and orphaned sub-rows) and reopens.
#include "types/tlog.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <limits>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "storage/clock.h"
#include "tests/support/test_constants.h"
#include "tests/unit/types/types_fixture.h"
#include "types/keyspace.h"
#include "types/treg.h"

namespace ebb::types {
namespace {

class TlogTest : public TypesTest {
 protected:
  TlogTest() : TypesTest(1'000'000) {
    options_.memtable_size = 4 << 10;  // tiny: flushes and compactions happen constantly
    options_.target_file_size = 8 << 10;
    options_.level1_max_bytes = 32 << 10;
    options_.l0_compaction_trigger = 3;
  }

  Tlog log(int db = 0) { return Tlog(*ks_, db, heads_); }

  // The engine-backed log's full observable state, as a TlogState (read past any head cache,
  // and without refilling it).
  TlogState Observe(std::string_view key) {
    Tlog uncached(*ks_, 0, /*heads=*/nullptr);
    const std::vector<TlogEntry> entries = Value(uncached.Get(key, test::kMaxTimestamp));
    const uint64_t size = Value(uncached.Size(key));
    const uint64_t cutoff = Value(uncached.Cutoff(key));
    EXPECT_EQ(size, entries.size());
    TlogState s;
    s.TrimAt(cutoff);
    for (const TlogEntry& e : entries) s.Insert(e.value, e.ts);
    return s;
  }

  // Engine rows whose key starts with `prefix`, live or not yet dropped by compaction.
  size_t CountRows(const std::string& prefix) {
    storage::ReadOptions ro;
    ro.lower_bound = prefix;
    std::string upper = PrefixUpperBound(prefix);
    if (!upper.empty()) ro.upper_bound = upper;
    auto it = ks_->db().NewIterator(ro);
    size_t n = 0;
    for (it->SeekToFirst(); it->Valid(); it->Next()) ++n;
    return n;
  }

  // Random operations on a few keys, mirrored on the models; flushes, compactions and reopens
  // mixed in; every state compared. GETs ask for up to `max_get_count` - 1 entries. With
  // `grow`, most trims and clears become inserts, so logs outgrow a cached head.
  void RunRandomOperations(uint64_t seed, uint64_t max_get_count, bool grow = false);

  TlogHeadCache* heads_ = nullptr;  // what log() passes to Tlog
};

TEST_F(TlogTest, JylisTranscript) {
  Tlog t = log();
  ASSERT_TRUE(t.Insert("chat", "jemc: hello, world!", 1523258089149).ok());
  ASSERT_TRUE(t.Insert("chat", "world: hey jemc, how you been?", 1523258145906).ok());
  ASSERT_TRUE(t.Insert("chat", "world: must be nice...", 1523258158785).ok());
  ASSERT_TRUE(t.Insert("chat", "jemc: feeling pretty good these days", 1523258152362).ok());
  uint64_t n;
  n = Value(t.Size("chat"));
  EXPECT_EQ(n, 4u);
  std::vector<TlogEntry> got;
  got = Value(t.Get("chat", 1));
  EXPECT_EQ(got, (std::vector<TlogEntry>{{"world: must be nice...", 1523258158785}}));
  ASSERT_TRUE(t.Trim("chat", 3).ok());
  n = Value(t.Size("chat"));
  EXPECT_EQ(n, 3u);
  n = Value(t.Cutoff("chat"));
  EXPECT_EQ(n, 1523258145906u);
  ASSERT_TRUE(t.TrimAt("chat", 1523258152362).ok());
  n = Value(t.Size("chat"));
  EXPECT_EQ(n, 2u);
  got = Value(t.Get("chat", test::kMaxTimestamp));
  EXPECT_EQ(got, (std::vector<TlogEntry>{{"world: must be nice...", 1523258158785},
                                         {"jemc: feeling pretty good these days", 1523258152362}}));
  ASSERT_TRUE(t.Clear("chat").ok());
  got = Value(t.Get("chat", test::kMaxTimestamp));
  EXPECT_TRUE(got.empty());
  bool exists;
  exists = Value(ks_->Exists(0, "chat"));
  EXPECT_TRUE(exists);  // the cutoff is state
}

TEST_F(TlogTest, MissingKeyReadsAsEmptyAndTrimAtZeroCreatesNothing) {
  std::vector<TlogEntry> got;
  uint64_t n = 9;
  got = Value(log().Get("none", 10));
  EXPECT_TRUE(got.empty());
  n = Value(log().Size("none"));
  EXPECT_EQ(n, 0u);
  ASSERT_TRUE(log().Clear("none").ok());
  ASSERT_TRUE(log().Trim("none", 3).ok());
  ASSERT_TRUE(log().TrimAt("none", 0).ok());
  bool exists;
  exists = Value(ks_->Exists(0, "none"));
  EXPECT_FALSE(exists);
  ASSERT_TRUE(log().TrimAt("none", 5).ok());
  exists = Value(ks_->Exists(0, "none"));
  EXPECT_TRUE(exists);
  ASSERT_TRUE(log().Insert("none", "old", 4).ok());
  EXPECT_EQ(Observe("none").size(), 0u);
}

TEST_F(TlogTest, InsertSaysWhatItDidWithTheEntry) {
  EXPECT_EQ(Value(log().Insert("k", "a", 10)), Tlog::InsertOutcome::kAdded);
  EXPECT_EQ(Value(log().Insert("k", "a", 10)), Tlog::InsertOutcome::kDuplicate);
  EXPECT_EQ(Value(log().Insert("k", "b", 10)), Tlog::InsertOutcome::kAdded);
  ASSERT_TRUE(log().TrimAt("k", 8).ok());
  EXPECT_EQ(Value(log().Insert("k", "c", 7)), Tlog::InsertOutcome::kBelowCutoff);
  EXPECT_EQ(Value(log().Size("k")), 2u);
}

TEST_F(TlogTest, WrongTypeWritesNothing) {
  ASSERT_TRUE(Treg(*ks_, 0).Set("reg", "v", 1).ok());
  EXPECT_EQ(log().Insert("reg", "x", 1).status(), OpStatus::kWrongType);
  EXPECT_EQ(log().Get("reg", 1).status(), OpStatus::kWrongType);
  EXPECT_EQ(log().Size("reg").status(), OpStatus::kWrongType);
  EXPECT_EQ(log().Cutoff("reg").status(), OpStatus::kWrongType);
  EXPECT_EQ(log().TrimAt("reg", 3).status(), OpStatus::kWrongType);
  EXPECT_EQ(log().Trim("reg", 1).status(), OpStatus::kWrongType);
  EXPECT_EQ(log().Clear("reg").status(), OpStatus::kWrongType);
  ASSERT_TRUE(Treg(*ks_, 0).Set("reg2", "v", 1).ok());
  EXPECT_EQ(Value(Treg(*ks_, 0).Get("reg")), TregState("v", 1));
  ASSERT_TRUE(log().Insert("lg", "x", 1).ok());
  EXPECT_EQ(Treg(*ks_, 0).Set("lg", "v", 2).status(), OpStatus::kWrongType);
  EXPECT_EQ(Treg(*ks_, 0).Get("lg").status(), OpStatus::kWrongType);
}

TEST_F(TlogTest, ClearAtMaxTimestampEmptiesAndSaturates) {
  ASSERT_TRUE(log().Insert("k", "a", test::kMaxTimestamp).ok());
  ASSERT_TRUE(log().Insert("k", "b", 3).ok());
  ASSERT_TRUE(log().Clear("k").ok());
  TlogState expected;
  expected.Insert("a", test::kMaxTimestamp);
  expected.Insert("b", 3);
  expected.Clear();
  EXPECT_EQ(Observe("k"), expected);
  ASSERT_TRUE(ks_->db().CompactAll().ok());
  EXPECT_EQ(Observe("k"), expected);
  ASSERT_TRUE(log().Insert("k", "a", test::kMaxTimestamp).ok());
  expected.Insert("a", test::kMaxTimestamp);
  EXPECT_EQ(Observe("k"), expected);
}

TEST_F(TlogTest, DeleteDropsCutoffAndCompactionDropsCutAndOrphanedRows) {
  for (uint64_t i = 0; i < 50; ++i) ASSERT_TRUE(log().Insert("k", "v", i).ok());
  ASSERT_TRUE(log().TrimAt("k", 40).ok());
  // 0x02|db|len|"k": the sub-rows of every incarnation of "k".
  std::string sub_prefix = SubRowPrefix(0, "k", 0).substr(0, 4);
  ASSERT_EQ(CountRows(sub_prefix), 50u);
  ASSERT_TRUE(ks_->db().CompactAll().ok());
  EXPECT_EQ(CountRows(sub_prefix), 10u);  // the 40 cut entries are gone
  EXPECT_EQ(Observe("k").size(), 10u);
  bool deleted;
  deleted = Value(ks_->Delete(0, "k"));
  EXPECT_TRUE(deleted);
  EXPECT_FALSE(Observe("k").exists());
  ASSERT_TRUE(log().Insert("k", "new", 1).ok());  // a new incarnation: cutoff is 0 again
  TlogState expected;
  expected.Insert("new", 1);
  EXPECT_EQ(Observe("k"), expected);
  ASSERT_TRUE(ks_->db().CompactAll().ok());
  EXPECT_EQ(CountRows(sub_prefix), 1u);  // the old incarnation's rows were orphans
  EXPECT_EQ(Observe("k"), expected);
}

TEST_F(TlogTest, WritesKeepTheWholeKeyExpiry) {
  ASSERT_TRUE(log().Insert("k", "a", 1).ok());
  bool applied;
  applied = Value(ks_->Expire(0, "k", clock_->NowMs() + 1000, 0));
  EXPECT_TRUE(applied);
  ASSERT_TRUE(log().Insert("k", "b", 2).ok());
  ASSERT_TRUE(log().TrimAt("k", 2).ok());
  std::optional<int64_t> expire_at;
  expire_at = Value(ks_->GetExpireAt(0, "k"));
  EXPECT_EQ(expire_at, clock_->NowMs() + 1000);
  clock_->Advance(1000);
  EXPECT_FALSE(Observe("k").exists());
}

// An active-active expiry register (T, expire_at) in the metadata: once expire_at passes, the
// entries at or before T are hidden from GET, SIZE, TRIM and CLR but stay stored (Extent and
// HeldEntries see them, compaction keeps them), so a later register brings them back; CUTOFF and
// inserts are unchanged. A log holding nothing after T expires whole at expire_at, and writes
// continue it afterwards.
TEST_F(TlogTest, ExpiryRegisterHidesCoveredEntriesOnceItPasses) {
  const int64_t now = clock_->NowMs();
  for (auto [value, ts] : {std::pair{"a", 100}, {"b", 200}, {"c", 300}}) {
    ASSERT_TRUE(log().Insert("k", value, ts).ok());
  }
  ASSERT_TRUE(log().TrimAt("k", 50).ok());
  ASSERT_TRUE(log().SetExpiryRegister("k", {.ts = 250, .expire_at = now + 500}).ok());
  EXPECT_EQ(Value(log().Size("k")), 3u);
  EXPECT_EQ(Value(ks_->GetExpireAt(0, "k")), std::nullopt);  // c, after T, never expires
  clock_->Advance(500);
  const std::vector<TlogEntry> newest_only = {{"c", 300}};
  EXPECT_EQ(Value(log().Get("k", 10)), newest_only);
  EXPECT_EQ(Value(log().Size("k")), 1u);
  EXPECT_EQ(Value(log().Cutoff("k")), 50u);
  ASSERT_TRUE(log().Trim("k", 2).ok());  // one visible entry: nothing to trim
  EXPECT_EQ(Value(log().Cutoff("k")), 50u);
  ASSERT_TRUE(log().Insert("k", "d", 240).ok());  // covered: hidden at once
  EXPECT_EQ(Value(log().Get("k", 10)), newest_only);
  ASSERT_TRUE(ks_->db().CompactAll().ok());
  Open();
  uint64_t cutoff = 0;
  EXPECT_EQ(Value(log().HeldEntries("k", &cutoff)).size(), 4u);
  EXPECT_EQ(cutoff, 50u);
  const std::optional<TlogExtent> extent = Value(log().Extent("k"));
  ASSERT_TRUE(extent.has_value());
  EXPECT_EQ(extent->newest, 300u);
  ASSERT_TRUE(log().SetExpiryRegister("k", {.ts = 400}).ok());  // a later PERSIST
  const std::vector<TlogEntry> all = {{"c", 300}, {"d", 240}, {"b", 200}, {"a", 100}};
  EXPECT_EQ(Value(log().Get("k", 10)), all);
  EXPECT_EQ(Value(log().Size("k")), 4u);

  // Expired whole, then continued.
  ASSERT_TRUE(log().Insert("w", "x", 10).ok());
  ASSERT_TRUE(log().SetExpiryRegister("w", {.ts = 50, .expire_at = clock_->NowMs() + 100}).ok());
  EXPECT_EQ(Value(ks_->GetExpireAt(0, "w")), clock_->NowMs() + 100);
  clock_->Advance(100);
  EXPECT_FALSE(Value(ks_->Exists(0, "w")));
  EXPECT_TRUE(Value(log().Get("w", 10)).empty());
  EXPECT_TRUE(Value(log().Extent("w")).has_value());
  ASSERT_TRUE(log().Insert("w", "y", 20).ok());  // covered: the log stays expired
  EXPECT_FALSE(Value(ks_->Exists(0, "w")));
  ASSERT_TRUE(log().Insert("w", "z", 60).ok());  // after T: the log is live again, the same log
  EXPECT_EQ(Value(ks_->GetExpireAt(0, "w")), std::nullopt);
  const std::vector<TlogEntry> z_only = {{"z", 60}};
  EXPECT_EQ(Value(log().Get("w", 10)), z_only);
  ASSERT_TRUE(log().SetExpiryRegister("w", {.ts = 70}).ok());
  const std::vector<TlogEntry> revived = {{"z", 60}, {"y", 20}, {"x", 10}};
  EXPECT_EQ(Value(log().Get("w", 10)), revived);
  // A log with neither a live nor a register-expired incarnation: nothing.
  EXPECT_FALSE(Value(log().Extent("none")).has_value());
  ASSERT_TRUE(log().SetExpiryRegister("none", {.ts = 1}).ok());
  EXPECT_FALSE(Value(ks_->Exists(0, "none")));
}

TEST_F(TlogTest, TregKeepsGreatestPairAndSurvivesReopen) {
  Treg reg(*ks_, 1);
  EXPECT_EQ(reg.Get("r").status(), OpStatus::kNotFound);
  ASSERT_TRUE(reg.Set("r", "b", 5).ok());
  ASSERT_TRUE(reg.Set("r", "a", 5).ok());
  ASSERT_TRUE(reg.Set("r", "z", 4).ok());
  ASSERT_TRUE(reg.Set("r", std::string("\0", 1), test::kMaxTimestamp).ok());
  EXPECT_EQ(Value(reg.Get("r")), TregState(std::string("\0", 1), test::kMaxTimestamp));
  ASSERT_TRUE(ks_->db().CompactAll().ok());
  Open();
  EXPECT_EQ(Value(Treg(*ks_, 1).Get("r")), TregState(std::string("\0", 1), test::kMaxTimestamp));
  EXPECT_EQ(Treg(*ks_, 0).Get("r").status(), OpStatus::kNotFound);  // another database
}

void TlogTest::RunRandomOperations(uint64_t seed, uint64_t max_get_count, bool grow) {
  std::mt19937_64 rng(seed);
  std::map<std::string, TlogState> logs;
  const std::string keys[] = {"a", "b", std::string("c\0", 2)};
  for (int step = 0; step < 1500; ++step) {
    const std::string& key = keys[rng() % 3];
    TlogState& model = logs[key];
    uint64_t ts = rng() % 8 == 0 ? test::kMaxTimestamp - rng() % 2 : 100 + rng() % 40;
    std::string value(rng() % 3, 'x');
    for (char& c : value) c = static_cast<char>("\x00x\xff"[rng() % 3]);
    int op = static_cast<int>(rng() % 100);
    if (grow && op >= 60 && op < 84 && rng() % 4 != 0) op = 0;
    if (op < 60) {
      ASSERT_TRUE(log().Insert(key, value, ts).ok());
      model.Insert(value, ts);
    } else if (op < 70) {
      uint64_t at = 100 + rng() % 45;
      ASSERT_TRUE(log().TrimAt(key, at).ok());
      model.TrimAt(at);
    } else if (op < 80) {
      uint64_t count = rng() % 6;
      ASSERT_TRUE(log().Trim(key, count).ok());
      model.Trim(count);
    } else if (op < 84) {
      ASSERT_TRUE(log().Clear(key).ok());
      model.Clear();
    } else if (op < 87) {
      bool deleted;
      deleted = Value(ks_->Delete(0, key));
      EXPECT_EQ(deleted, model.exists());
      model = TlogState();
    } else if (op < 90) {
      uint64_t count = rng() % max_get_count;
      std::vector<TlogEntry> got;
      got = Value(log().Get(key, count));
      ASSERT_EQ(got, model.Get(count)) << "step " << step;
    } else if (op < 94) {
      ASSERT_TRUE(ks_->db().FlushMemtable().ok());
    } else if (op < 97) {
      ASSERT_TRUE(ks_->db().CompactAll().ok());
    } else {
      Open();
    }
    ASSERT_EQ(Observe(key), model) << "step " << step << " op " << op;
    bool exists;
    exists = Value(ks_->Exists(0, key));
    ASSERT_EQ(exists, model.exists()) << "step " << step;
  }
}

TEST_F(TlogTest, RandomOperationsMatchTheModel) { RunRandomOperations(31337, 5); }

// The same with a head cache: GETs answered from it (count <= kMaxEntries) or past it, heads
// kept by inserts, retired by trims, clears, DEL and reopens — always the model's answer.
TEST_F(TlogTest, RandomOperationsWithAHeadCacheMatchTheModel) {
  TlogHeadCache heads(1 << 20);
  heads_ = &heads;
  RunRandomOperations(4242, TlogHeadCache::kMaxEntries + 4, /*grow=*/true);
  EXPECT_GT(heads.hits(), 5u);
  EXPECT_GT(heads.misses(), 5u);
}

// A cache with room for about one head: constant eviction changes no answer.
TEST_F(TlogTest, RandomOperationsWithATinyHeadCacheMatchTheModel) {
  TlogHeadCache heads(2048);
  heads_ = &heads;
  RunRandomOperations(777, TlogHeadCache::kMaxEntries + 4, /*grow=*/true);
  EXPECT_LE(heads.bytes(), 2048u);
}

}  // namespace
}  // namespace ebb::types
