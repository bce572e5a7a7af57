// Power cuts at random moments: a writer puts and deletes while flushes and compactions run,
// the file system freezes (nothing more reaches the disk), everything not fsynced is lost — a
// seeded half of the unsynced pages is kept and the rest zeroed, and the file creations and
// renames no directory fsync covered are undone — and the DB reopens.
//  - wal-fsync always: every acknowledged put is there with its value, every acknowledged delete
//    stays deleted; the one write in flight at the cut may have landed or not.
//  - everysec: what survives is the state after some prefix of the writes, at least every write
//    acknowledged before the last SyncWal that returned: a point in time, never a mix.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "tests/unit/storage/db_fault_fixture.h"

namespace ebb::storage {
namespace {

constexpr int kKeys = 300;
constexpr int kCycles = 25;

class DBPowerCutTest : public DBFaultTest {
 protected:
  DBPowerCutTest() {
    options_.memtable_size = 8 << 10;  // flushes and compactions all the time
    options_.wal_fsync = WalFsync::kAlways;
  }
};

// What the writer knows: the acknowledged value of each key (nullopt: deleted), and the write
// it was making when the disk froze.
struct PowerCutModel {
  std::map<std::string, std::optional<std::string>> acked;
  std::string in_flight_key;
  std::optional<std::string> in_flight_value;
  int acked_writes = 0;
};

void WriteUntilFrozen(DB* db, uint64_t seed, PowerCutModel* model) {
  std::mt19937_64 rng(seed);
  for (int i = 0; i < 1'000'000; i++) {
    const std::string key = "key" + std::to_string(rng() % kKeys);
    std::optional<std::string> value;
    if (rng() % 4 != 0)
      value = "v" + std::to_string(seed) + "-" + std::to_string(i) + std::string(rng() % 200, 'x');
    model->in_flight_key = key;
    model->in_flight_value = value;
    const Status s = value ? db->Put(WriteOptions(), key, *value) : db->Delete(WriteOptions(), key);
    if (!s.ok()) return;  // frozen: this write may or may not have reached the disk
    model->acked[key] = value;
    model->acked_writes++;
  }
}

TEST_F(DBPowerCutTest, AcknowledgedPutsAndDeletesSurviveTornPowerCuts) {
  Open();
  std::mt19937_64 rng(std::random_device{}());
  const uint64_t seed = rng();
  std::printf("power cut seed %llu\n", static_cast<unsigned long long>(seed));
  PowerCutModel model;
  uint64_t lost_bytes = 0;
  for (int cycle = 0; cycle < kCycles; cycle++) {
    std::thread writer(WriteUntilFrozen, db_.get(), seed + cycle, &model);
    std::this_thread::sleep_for(std::chrono::milliseconds(5 + rng() % 60));
    fs_->Freeze();
    writer.join();
    PowerCutAndReopen(seed + cycle);
    lost_bytes += fs_->last_drop().bytes_lost;
    for (const auto& [key, value] : model.acked) {
      const std::string got = Get(key);
      if (key == model.in_flight_key) {
        const std::string landed = model.in_flight_value.value_or("NOT_FOUND");
        ASSERT_TRUE(got == value.value_or("NOT_FOUND") || got == landed)
            << "cycle " << cycle << " " << key << " -> " << got;
        continue;
      }
      ASSERT_EQ(got, value.value_or("NOT_FOUND")) << "cycle " << cycle << " " << key;
    }
    // The in-flight write is settled now: read back what the DB holds.
    const std::string settled = Get(model.in_flight_key);
    model.acked[model.in_flight_key] =
        settled == "NOT_FOUND" ? std::nullopt : std::optional<std::string>(settled);
  }
  EXPECT_GT(model.acked_writes, 0);
  std::printf("power cuts: %d cycles, %d acknowledged writes, %llu unsynced bytes lost\n", kCycles,
              model.acked_writes, static_cast<unsigned long long>(lost_bytes));
}

struct Op {
  std::string key;
  std::optional<std::string> value;  // nullopt: a delete
};

// Writes until the disk freezes, calling SyncWal every `sync_every` writes; *synced_prefix is
// the number of writes the last successful SyncWal covered. The write in flight at the freeze
// ends `ops`.
void WriteAndSyncUntilFrozen(DB* db, uint64_t seed, int sync_every, std::vector<Op>* ops,
                             size_t* synced_prefix) {
  std::mt19937_64 rng(seed);
  for (int i = 0; i < 1'000'000; i++) {
    Op op{"key" + std::to_string(rng() % kKeys), std::nullopt};
    if (rng() % 4 != 0) {
      op.value =
          "v" + std::to_string(seed) + "-" + std::to_string(i) + std::string(rng() % 200, 'x');
    }
    ops->push_back(op);
    const Status s =
        op.value ? db->Put(WriteOptions(), op.key, *op.value) : db->Delete(WriteOptions(), op.key);
    if (!s.ok()) return;
    if (i % sync_every == sync_every - 1) {
      if (!db->SyncWal().ok()) return;
      *synced_prefix = ops->size();
    }
  }
}

TEST_F(DBPowerCutTest, EverysecPowerCutsLeaveAPointInTimeNoOlderThanTheLastSync) {
  options_.wal_fsync = WalFsync::kEverySec;
  Open();
  std::mt19937_64 rng(std::random_device{}());
  const uint64_t seed = rng();
  std::printf("power cut seed %llu\n", static_cast<unsigned long long>(seed));
  std::map<std::string, std::optional<std::string>> state;  // what the DB held after the last cut
  uint64_t writes = 0, lost_writes = 0, lost_bytes = 0;
  for (int cycle = 0; cycle < kCycles; cycle++) {
    std::vector<Op> ops;
    size_t synced_prefix = 0;
    std::thread writer(WriteAndSyncUntilFrozen, db_.get(), seed + cycle, 50, &ops, &synced_prefix);
    std::this_thread::sleep_for(std::chrono::milliseconds(5 + rng() % 60));
    fs_->Freeze();
    writer.join();
    const uint64_t synced = db_->SyncedSequence();  // no sync succeeds once frozen
    PowerCutAndReopen(seed + cycle);
    lost_bytes += fs_->last_drop().bytes_lost;
    // Every write the DB said was synced is there.
    ASSERT_GE(db_->LastSequence(), synced) << "cycle " << cycle;
    EXPECT_EQ(db_->SyncedSequence(), db_->LastSequence()) << "the replayed WAL is synced";
    // Replay the writes over the previous state; the DB must match it after some prefix of at
    // least synced_prefix writes. `mismatched` counts the keys where they differ.
    std::map<std::string, std::string> observed;
    for (int k = 0; k < kKeys; k++)
      observed["key" + std::to_string(k)] = Get("key" + std::to_string(k));
    auto expected = [&](const std::string& key) {
      auto it = state.find(key);
      return it == state.end() || !it->second ? std::string("NOT_FOUND") : *it->second;
    };
    size_t mismatched = 0;
    for (const auto& [key, got] : observed) mismatched += got != expected(key);
    std::optional<size_t> matched_at;
    for (size_t n = 0; n <= ops.size(); n++) {
      if (n >= synced_prefix && mismatched == 0) {
        matched_at = n;
        break;
      }
      if (n == ops.size()) break;
      const Op& op = ops[n];
      const bool was_wrong = observed[op.key] != expected(op.key);
      state[op.key] = op.value;
      mismatched += static_cast<size_t>(observed[op.key] != expected(op.key)) -
                    static_cast<size_t>(was_wrong);
    }
    ASSERT_TRUE(matched_at.has_value())
        << "cycle " << cycle << ": the DB matches no point in time after the last sync ("
        << synced_prefix << " of " << ops.size() << " writes synced)";
    state.clear();
    for (const auto& [key, got] : observed) {
      if (got != "NOT_FOUND") state[key] = got;
    }
    writes += ops.size();
    lost_writes += ops.size() - *matched_at;
  }
  EXPECT_GT(writes, 0u);
  std::printf(
      "everysec power cuts: %d cycles, %llu writes, %llu lost (unsynced), %llu unsynced "
      "bytes lost\n",
      kCycles, static_cast<unsigned long long>(writes),
      static_cast<unsigned long long>(lost_writes), static_cast<unsigned long long>(lost_bytes));
}

// SyncedSequence: what a power cut cannot take back. Under wal-fsync no nothing syncs by itself,
// so it stays behind the unsynced writes until SyncWal, and the power cut keeps exactly what it
// said; under always it follows each write, and with defer_sync it waits for SyncWal.
TEST_F(DBPowerCutTest, SyncedSequenceCountsWhatAPowerCutLeaves) {
  options_.wal_fsync = WalFsync::kNo;
  Open();
  const uint64_t opened = db_->SyncedSequence();
  EXPECT_EQ(opened, db_->LastSequence());
  ASSERT_TRUE(db_->Put(WriteOptions(), "a", "1").ok());
  ASSERT_TRUE(db_->Put(WriteOptions(), "b", "1").ok());
  EXPECT_EQ(db_->SyncedSequence(), opened);
  ASSERT_TRUE(db_->SyncWal().ok());
  const uint64_t synced = db_->SyncedSequence();
  EXPECT_EQ(synced, db_->LastSequence());
  EXPECT_EQ(synced, opened + 2);
  ASSERT_TRUE(db_->Put(WriteOptions(), "c", "1").ok());
  EXPECT_EQ(db_->SyncedSequence(), synced);
  EXPECT_EQ(db_->LastSequence(), synced + 1);
  PowerCutAndReopen();
  EXPECT_EQ(Get("a"), "1");
  EXPECT_EQ(Get("b"), "1");
  EXPECT_EQ(Get("c"), "NOT_FOUND");
  EXPECT_EQ(db_->LastSequence(), synced);
  EXPECT_EQ(db_->SyncedSequence(), synced);

  db_->SetWalFsync(WalFsync::kAlways);
  ASSERT_TRUE(db_->Put(WriteOptions(), "d", "1").ok());
  EXPECT_EQ(db_->SyncedSequence(), db_->LastSequence());
  WriteOptions deferred;
  deferred.defer_sync = true;
  ASSERT_TRUE(db_->Put(deferred, "e", "1").ok());
  EXPECT_EQ(db_->SyncedSequence() + 1, db_->LastSequence());
  ASSERT_TRUE(db_->SyncWal().ok());
  EXPECT_EQ(db_->SyncedSequence(), db_->LastSequence());
}

}  // namespace
}  // namespace ebb::storage
