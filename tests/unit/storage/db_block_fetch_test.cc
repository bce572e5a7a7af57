// DB reads and writes carrying a BlockFetch: point reads and iterators want the blocks they do
// not find in memory (one round for everything one pass can find out), reruns finish, writes
// are refused after an incomplete read and end cache-only reads otherwise, reused iterator trees
// follow the current fetch, and tables are opened in the background so a read of a key on disk
// wants one block and a read of an absent key none.
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "storage/table/block_fetch.h"
#include "tests/unit/storage/db_test_fixture.h"

namespace ebb::storage {
namespace {

std::string K(int i) {
  char buf[16];
  std::snprintf(buf, sizeof(buf), "key%04d", i);
  return buf;
}
std::string V(int i) { return "value-" + std::to_string(i) + std::string(40, 'x'); }

class DBBlockFetchTest : public DBTest {
 protected:
  // 400 keys in table files at the last level, then a reopen with a block cache that keeps
  // nothing (every block comes from the disk; only a fetch's pins carry a rerun), once every
  // table is open.
  void SetUp() override {
    options_.compression = Compression::kNone;  // several files, many blocks each
    Open();
    for (int i = 0; i < 400; ++i) Put(K(i), V(i));
    ASSERT_TRUE(db_->CompactAll().ok());
    options_.block_cache_size = 0;
    Reopen();
    const int files = TotalFiles();
    ASSERT_GT(files, 1);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (db_->GetStats().open_tables < static_cast<uint64_t>(files) &&
           std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    ASSERT_EQ(db_->GetStats().open_tables, static_cast<uint64_t>(files));
  }

  Status GetThrough(BlockFetch* fetch, const std::string& key, std::string* value) {
    ReadOptions ro;
    ro.block_fetch = fetch;
    Row row;
    Status s = db_->Get(ro, key, &row);
    if (s.ok()) *value = row.value;
    return s;
  }
};

TEST_F(DBBlockFetchTest, APointReadOfAKeyOnDiskWantsOneBlockAndAnAbsentKeyNone) {
  BlockFetch fetch;
  fetch.BeginPass(true);
  std::string value;
  Status s = GetThrough(&fetch, K(123), &value);
  ASSERT_TRUE(s.IsIncomplete()) << s.ToString();
  EXPECT_EQ(fetch.wants().size(), 1u);
  fetch.ReadAndFillAll();
  fetch.BeginPass(true);
  ASSERT_TRUE(GetThrough(&fetch, K(123), &value).ok());
  EXPECT_EQ(value, V(123));
  fetch.Release();

  // Keys between the stored ones: the bloom filters rule (nearly) all of them out unread.
  fetch.BeginPass(true);
  size_t absent_reads = 0;
  for (int i = 0; i < 400; ++i) {
    s = GetThrough(&fetch, K(i) + "-absent", &value);
    EXPECT_TRUE(s.IsNotFound() || s.IsIncomplete()) << s.ToString();
    absent_reads += s.IsIncomplete() ? 1 : 0;
  }
  EXPECT_LE(absent_reads, 12u);  // 10 bits per key: about 1% false positives
  EXPECT_EQ(fetch.wants().size(), absent_reads);
}

TEST_F(DBBlockFetchTest, OnePassAsksForEveryKeysBlockAtOnce) {
  BlockFetch fetch;
  std::vector<int> keys;
  for (int i = 0; i < 400; i += 20) keys.push_back(i);
  std::string value;
  fetch.BeginPass(true);
  for (int k : keys) ASSERT_TRUE(GetThrough(&fetch, K(k), &value).IsIncomplete());
  EXPECT_EQ(fetch.wants().size(), keys.size());  // 20 keys 20 apart: one block each
  fetch.ReadAndFillAll();
  fetch.BeginPass(true);
  for (int k : keys) {
    ASSERT_TRUE(GetThrough(&fetch, K(k), &value).ok());
    EXPECT_EQ(value, V(k));
  }
  EXPECT_FALSE(fetch.incomplete());
  EXPECT_EQ(fetch.rounds(), 1u);
  EXPECT_EQ(fetch.inline_reads(), 0u);
}

TEST_F(DBBlockFetchTest, AnIteratorWantsBlocksUntilItsRangeIsInMemory) {
  // The same range read inline, for reference.
  ReadOptions plain;
  plain.lower_bound = K(100);
  plain.upper_bound = K(160);
  const std::string want = Scan(plain);
  ASSERT_FALSE(want.empty());

  BlockFetch fetch;
  ReadOptions ro = plain;
  ro.block_fetch = &fetch;
  std::string got;
  for (int round = 0; round < 100; ++round) {
    fetch.BeginPass(true);
    auto it = db_->NewIterator(ro);
    got.clear();
    for (it->Seek(K(100)); it->Valid(); it->Next()) {
      if (!got.empty()) got += ",";
      got += std::string(it->key()) + "=" + std::string(it->value());
    }
    if (!fetch.incomplete()) {
      EXPECT_TRUE(it->status().ok()) << it->status().ToString();
      break;
    }
    EXPECT_TRUE(it->status().IsIncomplete()) << it->status().ToString();
    fetch.ReadAndFillAll();
  }
  EXPECT_FALSE(fetch.incomplete());
  EXPECT_EQ(got, want);
  EXPECT_GE(fetch.rounds(), 1u);
  EXPECT_EQ(fetch.inline_reads(), 0u);
}

TEST_F(DBBlockFetchTest, AReusedIteratorTreeReadsThroughTheCurrentFetchOnly) {
  {
    BlockFetch first;
    first.BeginPass(true);
    ReadOptions ro;
    ro.block_fetch = &first;
    auto it = db_->NewIterator(ro);
    it->Seek(K(10));
    EXPECT_TRUE(first.incomplete());
  }                                           // the tree goes back to the DB; `first` is gone
  auto it = db_->NewIterator(ReadOptions());  // the same tree, reading inline now
  it->Seek(K(10));
  ASSERT_TRUE(it->Valid()) << it->status().ToString();
  EXPECT_EQ(it->value(), V(10));
  EXPECT_GE(db_->GetStats().iterator_trees_reused, 1u);
}

TEST_F(DBBlockFetchTest, AWriteAfterAnIncompleteReadIsRefusedAndChangesNothing) {
  BlockFetch fetch;
  fetch.BeginPass(true);
  std::string value;
  ASSERT_TRUE(GetThrough(&fetch, K(5), &value).IsIncomplete());
  WriteOptions wo;
  wo.block_fetch = &fetch;
  EXPECT_TRUE(db_->Put(wo, K(5), "new").IsIncomplete());
  EXPECT_TRUE(db_->Delete(wo, K(6)).IsIncomplete());
  EXPECT_EQ(Get(K(5)), V(5));
  EXPECT_EQ(Get(K(6)), V(6));

  // A pass that writes first reads inline after the write: it cannot run again.
  fetch.Release();
  fetch.BeginPass(true);
  ASSERT_TRUE(db_->Put(wo, K(5), "new").ok());
  EXPECT_FALSE(fetch.cache_only());
  ASSERT_TRUE(GetThrough(&fetch, K(300), &value).ok());
  EXPECT_EQ(value, V(300));
  EXPECT_EQ(fetch.inline_reads(), 1u);
  EXPECT_FALSE(fetch.incomplete());
}

}  // namespace
}  // namespace ebb::storage
