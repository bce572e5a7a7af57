// The compaction filter acts only on state at least as durable as its output: a DEL or a TLOG
// TRIMAT still in the WAL's unsynced tail when a compaction drops the entries it orphans or cuts
// would, after a power cut, leave a log whose metadata and entries disagree. Each compaction's
// filter run therefore reads through a view of what the WAL has synced (the engine syncs it as
// the compaction starts).
#include <gtest/gtest.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "storage/clock.h"
#include "storage/db/db_impl.h"
#include "storage/env/fault_injection_file_system.h"
#include "storage/env/posix_file_system.h"
#include "tests/support/test_constants.h"
#include "tests/unit/types/types_fixture.h"
#include "types/keyspace.h"
#include "types/tlog.h"

namespace ebb::types {
namespace {

class FilterDurabilityTest : public ::testing::Test {
 protected:
  FilterDurabilityTest()
      : clock_(std::make_shared<storage::ManualClock>(test::kTypesStartMs)),
        fs_(std::make_shared<storage::FaultInjectionFileSystem>(storage::DefaultFileSystem())) {
    char tmpl[] = "/tmp/ebb_filter_durability_XXXXXX";
    dir_ = ::mkdtemp(tmpl);
    options_.clock = clock_;
    options_.file_system = fs_;
    options_.wal_fsync = storage::WalFsync::kNo;  // nothing syncs the WAL but the engine itself
    options_.purge_deadline_ms = 1000;
    Open();
  }
  ~FilterDurabilityTest() override {
    ks_.reset();
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  void Open() { ASSERT_TRUE(Keyspace::Open(options_, dir_, &ks_).ok()); }
  // A power cut: nothing more reaches the disk, everything not fsynced is lost.
  void PowerCutAndReopen() {
    fs_->SetFailWrites(true);
    fs_->SetFailSyncs(true);
    ks_.reset();
    fs_->SetFailWrites(false);
    fs_->SetFailSyncs(false);
    ASSERT_TRUE(fs_->DropUnsyncedData().ok());
    Open();
  }
  // TLOG SIZE, and the number of entries TLOG GET returns.
  std::pair<uint64_t, size_t> SizeAndEntries(std::string_view key) {
    Tlog log(*ks_, 0);
    const uint64_t size = Value(log.Size(key));
    return {size, Value(log.Get(key, UINT64_MAX)).size()};
  }
  // Runs the compactions that are due, as the background thread would (it may run them too).
  void RunCompactions() {
    auto* impl = static_cast<storage::DBImpl*>(&ks_->db());
    for (int i = 0; i < 10 && impl->RunBackgroundCycle(); i++) {
    }
  }

  std::shared_ptr<storage::ManualClock> clock_;
  std::shared_ptr<storage::FaultInjectionFileSystem> fs_;
  std::string dir_;
  storage::Options options_;
  std::unique_ptr<Keyspace> ks_;
};

// Writes `n` entries of "log" and a row that expires, flushed to a table file (durable), so
// that a purge compaction is due once the clock passes it — without any flush syncing the WAL.
void Prepare(Keyspace& ks, int n) {
  Tlog log(ks, 0);
  for (int i = 0; i < n; i++) ASSERT_TRUE(log.Insert("log", "e" + std::to_string(i), 100 + i).ok());
  storage::WriteOptions expiring = ks.WriteOptions();
  expiring.timestamp_ms = ks.NowMs();
  expiring.ttl_ms = 100;
  ASSERT_TRUE(
      ks.db().Put(expiring, MetaKey(0, "tmp"), EncodeMetaValue(KeyType::kString, "v")).ok());
  ASSERT_TRUE(ks.db().FlushMemtable().ok());
}

TEST_F(FilterDurabilityTest, ADeleteInTheUnsyncedTailNeverLeavesALogWithoutItsEntries) {
  Prepare(*ks_, 20);
  ASSERT_EQ(SizeAndEntries("log"), (std::pair<uint64_t, size_t>{20, 20}));
  ASSERT_TRUE(Value(ks_->Delete(0, "log")));  // in the memtable and the WAL's buffer
  clock_->Advance(100 + 500);  // "tmp" expired and due: a purge compaction takes the entries
  RunCompactions();
  ASSERT_GE(ks_->db().GetStats().compactions, 1u);
  PowerCutAndReopen();
  // Either the DEL survived (and the log is gone) or it did not (and the log is whole): never a
  // log whose size counts entries that are gone.
  const auto [size, entries] = SizeAndEntries("log");
  EXPECT_EQ(size, entries);
  EXPECT_TRUE(size == 0 || size == 20) << size;
}

TEST_F(FilterDurabilityTest, ATrimInTheUnsyncedTailNeverLeavesALogShorterThanItsSize) {
  Prepare(*ks_, 20);
  Tlog log(*ks_, 0);
  ASSERT_TRUE(log.TrimAt("log", 110).ok());  // cuts entries 100..109
  ASSERT_EQ(SizeAndEntries("log"), (std::pair<uint64_t, size_t>{10, 10}));
  clock_->Advance(100 + 500);
  RunCompactions();
  PowerCutAndReopen();
  const auto [size, entries] = SizeAndEntries("log");
  EXPECT_EQ(size, entries);
  EXPECT_TRUE(size == 10 || size == 20) << size;
}

}  // namespace
}  // namespace ebb::types
