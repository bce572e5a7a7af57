// A write batch holding range deletions (a transaction with FLUSHDB or FLUSHALL in it) is one
// durable unit: after a crash or power cut at any moment — before its WAL record is durable,
// between that and the manifest edit naming its deletions, or after — either all of the batch
// holds (the writes before the deletion gone with the range, those after it present) or none.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <random>
#include <string>
#include <thread>

#include "tests/unit/storage/db_fault_fixture.h"

namespace ebb::storage {
namespace {

class DBRangeBatchTest : public DBFaultTest {
 protected:
  // Batch n: "o:<n>" outside the range, "r:pre<n>" inside it before the deletion of ["r:", "r;"),
  // then "r:<n>" inside it after.
  static WriteBatch Transaction(int n) {
    WriteBatch batch;
    batch.Put(WriteOptions(), "o:" + std::to_string(n), "v", 0);
    batch.Put(WriteOptions(), "r:pre" + std::to_string(n), "v", 0);
    batch.DeleteRange({"r:", "r;"});
    batch.Put(WriteOptions(), "r:" + std::to_string(n), "v", 0);
    return batch;
  }
  // The keys of the range, in order.
  std::vector<std::string> RangeKeys() {
    std::vector<std::string> keys;
    ReadOptions ro;
    auto it = db_->NewIterator(ro);
    for (it->Seek("r:"); it->Valid() && it->key() < "r;"; it->Next()) {
      keys.emplace_back(it->key());
    }
    return keys;
  }
};

TEST_F(DBRangeBatchTest, AppliesInOrderAndSurvivesReopen) {
  Open();
  ASSERT_TRUE(db_->Put(WriteOptions(), "r:old", "v").ok());
  ASSERT_TRUE(db_->Put(WriteOptions(), "s:kept", "v").ok());
  ASSERT_TRUE(db_->FlushMemtable().ok());
  ASSERT_TRUE(db_->Put(WriteOptions(), "r:mem", "v").ok());
  ASSERT_TRUE(db_->Write(WriteOptions(), Transaction(1)).ok());
  EXPECT_EQ(RangeKeys(), std::vector<std::string>{"r:1"});
  EXPECT_EQ(Get("o:1"), "v");
  EXPECT_EQ(Get("s:kept"), "v");
  EXPECT_EQ(db_->LastSequence(), 7u);  // 3 puts, then 4 entries (the deletion takes one)
  Reopen();
  EXPECT_EQ(RangeKeys(), std::vector<std::string>{"r:1"});
  EXPECT_EQ(Get("o:1"), "v");
  EXPECT_EQ(db_->LastSequence(), 7u);
  ASSERT_TRUE(db_->CompactAll().ok());
  EXPECT_EQ(RangeKeys(), std::vector<std::string>{"r:1"});
  EXPECT_EQ(db_->GetStats().range_deletions_pending, 0u);
}

// The crash falls between the batch's WAL sync and its manifest edit: the write fails (not
// acknowledged), and the restart's replay applies the batch whole from its WAL record.
TEST_F(DBRangeBatchTest, CrashBetweenWalAndManifestReplaysTheWholeBatch) {
  Open();
  ASSERT_TRUE(db_->Put(WriteOptions(), "r:old", "v").ok());
  fs_->SetPathFilter("MANIFEST");
  fs_->SetFailWrites(true);
  EXPECT_FALSE(db_->Write(WriteOptions(), Transaction(1)).ok());
  EXPECT_EQ(Get("r:old"), "v");  // nothing of it is visible in this run
  EXPECT_EQ(Get("o:1"), "NOT_FOUND");
  PowerCutAndReopen();
  EXPECT_EQ(RangeKeys(), std::vector<std::string>{"r:1"});
  EXPECT_EQ(Get("o:1"), "v");
  EXPECT_EQ(db_->GetStats().range_deletions_pending, 1u);  // recorded by the replay
  ASSERT_TRUE(db_->CompactAll().ok());
  Reopen();
  EXPECT_EQ(RangeKeys(), std::vector<std::string>{"r:1"});
  EXPECT_EQ(db_->GetStats().range_deletions_pending, 0u);
}

// The WAL record never becomes durable: after the cut nothing of the batch is there.
TEST_F(DBRangeBatchTest, UnsyncedBatchIsLostWhole) {
  Open();
  ASSERT_TRUE(db_->Put(WriteOptions(), "r:old", "v").ok());
  ASSERT_TRUE(db_->FlushMemtable().ok());  // the batch's record goes to the current WAL
  fs_->SetPathFilter(".log");
  fs_->SetFailSyncs(true);
  EXPECT_FALSE(db_->Write(WriteOptions(), Transaction(1)).ok());
  EXPECT_EQ(Get("o:1"), "NOT_FOUND");
  PowerCutAndReopen();
  EXPECT_EQ(RangeKeys(), std::vector<std::string>{"r:old"});
  EXPECT_EQ(Get("o:1"), "NOT_FOUND");
}

// Power cuts at random moments while a writer alternates single puts into the range with
// batches that delete it (8 KiB memtables: flushes and compactions run all the time). After
// each cut the state is the one after some whole batch: the last batch standing is the last
// acknowledged one or the one in flight, every "o:" key up to it is there, and the range holds
// exactly that batch's "r:<n>" and the single puts acknowledged after it.
TEST_F(DBRangeBatchTest, PowerCutsLeaveWholeBatches) {
  options_.memtable_size = 8 << 10;
  Open();
  std::mt19937_64 rng(std::random_device{}());
  const uint64_t seed = rng();
  std::printf("range batch power cut seed %llu\n", static_cast<unsigned long long>(seed));
  int next = 1;  // the next batch's number, across cycles
  for (int cycle = 0; cycle < 20; cycle++) {
    std::atomic<int> acked{next - 1};  // the last acknowledged batch
    std::atomic<int> singles_after{0};
    std::thread writer([&, first = next] {
      for (int n = first; n < first + 100'000; n++) {
        if (!db_->Write(WriteOptions(), Transaction(n)).ok()) return;
        acked = n;
        singles_after = 0;
        for (int i = 0; i < 3; i++) {
          const std::string key = "r:" + std::to_string(n) + "s" + std::to_string(i);
          if (!db_->Put(WriteOptions(), key, std::string(300, 'x')).ok()) return;
          singles_after = i + 1;
        }
      }
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(5 + rng() % 40));
    fs_->Freeze();
    writer.join();
    PowerCutAndReopen(seed + cycle);
    const int last = acked.load();
    // Which batch stands: the one whose "r:<n>" the range holds.
    const std::vector<std::string> keys = RangeKeys();
    ASSERT_FALSE(keys.empty() && last > 0) << "cycle " << cycle;
    if (keys.empty()) {
      // The cut came before the first batch reached the WAL: none stands, none was acknowledged.
      ASSERT_EQ(Get("o:" + std::to_string(next)), "NOT_FOUND") << "cycle " << cycle;
      continue;
    }
    const int standing = std::stoi(keys.front().substr(2));
    ASSERT_TRUE(standing == last || standing == last + 1)
        << "cycle " << cycle << ": batch " << standing << " stands, " << last << " acknowledged";
    std::vector<std::string> expected{"r:" + std::to_string(standing)};
    for (size_t i = 1; i < keys.size(); i++) {
      expected.push_back("r:" + std::to_string(standing) + "s" + std::to_string(i - 1));
    }
    ASSERT_EQ(keys, expected) << "cycle " << cycle;
    if (standing == last) {
      // Every single put acknowledged after the batch survived (wal-fsync always).
      ASSERT_GE(static_cast<int>(keys.size()) - 1, singles_after.load()) << "cycle " << cycle;
    } else {
      ASSERT_EQ(keys.size(), 1u) << "cycle " << cycle;
    }
    for (int n = 1; n <= standing; n++) {
      ASSERT_EQ(Get("o:" + std::to_string(n)), "v") << "cycle " << cycle << " batch " << n;
    }
    ASSERT_EQ(Get("o:" + std::to_string(standing + 1)), "NOT_FOUND") << "cycle " << cycle;
    next = standing + 1;
  }
}

}  // namespace
}  // namespace ebb::storage
