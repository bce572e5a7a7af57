#include "server/net/wal_syncer.h"

#include <gtest/gtest.h>

#include <atomic>
#include <boost/asio/executor_work_guard.hpp>
#include <chrono>
#include <future>
#include <thread>

namespace ebb::server {
namespace {

// Requests queued while a sync runs share the next sync; callbacks run on the io_context only
// after a sync that started after they were queued.
TEST(WalSyncerTest, RequestsDuringASyncShareTheNextOne) {
  boost::asio::io_context io;
  std::promise<void> first_started;
  std::promise<void> release_first;
  std::shared_future<void> release = release_first.get_future().share();
  std::atomic<int> syncs{0};
  WalSyncer syncer(io, [&] {
    int n = ++syncs;
    if (n == 1) {
      first_started.set_value();
      release.wait();
    }
    return storage::Status::OK();
  });

  int done = 0;
  int done_after_second = 0;
  syncer.Request([&](const storage::Status& s) {
    EXPECT_TRUE(s.ok());
    ++done;
  });
  first_started.get_future().wait();
  for (int i = 0; i < 10; ++i) {
    syncer.Request([&](const storage::Status& s) {
      EXPECT_TRUE(s.ok());
      EXPECT_EQ(syncs.load(), 2);  // covered by a sync that began after the request
      ++done_after_second;
    });
  }
  release_first.set_value();
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while ((done < 1 || done_after_second < 10) && std::chrono::steady_clock::now() < deadline) {
    io.run_for(std::chrono::milliseconds(10));
    io.restart();
  }
  EXPECT_EQ(done, 1);
  EXPECT_EQ(done_after_second, 10);
  EXPECT_EQ(syncs.load(), 2);
  syncer.Stop();
}

TEST(WalSyncerTest, PropagatesSyncFailure) {
  boost::asio::io_context io;
  WalSyncer syncer(io, [] { return storage::Status::IOError("disk gone"); });
  bool called = false;
  syncer.Request([&](const storage::Status& s) {
    EXPECT_TRUE(s.IsIOError());
    called = true;
  });
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!called && std::chrono::steady_clock::now() < deadline) {
    io.run_for(std::chrono::milliseconds(10));
    io.restart();
  }
  EXPECT_TRUE(called);
}

TEST(WalSyncerTest, StopRunsPendingSyncs) {
  boost::asio::io_context io;
  std::atomic<int> syncs{0};
  {
    WalSyncer syncer(io, [&] {
      ++syncs;
      return storage::Status::OK();
    });
    syncer.Request([](const storage::Status&) {});
    syncer.Stop();
    syncer.Stop();  // idempotent
  }
  EXPECT_EQ(syncs.load(), 1);
}

}  // namespace
}  // namespace ebb::server
