// Write stalls: a flush goes on while a compaction runs; when flushes or compactions fall
// behind, writes wait (CheckWriteStall says Busy, the listener hears when the wait may be over)
// instead of proceeding after a timeout, so the memtables stay within their bound.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <future>
#include <mutex>
#include <string>
#include <thread>

#include "storage/compaction_filter.h"
#include "tests/unit/storage/db_fault_fixture.h"

namespace ebb::storage {
namespace {

using namespace std::chrono_literals;

// Holds the first compaction inside its first Filter call until released.
class BlockingFilter final : public CompactionFilter {
 public:
  Decision Filter(std::string_view, const RowMeta&, std::string_view, int64_t,
                  std::string*) const override {
    std::unique_lock lock(mu_);
    entered_ = true;
    cv_.notify_all();
    cv_.wait(lock, [&] { return released_; });
    return Decision::kKeep;
  }
  const char* Name() const override { return "blocking"; }

  bool WaitEntered(std::chrono::milliseconds limit) {
    std::unique_lock lock(mu_);
    return cv_.wait_for(lock, limit, [&] { return entered_; });
  }
  void Release() {
    std::lock_guard lock(mu_);
    released_ = true;
    cv_.notify_all();
  }

 private:
  mutable std::mutex mu_;
  mutable std::condition_variable cv_;
  mutable bool entered_ = false;
  bool released_ = false;
};

class DBWriteStallTest : public DBFaultTest {
 protected:
  DBWriteStallTest() {
    options_.wal_fsync = WalFsync::kNo;
    options_.memtable_size = 8 << 10;
    options_.l0_compaction_trigger = 3;
    options_.l0_stop_writes_trigger = 6;
  }
  void PutN(const std::string& prefix, int n, size_t value_size = 100) {
    for (int i = 0; i < n; i++) {
      ASSERT_TRUE(TryPut(prefix + std::to_string(i), std::string(value_size, 'v')).ok());
    }
  }
};

TEST_F(DBWriteStallTest, AFlushCompletesWhileACompactionRuns) {
  auto filter = std::make_shared<BlockingFilter>();
  options_.compaction_filter = filter;
  Open();
  for (int t = 0; t < 3; t++) {
    PutN("t" + std::to_string(t) + "-", 20);
    ASSERT_TRUE(db_->FlushMemtable().ok());
  }
  ASSERT_TRUE(filter->WaitEntered(10s)) << "no compaction started";
  PutN("during-", 20);
  auto flushed = std::async(std::launch::async, [&] { return db_->FlushMemtable(); });
  const bool done = flushed.wait_for(10s) == std::future_status::ready;
  filter->Release();
  ASSERT_TRUE(done) << "the flush waited for the compaction";
  EXPECT_TRUE(flushed.get().ok());
  ExpectAckedPresent();
}

TEST_F(DBWriteStallTest, WritesWaitForALateFlushAndMemtablesStayBounded) {
  Open();
  std::atomic<int> notified{0};
  db_->SetWriteStallListener([&] { notified++; });
  fs_->SetHoldNewFiles(".sst");  // flushes cannot create their table files
  std::atomic<int> written{0};
  std::thread writer([&] {
    for (int i = 0; i < 400; i++) {
      if (!db_->Put(WriteOptions(), "w" + std::to_string(i), std::string(1000, 'x')).ok()) return;
      written++;
    }
  });
  const auto deadline = std::chrono::steady_clock::now() + 10s;
  while (!db_->CheckWriteStall().IsBusy() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(5ms);
  }
  const Status stall = db_->CheckWriteStall();
  ASSERT_TRUE(stall.IsBusy()) << stall.ToString();
  std::this_thread::sleep_for(1500ms);  // longer than the old bounded wait
  const int while_stalled = written.load();
  EXPECT_LT(while_stalled, 400);
  // The active memtable and two frozen ones, each at most one write past its size.
  EXPECT_LE(db_->GetStats().memtable_bytes, 3 * (options_.memtable_size + 1100));
  EXPECT_EQ(notified.load(), 0);
  fs_->SetHoldNewFiles("");
  writer.join();
  EXPECT_EQ(written.load(), 400);
  EXPECT_GE(notified.load(), 1);
  // The last writes may have filled the memtables again: the stall ends once their flushes do.
  const auto settle = std::chrono::steady_clock::now() + 10s;
  while (!db_->CheckWriteStall().ok() && std::chrono::steady_clock::now() < settle) {
    std::this_thread::sleep_for(5ms);
  }
  EXPECT_TRUE(db_->CheckWriteStall().ok());
  for (int i = 0; i < 400; i += 37) EXPECT_EQ(Get("w" + std::to_string(i)), std::string(1000, 'x'));
}

TEST_F(DBWriteStallTest, TooManyLevel0FilesStallWritesUntilCompactionCatchesUp) {
  auto filter = std::make_shared<BlockingFilter>();
  options_.compaction_filter = filter;
  Open();
  std::atomic<int> notified{0};
  db_->SetWriteStallListener([&] { notified++; });
  for (int t = 0; t < 6; t++) {
    PutN("t" + std::to_string(t) + "-", 20);
    ASSERT_TRUE(db_->FlushMemtable().ok());
  }
  ASSERT_TRUE(filter->WaitEntered(10s));
  // Writes go on into the active memtable; the one that needs a new level-0 file waits.
  EXPECT_TRUE(db_->CheckWriteStall().ok());
  std::atomic<int> written{0};
  auto writer = std::async(std::launch::async, [&] {
    for (int i = 0; i < 200; i++) {
      if (!db_->Put(WriteOptions(), "late" + std::to_string(i), std::string(100, 'l')).ok()) {
        return;
      }
      written++;
    }
  });
  EXPECT_EQ(writer.wait_for(1500ms), std::future_status::timeout);  // it waits, unbounded
  const Status stall = db_->CheckWriteStall();
  ASSERT_TRUE(stall.IsBusy()) << stall.ToString();
  EXPECT_NE(stall.message().find("level 0 has 6 files"), std::string::npos) << stall.ToString();
  EXPECT_LT(written.load(), 200);
  filter->Release();
  ASSERT_EQ(writer.wait_for(10s), std::future_status::ready);
  EXPECT_EQ(written.load(), 200);
  EXPECT_GE(notified.load(), 1);
  EXPECT_EQ(Get("late199"), std::string(100, 'l'));
}

}  // namespace
}  // namespace ebb::storage
