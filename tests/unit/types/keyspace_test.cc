// Keyspace's generic operations over a real engine in a temp dir, with a manual clock: expiry is
// invisible at once to every operation, databases are separate, EXPIRE's conditions follow
// Redis 7, SCAN iterations are complete under concurrent changes, and state survives reopening.
#include "types/keyspace.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <limits>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "storage/clock.h"
#include "tests/support/test_constants.h"
#include "tests/unit/types/types_fixture.h"

namespace ebb::types {
namespace {

class KeyspaceTest : public TypesTest {
 protected:
  KeyspaceTest() : TypesTest(test::kTypesStartMs) {}

  // A string key as the string commands write it: one metadata row holding the value.
  void PutString(int db, std::string_view key, std::string_view value,
                 std::optional<int64_t> expire_at = std::nullopt,
                 std::optional<int64_t> ts = std::nullopt) {
    storage::WriteOptions options = ks_->WriteOptions();
    options.timestamp_ms = ts.value_or(clock_->NowMs());
    options.expire_at_ms = expire_at;
    ASSERT_TRUE(
        ks_->db().Put(options, MetaKey(db, key), EncodeMetaValue(KeyType::kString, value)).ok());
  }

  bool Exists(int db, std::string_view key) { return Value(ks_->Exists(db, key)); }
  std::optional<KeyType> Type(int db, std::string_view key) { return Value(ks_->Type(db, key)); }
  uint64_t DbSize(int db) { return Value(ks_->DbSize(db)); }
  std::vector<std::string> Keys(int db, const KeyMatcher* match = nullptr) {
    return Value(ks_->Keys(db, match));
  }
  // A full SCAN iteration; `between` runs after each step (bounded by the key count).
  std::vector<std::string> ScanAll(int db, size_t count, std::optional<KeyType> type = std::nullopt,
                                   const std::function<void(int)>& between = nullptr) {
    std::vector<std::string> keys;
    uint64_t cursor = 0;
    for (int step = 0; step < 100000; ++step) {
      const ScanResult result = Value(ks_->Scan(db, cursor, nullptr, count, type));
      keys.insert(keys.end(), result.keys.begin(), result.keys.end());
      cursor = result.cursor;
      if (cursor == 0) break;
      if (between) between(step);
    }
    EXPECT_EQ(cursor, 0u) << "SCAN did not finish";
    return keys;
  }
  bool Expire(int db, std::string_view key, int64_t at, uint32_t flags = 0) {
    return Value(ks_->Expire(db, key, at, flags));
  }
  std::optional<int64_t> ExpireAt(int db, std::string_view key) {
    return Value(ks_->GetExpireAt(db, key));
  }
};

TEST_F(KeyspaceTest, GetMetaReturnsTypePayloadAndRowMeta) {
  KeyMetaRow meta;
  EXPECT_TRUE(ks_->GetMeta(0, "k", &meta).IsNotFound());
  PutString(0, "k", "hello", test::kTypesStartMs + 5000, test::kTypesStartMs - 7);
  ASSERT_TRUE(ks_->GetMeta(0, "k", &meta).ok());
  EXPECT_EQ(meta.type, KeyType::kString);
  EXPECT_EQ(meta.payload, "hello");
  EXPECT_EQ(meta.meta.timestamp_ms, test::kTypesStartMs - 7);
  EXPECT_EQ(meta.meta.expire_at_ms, test::kTypesStartMs + 5000);
}

TEST_F(KeyspaceTest, ExpiredKeysVanishAtOnceFromEveryOperation) {
  PutString(0, "stay", "v");
  PutString(0, "go", "v", test::kTypesStartMs + 1000);
  EXPECT_TRUE(Exists(0, "go"));
  EXPECT_EQ(DbSize(0), 2u);
  DbStats stats = ks_->GetDbStats(0);
  EXPECT_EQ(stats.keys, 2u);
  EXPECT_EQ(stats.expires, 1u);
  EXPECT_EQ(stats.avg_ttl_ms, 1000u);

  clock_->Advance(999);
  EXPECT_TRUE(Exists(0, "go"));
  clock_->Advance(1);  // expire_at <= now: gone
  EXPECT_FALSE(Exists(0, "go"));
  EXPECT_EQ(Type(0, "go"), std::nullopt);
  EXPECT_EQ(DbSize(0), 1u);
  EXPECT_EQ(Keys(0), std::vector<std::string>{"stay"});
  EXPECT_EQ(ScanAll(0, 10), std::vector<std::string>{"stay"});
  stats = ks_->GetDbStats(0);
  EXPECT_EQ(stats.keys, 1u);
  EXPECT_EQ(stats.expires, 0u);
  EXPECT_EQ(stats.avg_ttl_ms, 0u);
  EXPECT_EQ(ks_->GetExpireAt(0, "go").status(), OpStatus::kNotFound);
  EXPECT_FALSE(Value(ks_->Delete(0, "go")));
}

TEST_F(KeyspaceTest, DatabasesAreSeparateKeyspaces) {
  PutString(0, "k", "zero");
  PutString(1, "k", "one");
  PutString(255, "other", "x");
  EXPECT_EQ(DbSize(0), 1u);
  EXPECT_EQ(DbSize(1), 1u);
  EXPECT_EQ(DbSize(2), 0u);
  EXPECT_EQ(Keys(255), std::vector<std::string>{"other"});
  ASSERT_TRUE(ks_->FlushDb(1).ok());
  EXPECT_FALSE(Exists(1, "k"));
  EXPECT_TRUE(Exists(0, "k"));
  EXPECT_TRUE(Exists(255, "other"));
  ASSERT_TRUE(ks_->FlushAll().ok());
  EXPECT_EQ(DbSize(0), 0u);
  EXPECT_EQ(DbSize(255), 0u);
}

TEST_F(KeyspaceTest, DeleteReportsExistenceAndWinsOverOutOfOrderVersions) {
  PutString(0, "k", "future", std::nullopt,
            test::kTypesStartMs + 10'000);  // written first, later ts
  PutString(0, "k", "now", std::nullopt, test::kTypesStartMs);
  EXPECT_TRUE(Value(ks_->Delete(0, "k")));
  KeyMetaRow meta;
  EXPECT_TRUE(ks_->GetMeta(0, "k", &meta).IsNotFound());
  EXPECT_TRUE(ks_->GetMeta(0, "k", &meta, std::numeric_limits<int64_t>::max()).IsNotFound());
  EXPECT_TRUE(ks_->GetMeta(0, "k", &meta, 20'000).IsNotFound());
  EXPECT_FALSE(Value(ks_->Delete(0, "k")));
}

TEST_F(KeyspaceTest, ExpireSetsReplacesAndPersistRemoves) {
  EXPECT_FALSE(Expire(0, "missing", test::kTypesStartMs + 1000));
  PutString(0, "k", "v", std::nullopt, test::kTypesStartMs - 3);
  EXPECT_EQ(ExpireAt(0, "k"), std::nullopt);
  EXPECT_TRUE(Expire(0, "k", test::kTypesStartMs + 1000));
  EXPECT_EQ(ExpireAt(0, "k"), test::kTypesStartMs + 1000);
  KeyMetaRow meta;
  ASSERT_TRUE(ks_->GetMeta(0, "k", &meta).ok());
  EXPECT_EQ(meta.payload, "v");                                // value kept
  EXPECT_EQ(meta.meta.timestamp_ms, test::kTypesStartMs - 3);  // timestamp kept

  EXPECT_TRUE(Value(ks_->Persist(0, "k")));
  EXPECT_EQ(ExpireAt(0, "k"), std::nullopt);
  EXPECT_FALSE(Value(ks_->Persist(0, "k")));  // nothing to remove
  EXPECT_FALSE(Value(ks_->Persist(0, "missing")));
}

TEST_F(KeyspaceTest, ExpireConditionsFollowRedis7) {
  PutString(0, "p", "v");  // persistent
  EXPECT_FALSE(Expire(0, "p", test::kTypesStartMs + 100, kExpireXx));
  EXPECT_FALSE(
      Expire(0, "p", test::kTypesStartMs + 100, kExpireGt));  // infinite TTL is never exceeded
  EXPECT_TRUE(
      Expire(0, "p", test::kTypesStartMs + 100, kExpireLt));  // anything is less than infinite
  EXPECT_EQ(ExpireAt(0, "p"), test::kTypesStartMs + 100);

  EXPECT_FALSE(Expire(0, "p", test::kTypesStartMs + 200, kExpireNx));
  EXPECT_FALSE(Expire(0, "p", test::kTypesStartMs + 50, kExpireGt));
  EXPECT_FALSE(Expire(0, "p", test::kTypesStartMs + 100, kExpireGt));  // equal is not greater
  EXPECT_TRUE(Expire(0, "p", test::kTypesStartMs + 200, kExpireGt | kExpireXx));
  EXPECT_FALSE(Expire(0, "p", test::kTypesStartMs + 300, kExpireLt));
  EXPECT_TRUE(Expire(0, "p", test::kTypesStartMs + 150, kExpireLt));
  EXPECT_EQ(ExpireAt(0, "p"), test::kTypesStartMs + 150);

  PutString(0, "q", "v");
  EXPECT_TRUE(Expire(0, "q", test::kTypesStartMs + 10, kExpireNx));
  EXPECT_EQ(ExpireAt(0, "q"), test::kTypesStartMs + 10);
}

TEST_F(KeyspaceTest, ExpireInThePastDeletesAndCountsAnExpiredKey) {
  PutString(0, "k", "v");
  EXPECT_EQ(ks_->expired_keys(), 0u);
  EXPECT_TRUE(Expire(0, "k", test::kTypesStartMs));  // expire_at == now: already expired
  EXPECT_FALSE(Exists(0, "k"));
  EXPECT_EQ(ks_->expired_keys(), 1u);
  EXPECT_FALSE(Expire(0, "k", test::kTypesStartMs - 1));  // missing now
  EXPECT_EQ(ks_->expired_keys(), 1u);
}

TEST_F(KeyspaceTest, ReadsCountEachExpiryOnce) {
  PutString(0, "k", "v", test::kTypesStartMs + 10);
  PutString(0, "deleted", "v");
  ASSERT_TRUE(Value(ks_->Delete(0, "deleted")));
  clock_->Advance(10);
  EXPECT_FALSE(Exists(0, "k"));
  EXPECT_EQ(ks_->expired_keys(), 1u);
  EXPECT_FALSE(Exists(0, "k"));  // the same expiry again: not counted twice
  EXPECT_EQ(Type(0, "k"), std::nullopt);
  EXPECT_EQ(ks_->expired_keys(), 1u);
  EXPECT_FALSE(Exists(0, "deleted"));  // deleted, not expired
  EXPECT_FALSE(Exists(0, "never"));
  EXPECT_EQ(ks_->expired_keys(), 1u);
  PutString(0, "k", "again", test::kTypesStartMs + 20);  // a new version that expires later
  clock_->Advance(10);
  EXPECT_FALSE(Exists(0, "k"));
  EXPECT_EQ(ks_->expired_keys(), 2u);
  EXPECT_FALSE(Exists(1, "k"));  // another database's "k" never existed
  EXPECT_EQ(ks_->expired_keys(), 2u);
}

TEST_F(KeyspaceTest, ExpiriesAndTypesSurviveReopenExactly) {
  PutString(0, "a", "1", test::kTypesStartMs + 12'345);
  PutString(3, "b", "2");
  ASSERT_TRUE(Expire(3, "b", test::kTypesStartMs + 777));
  Open();
  EXPECT_EQ(ExpireAt(0, "a"), test::kTypesStartMs + 12'345);
  EXPECT_EQ(ExpireAt(3, "b"), test::kTypesStartMs + 777);
  EXPECT_EQ(Type(3, "b"), KeyType::kString);
  clock_->Set(test::kTypesStartMs + 777);
  EXPECT_FALSE(Exists(3, "b"));
  EXPECT_TRUE(Exists(0, "a"));
}

TEST_F(KeyspaceTest, VersionsAreUniqueAcrossReopenEvenWhenTheClockGoesBack) {
  std::set<uint64_t> seen;
  for (int round = 0; round < 3; ++round) {
    for (int i = 0; i < 100; ++i) {
      uint64_t v = 0;
      ASSERT_TRUE(ks_->NewVersion(&v).ok());
      EXPECT_GT(v, 0u);
      EXPECT_TRUE(seen.insert(v).second) << "version " << v << " handed out twice";
    }
    clock_->Set(test::kTypesStartMs - 1'000'000 * (round + 1));
    Open();
  }
}

TEST_F(KeyspaceTest, ScanVisitsEveryKeyOnceInSteps) {
  std::set<std::string> expected;
  for (int i = 0; i < 57; ++i) {
    std::string key = "key:" + std::to_string(i);
    PutString(0, key, "v");
    expected.insert(key);
  }
  PutString(1, "elsewhere", "v");
  for (size_t count : {1u, 5u, 10u, 57u, 1000u}) {
    std::vector<std::string> keys = ScanAll(0, count);
    EXPECT_EQ(keys.size(), expected.size()) << "count " << count;
    EXPECT_EQ(std::set<std::string>(keys.begin(), keys.end()), expected);
  }
  const ScanResult first = Value(ks_->Scan(0, 0, nullptr, 5, std::nullopt));
  EXPECT_EQ(first.keys.size(), 5u);
  // The next key ("key:13" in byte order after key:0, key:1, key:10..12) has six bytes: the
  // cursor holds it (compact), so it survives a reopen and the iteration goes on where it was.
  EXPECT_EQ(first.cursor, (uint64_t{6} << 48) | 0x6b65793a3133);
  Open();
  const ScanResult second = Value(ks_->Scan(0, first.cursor, nullptr, 1, std::nullopt));
  EXPECT_EQ(second.keys, std::vector<std::string>{"key:13"});
}

TEST_F(KeyspaceTest, ScanCursorsOfLongKeysAreKeptByTheKeyspace) {
  const std::string prefix(200, 'p');
  std::set<std::string> expected;
  for (int i = 0; i < 30; ++i) {
    expected.insert(prefix + std::to_string(i));
    PutString(0, prefix + std::to_string(i), "v");
  }
  const ScanResult first = Value(ks_->Scan(0, 0, nullptr, 10, std::nullopt));
  ASSERT_GE(first.cursor, ScanCursors::kTableBase);
  EXPECT_LT(first.cursor, uint64_t{1} << 53);
  // Any number of iterations side by side: each cursor goes on where it was.
  std::vector<uint64_t> cursors;
  for (int i = 0; i < 1000; ++i) cursors.push_back(Value(ks_->Scan(0, 0, nullptr, 7, {})).cursor);
  EXPECT_EQ(Value(ks_->Scan(0, first.cursor, nullptr, 100, {})).keys.size(), 20u);
  EXPECT_EQ(Value(ks_->Scan(0, cursors[0], nullptr, 100, {})).keys.size(), 23u);
  EXPECT_EQ(ScanAll(0, 3).size(), expected.size());
  // A reopened keyspace has not handed them out: an error, never a silent restart.
  Open();
  EXPECT_EQ(ks_->Scan(0, first.cursor, nullptr, 10, {}).status(), OpStatus::kInvalidCursor);
  EXPECT_EQ(ks_->Scan(0, cursors[999], nullptr, 10, {}).status(), OpStatus::kInvalidCursor);
  EXPECT_EQ(ks_->Scan(0, 1, nullptr, 10, {}).status(), OpStatus::kInvalidCursor);
}

TEST_F(KeyspaceTest, ScanFiltersByMatcherAndType) {
  PutString(0, "user:1", "v");
  PutString(0, "user:2", "v");
  PutString(0, "item:1", "v");
  std::string treg_payload = "opaque";
  ASSERT_TRUE(ks_->db()
                  .Put(ks_->WriteOptions(), MetaKey(0, "user:reg"),
                       EncodeMetaValue(KeyType::kTreg, treg_payload))
                  .ok());
  KeyMatcher users = [](std::string_view k) { return k.starts_with("user:"); };
  const ScanResult result = Value(ks_->Scan(0, 0, &users, 100, std::nullopt));
  EXPECT_EQ(result.keys, (std::vector<std::string>{"user:1", "user:2", "user:reg"}));
  EXPECT_EQ(result.cursor, 0u);
  EXPECT_EQ(ScanAll(0, 2, KeyType::kTreg), std::vector<std::string>{"user:reg"});
  EXPECT_EQ(ScanAll(0, 2, KeyType::kTlog), std::vector<std::string>{});
  EXPECT_EQ(Keys(0, &users), (std::vector<std::string>{"user:1", "user:2", "user:reg"}));
}

TEST_F(KeyspaceTest, ScanStartsAtTheKeyACompactCursorHolds) {
  PutString(0, "a", "v");
  PutString(0, "\xf0", "v");
  const ScanResult result = Value(ks_->Scan(0, (uint64_t{1} << 48) | 0xea, nullptr, 10, {}));
  EXPECT_EQ(result.keys, std::vector<std::string>{"\xf0"});
  EXPECT_EQ(result.cursor, 0u);
  EXPECT_EQ(ks_->Scan(0, UINT64_MAX, nullptr, 10, {}).status(), OpStatus::kInvalidCursor);
}

TEST_F(KeyspaceTest, ScanReturnsEveryKeyPresentThroughoutWhileKeysComeAndGo) {
  std::set<std::string> stable;
  for (int i = 0; i < 200; i += 2) {
    std::string key = "k" + std::to_string(1000 + i);
    PutString(0, key, "v");
    stable.insert(key);
  }
  for (int i = 1; i < 200; i += 2) PutString(0, "k" + std::to_string(1000 + i), "v");
  // Between steps: delete one odd key and add a new key on each side of the cursor.
  int next_new = 0;
  std::vector<std::string> keys = ScanAll(0, 7, std::nullopt, [&](int step) {
    EXPECT_TRUE(ks_->Delete(0, "k" + std::to_string(1001 + 2 * step)).ok());
    PutString(0, "a" + std::to_string(next_new), "v");
    PutString(0, "z" + std::to_string(next_new++), "v");
  });
  std::set<std::string> got(keys.begin(), keys.end());
  EXPECT_EQ(got.size(), keys.size()) << "a key was returned twice";
  EXPECT_TRUE(got.count("z0")) << "a key added ahead of the cursor is found";
  for (const std::string& key : stable) EXPECT_TRUE(got.count(key)) << key;
}

TEST_F(KeyspaceTest, RandomKeyReturnsLiveKeysOnly) {
  std::optional<std::string> key = Value(ks_->RandomKey(0));
  EXPECT_EQ(key, std::nullopt);
  PutString(0, "bar", "v");
  PutString(0, "foo", "v");
  PutString(0, "gone", "v", test::kTypesStartMs + 1);
  clock_->Advance(1);
  std::set<std::string> seen;
  for (int i = 0; i < 200 && seen.size() < 2; ++i) {
    key = Value(ks_->RandomKey(0));
    ASSERT_TRUE(key.has_value());
    seen.insert(*key);
  }
  EXPECT_EQ(seen, (std::set<std::string>{"bar", "foo"}));
}

TEST_F(KeyspaceTest, FlushDbRemovesExpiringAndOutOfOrderKeys) {
  PutString(0, "a", "v", test::kTypesStartMs + 100);
  PutString(0, "b", "future", std::nullopt, test::kTypesStartMs + 50'000);
  ASSERT_TRUE(ks_->FlushDb(0).ok());
  EXPECT_EQ(DbSize(0), 0u);
  KeyMetaRow meta;
  EXPECT_TRUE(ks_->GetMeta(0, "b", &meta, 1'000'000).IsNotFound());
  Open();
  EXPECT_EQ(DbSize(0), 0u);
}

TEST_F(KeyspaceTest, WriteOptionsCarryDeferSync) {
  EXPECT_FALSE(ks_->WriteOptions().defer_sync);
  ks_->set_defer_sync(true);
  EXPECT_TRUE(ks_->WriteOptions().defer_sync);
  EXPECT_FALSE(ks_->WriteOptions().timestamp_ms.has_value());
}

// ForEachSystemRow walks the system rows under a prefix in name order, through an open batch,
// none of another prefix nor a data row, and stops at the first error its function returns.
TEST_F(KeyspaceTest, ForEachSystemRowWalksOnePrefixThroughTheBatch) {
  ASSERT_TRUE(ks_->PutSystemRow("walk:b", "2").ok());
  ASSERT_TRUE(ks_->PutSystemRow("walk:a", "1").ok());
  ASSERT_TRUE(ks_->PutSystemRow("walker", "x").ok());
  ASSERT_TRUE(ks_->PutSystemRow("other:a", "y").ok());
  PutString(0, "walk:c", "data");
  ks_->BeginBatch();
  ASSERT_TRUE(ks_->db().Put(ks_->WriteOptions(), Keyspace::SystemRowKey("walk:c"), "3").ok());
  std::vector<std::string> seen;
  auto collect = [&](std::string_view name, std::string_view value) {
    seen.push_back(std::string(name) + "=" + std::string(value));
    return storage::Status::OK();
  };
  ASSERT_TRUE(ks_->ForEachSystemRow("walk:", collect).ok());
  EXPECT_EQ(seen, (std::vector<std::string>{"walk:a=1", "walk:b=2", "walk:c=3"}));
  seen.clear();
  const storage::Status stopped =
      ks_->ForEachSystemRow("walk:", [&](std::string_view name, std::string_view value) {
        collect(name, value);
        return storage::Status::Corruption("stop");
      });
  EXPECT_TRUE(stopped.IsCorruption());
  EXPECT_EQ(seen, (std::vector<std::string>{"walk:a=1"}));
  ks_->DiscardBatch();
}

}  // namespace
}  // namespace ebb::types
