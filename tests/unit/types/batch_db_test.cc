// BatchDB and Keyspace batches: pending writes are read through (Get under the read rule,
// iterators merged both ways), reach the engine only at Commit, as one write, and vanish on
// Discard.
#include "types/batch_db.h"

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <string>
#include <vector>

#include "storage/db.h"
#include "tests/support/test_seed.h"
#include "tests/unit/types/types_fixture.h"

namespace ebb::types {
namespace {

class BatchDbTest : public TypesTest {
 protected:
  void PutBase(const std::string& key, const std::string& value) {
    ASSERT_TRUE(ks_->db().Put(storage::WriteOptions(), key, value).ok());
  }
  static std::string Get(storage::DB& db, const std::string& key, int64_t grace = 0) {
    storage::ReadOptions options;
    options.retrieval_grace_ms = grace;
    storage::Row row;
    const storage::Status s = db.Get(options, key, &row);
    return s.ok() ? row.value : s.IsNotFound() ? "<none>" : s.ToString();
  }
  // Get's answer read through GetPinned.
  static std::string GetPinned(storage::DB& db, const std::string& key) {
    storage::PinnedRow row;
    const storage::Status s = db.GetPinned(storage::ReadOptions(), key, &row);
    return s.ok() ? std::string(row.value()) : s.IsNotFound() ? "<none>" : s.ToString();
  }
  static std::string Forward(storage::DB& db, std::string_view from = {}) {
    std::string out;
    auto it = db.NewIterator(storage::ReadOptions());
    for (it->Seek(from); it->Valid(); it->Next()) out += std::string(it->key()) + " ";
    return out;
  }
  static std::string Backward(storage::DB& db) {
    std::string out;
    auto it = db.NewIterator(storage::ReadOptions());
    for (it->SeekToLast(); it->Valid(); it->Prev()) out += std::string(it->key()) + " ";
    return out;
  }
};

TEST_F(BatchDbTest, ReadsSeePendingWritesOnTopOfTheEngine) {
  PutBase("a", "1");
  PutBase("c", "3");
  PutBase("e", "5");
  BatchDB batch(&ks_->db());
  storage::WriteOptions w;
  ASSERT_TRUE(batch.Put(w, "b", "2").ok());
  ASSERT_TRUE(batch.Delete(w, "c").ok());
  ASSERT_TRUE(batch.Put(w, "e", "55").ok());
  ASSERT_TRUE(batch.Put(w, "g", "7").ok());
  storage::WriteBatch wipe;
  wipe.Wipe(w, "g");
  ASSERT_TRUE(batch.Write(w, wipe).ok());
  EXPECT_EQ(Get(batch, "a"), "1");
  EXPECT_EQ(Get(batch, "b"), "2");
  EXPECT_EQ(Get(batch, "c"), "<none>");
  EXPECT_EQ(Get(batch, "e"), "55");
  EXPECT_EQ(Get(batch, "g"), "<none>");
  for (const char* key : {"a", "b", "c", "e", "g"}) {
    EXPECT_EQ(GetPinned(batch, key), Get(batch, key)) << key;
  }
  EXPECT_EQ(Forward(batch), "a b e ");
  EXPECT_EQ(Forward(batch, "c"), "e ");
  EXPECT_EQ(Backward(batch), "e b a ");
  auto it = batch.NewIterator(storage::ReadOptions());
  it->SeekForPrev("d");
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ(it->key(), "b");
  // The engine saw nothing yet.
  EXPECT_EQ(Get(ks_->db(), "b"), "<none>");
  EXPECT_EQ(Forward(ks_->db()), "a c e ");
  ASSERT_TRUE(batch.Commit(w).ok());
  EXPECT_EQ(Forward(ks_->db()), "a b e ");
  EXPECT_EQ(Get(ks_->db(), "e"), "55");
}

// Under include_dead a pending tombstone or expired value shows its key, as the engine's own
// dead versions do; a pending wipe still hides it.
TEST_F(BatchDbTest, IncludeDeadShowsPendingDeadVersions) {
  PutBase("a", "1");
  PutBase("d", "4");
  ASSERT_TRUE(ks_->db().Delete(storage::WriteOptions(), "e").ok());
  BatchDB batch(&ks_->db());
  storage::WriteOptions w;
  ASSERT_TRUE(batch.Delete(w, "b").ok());
  storage::WriteOptions expired;
  expired.expire_at_ms = 1;
  ASSERT_TRUE(batch.Put(expired, "c", "3").ok());
  storage::WriteBatch wipe;
  wipe.Wipe(w, "d");
  ASSERT_TRUE(batch.Write(w, wipe).ok());
  ASSERT_TRUE(batch.Put(w, "f", "6").ok());
  storage::ReadOptions options;
  options.include_dead = true;
  std::string keys;
  auto it = batch.NewIterator(options);
  for (it->SeekToFirst(); it->Valid(); it->Next()) keys += std::string(it->key()) + " ";
  EXPECT_EQ(keys, "a b c e f ");
  EXPECT_EQ(Forward(batch), "a f ");
}

// A batch after a committed or discarded one reuses its index's nodes: none of their keys or
// versions shows through.
TEST_F(BatchDbTest, ALaterBatchSeesNothingOfAnEarlierOnesIndex) {
  PutBase("a", "1");
  BatchDB batch(&ks_->db());
  storage::WriteOptions w;
  const std::string long_key(300, 'l');  // longer than a kept node's key may be
  ASSERT_TRUE(batch.Put(w, "b", "2").ok());
  for (int i = 0; i < 20; i++) ASSERT_TRUE(batch.Put(w, "c", "v" + std::to_string(i)).ok());
  ASSERT_TRUE(batch.Put(w, long_key, "x").ok());
  ASSERT_TRUE(batch.Delete(w, "a").ok());
  ASSERT_TRUE(batch.Commit(w).ok());
  EXPECT_EQ(Forward(ks_->db()), "b c " + long_key + " ");

  ASSERT_TRUE(batch.Put(w, "d", "4").ok());
  ASSERT_TRUE(batch.Put(w, "a", "11").ok());
  EXPECT_EQ(Get(batch, "a"), "11");
  EXPECT_EQ(Get(batch, "c"), "v19");  // the engine's, not a pending version kept in a node
  EXPECT_EQ(Get(batch, "d"), "4");
  EXPECT_EQ(Forward(batch), "a b c d " + long_key + " ");
  batch.Discard();
  EXPECT_EQ(Get(batch, "d"), "<none>");
  EXPECT_EQ(Get(batch, "a"), "<none>");

  ASSERT_TRUE(batch.Delete(w, "c").ok());
  ASSERT_TRUE(batch.Put(w, "e", "5").ok());
  EXPECT_EQ(Get(batch, "c"), "<none>");
  EXPECT_EQ(Forward(batch), "b e " + long_key + " ");
  EXPECT_EQ(Backward(batch), long_key + " e b ");
  ASSERT_TRUE(batch.Commit(w).ok());
  EXPECT_EQ(Forward(ks_->db()), "b e " + long_key + " ");
}

// Writes are indexed when a read needs them: reads between writes, range deletions between
// them, and an iterator that lives while the batch is written all see every write made before
// them, as if each had been indexed when made.
TEST_F(BatchDbTest, ReadsSeeEveryWriteMadeBeforeThemWhateverTheOrder) {
  PutBase("a", "1");
  PutBase("k", "2");
  PutBase("z", "3");
  BatchDB batch(&ks_->db());
  storage::WriteOptions w;
  ASSERT_TRUE(batch.Put(w, "b", "4").ok());
  EXPECT_EQ(Get(batch, "b"), "4");
  ASSERT_TRUE(batch.Put(w, "c", "5").ok());
  ASSERT_TRUE(batch.DeleteRange({storage::KeyRange{"a", "c"}}).ok());  // a and b, not c
  ASSERT_TRUE(batch.Put(w, "b", "6").ok());                            // after it: stays
  EXPECT_EQ(Get(batch, "a"), "<none>");
  EXPECT_EQ(Get(batch, "b"), "6");
  EXPECT_EQ(Get(batch, "c"), "5");
  EXPECT_EQ(Forward(batch), "b c k z ");

  auto it = batch.NewIterator(storage::ReadOptions());
  it->Seek("c");
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ(it->key(), "c");
  ASSERT_TRUE(batch.Put(w, "m", "7").ok());  // ahead of the cursor: the walk meets it
  ASSERT_TRUE(batch.Delete(w, "z").ok());    // ahead of the cursor: the walk skips it
  std::string rest;
  for (it->Next(); it->Valid(); it->Next()) rest += std::string(it->key()) + " ";
  EXPECT_EQ(rest, "k m ");

  std::vector<storage::VersionRow> versions;
  ASSERT_TRUE(batch.Put(w, "k", "8").ok());
  ASSERT_TRUE(batch.GetVersions(storage::ReadOptions(), "k", &versions).ok());
  ASSERT_EQ(versions.size(), 2u);
  EXPECT_EQ(versions[0].value, "8");
  EXPECT_EQ(versions[1].value, "2");
  ASSERT_TRUE(batch.Commit(w).ok());
  EXPECT_EQ(Forward(ks_->db()), "b c k m ");
  EXPECT_EQ(Get(ks_->db(), "k"), "8");
}

TEST_F(BatchDbTest, GraceReadsChooseAmongPendingAndEngineVersions) {
  storage::WriteOptions at100;
  at100.timestamp_ms = 100;
  ASSERT_TRUE(ks_->db().Put(at100, "k", "engine@100").ok());
  BatchDB batch(&ks_->db());
  storage::WriteOptions at50;
  at50.timestamp_ms = 50;
  ASSERT_TRUE(batch.Put(at50, "k", "pending@50").ok());
  EXPECT_EQ(Get(batch, "k", 0), "pending@50");  // the most recently written
  EXPECT_EQ(Get(batch, "k", 1), "engine@100");  // 100 > 50 - 1: the greatest timestamp
  storage::WriteOptions at200;
  at200.timestamp_ms = 200;
  ASSERT_TRUE(batch.Put(at200, "k", "pending@200").ok());
  EXPECT_EQ(Get(batch, "k", 1000), "pending@200");
  ASSERT_TRUE(batch.Delete(at200, "k").ok());  // a tombstone at the same timestamp, newer
  EXPECT_EQ(Get(batch, "k", 1000), "<none>");
}

TEST_F(BatchDbTest, KeyspaceBatchDiscardLeavesNothing) {
  ks_->BeginBatch();
  ASSERT_TRUE(ks_->db().Put(storage::WriteOptions(), "x", "1").ok());
  EXPECT_EQ(ks_->batch_pending_count(), 1u);
  EXPECT_EQ(Get(ks_->db(), "x"), "1");
  ks_->DiscardBatch();
  EXPECT_EQ(Get(ks_->db(), "x"), "<none>");
  Open();
  EXPECT_EQ(Get(ks_->db(), "x"), "<none>");
}

// A keyspace reuses the batch it last ended for the next one (keyspace.h): nothing pending, no
// index and no range deletion of the earlier batch reaches a later one.
TEST_F(BatchDbTest, KeyspaceBatchesAfterACommitAndADiscardStartEmpty) {
  PutBase("a", "1");
  PutBase("m", "2");
  ks_->BeginBatch();
  ASSERT_TRUE(ks_->db().DeleteRange({storage::KeyRange{"a", "b"}}).ok());
  ASSERT_TRUE(ks_->db().Put(storage::WriteOptions(), "p", "3").ok());
  EXPECT_EQ(Get(ks_->db(), "a"), "<none>");
  ks_->DiscardBatch();

  ks_->BeginBatch();
  EXPECT_EQ(ks_->batch_pending_count(), 0u);
  EXPECT_EQ(Get(ks_->db(), "a"), "1");  // the discarded batch's range deletion is gone
  EXPECT_EQ(Get(ks_->db(), "p"), "<none>");
  EXPECT_EQ(Forward(ks_->db()), "a m ");
  ASSERT_TRUE(ks_->db().Put(storage::WriteOptions(), "q", "4").ok());
  ASSERT_TRUE(ks_->CommitBatch().ok());

  ks_->BeginBatch();
  EXPECT_EQ(ks_->batch_pending_count(), 0u);
  ASSERT_TRUE(ks_->db().Delete(storage::WriteOptions(), "q").ok());
  EXPECT_EQ(Get(ks_->db(), "q"), "<none>");
  ks_->DiscardBatch();
  EXPECT_EQ(Get(ks_->db(), "q"), "4");  // committed once, not again by the later batch

  // A batch larger than what is kept is not reused; the next one still starts empty.
  ks_->BeginBatch();
  const std::string big(100 * 1024, 'x');
  ASSERT_TRUE(ks_->db().Put(storage::WriteOptions(), "big", big).ok());
  ASSERT_TRUE(ks_->CommitBatch().ok());
  ks_->BeginBatch();
  EXPECT_EQ(ks_->batch_pending_count(), 0u);
  EXPECT_EQ(Forward(ks_->db()), "a big m q ");
  ks_->DiscardBatch();
}

// A batch that deletes no range finds a key's pending versions through the chains of written keys:
// GetVersions gives them newest first over the engine's, and a pending wipe ends the walk; an
// iterator's index in between changes nothing.
TEST_F(BatchDbTest, GetVersionsWalksThePendingVersionsDownToAWipe) {
  PutBase("k", "base");
  PutBase("other", "o");
  BatchDB batch(&ks_->db());
  storage::WriteOptions w;
  ASSERT_TRUE(batch.Put(w, "k", "v1").ok());
  EXPECT_EQ(Get(batch, "k"), "v1");  // the batch is read: the next writes are chained as made
  ASSERT_TRUE(batch.Put(w, "other", "o2").ok());
  ASSERT_TRUE(batch.Put(w, "k", "v2").ok());
  auto values = [&batch](const std::string& key) {
    std::vector<storage::VersionRow> versions;
    const storage::Status s = batch.GetVersions(storage::ReadOptions(), key, &versions);
    std::string out = s.ok() ? "" : s.ToString();
    for (const storage::VersionRow& v : versions) out += v.value + " ";
    return out;
  };
  EXPECT_EQ(values("k"), "v2 v1 base ");
  EXPECT_EQ(Forward(batch), "k other ");
  storage::WriteBatch wipe;
  wipe.Wipe(w, "k");
  ASSERT_TRUE(batch.Write(w, wipe).ok());
  EXPECT_EQ(values("k"), "");
  EXPECT_EQ(Get(batch, "k"), "<none>");
  ASSERT_TRUE(batch.Put(w, "k", "v3").ok());
  EXPECT_EQ(values("k"), "v3 ");
  EXPECT_EQ(values("other"), "o2 o ");
  EXPECT_EQ(GetPinned(batch, "k"), "v3");
  ASSERT_TRUE(batch.Commit(w).ok());
  EXPECT_EQ(Get(ks_->db(), "k"), "v3");
}

// Reads through a batch (Get and GetPinned) answer as a map of the writes would, through the chains
// of written keys and through the index: random Puts, Deletes and reads over 12,000 keys (the
// chains' table doubling several times), then an appended batch (whose keys are chained when a
// read next asks) and a range deletion, after which every read goes through the index.
TEST_F(BatchDbTest, ReadsMatchAModelOfTheWritesThroughTheChainsAndTheIndex) {
  std::mt19937_64 rng(ebb::test::TestSeed(7));
  std::map<std::string, std::string> model;  // "<none>" for a deleted key
  for (int i = 0; i < 2000; i++) {
    const std::string key = "k" + std::to_string(i);
    PutBase(key, "base" + std::to_string(i));
    model[key] = "base" + std::to_string(i);
  }
  BatchDB batch(&ks_->db());
  storage::WriteOptions w;
  auto key_of = [&rng] { return "k" + std::to_string(rng() % 12000); };
  auto check = [&](const std::string& key) {
    const auto it = model.find(key);
    const std::string expected = it == model.end() ? "<none>" : it->second;
    return Get(batch, key) == expected && GetPinned(batch, key) == expected;
  };
  auto round = [&](int ops) {
    for (int i = 0; i < ops; i++) {
      const std::string key = key_of();
      switch (rng() % 3) {
        case 0:
          ASSERT_TRUE(batch.Put(w, key, "v" + std::to_string(i)).ok());
          model[key] = "v" + std::to_string(i);
          break;
        case 1:
          ASSERT_TRUE(batch.Delete(w, key).ok());
          model[key] = "<none>";
          break;
        default:
          ASSERT_TRUE(check(key)) << key;
      }
    }
  };
  round(20000);
  storage::WriteBatch appended;
  appended.Put(w, "k1", "appended", 0);
  ASSERT_TRUE(batch.Write(w, appended).ok());
  model["k1"] = "appended";
  EXPECT_EQ(Get(batch, "k1"), "appended");
  ASSERT_TRUE(batch.DeleteRange({storage::KeyRange{"k5", "k6"}}).ok());
  for (auto it = model.lower_bound("k5"); it != model.end() && it->first < "k6"; ++it) {
    it->second = "<none>";
  }
  round(5000);
  for (const auto& [key, value] : model) ASSERT_TRUE(check(key)) << key;
  ASSERT_TRUE(batch.Commit(w).ok());
  for (const auto& [key, value] : model) {
    ASSERT_EQ(Get(ks_->db(), key), value) << key;
  }
}

}  // namespace
}  // namespace ebb::types
