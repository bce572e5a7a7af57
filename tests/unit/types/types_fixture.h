// The base of the types' tests: a Keyspace over a real engine in a fresh temporary directory,
// driven by a ManualClock (tests move time, never sleep), with tiny buffers so that flushes and
// compactions happen within a test (Kvrocks's way of testing over a real store).
//
//   class KvTest : public TypesTest {
//    protected:
//     KvTest() { options_.memtable_size = 4 << 10; }   // adjust before SetUp opens
//   };
//
// Value(result) unwraps an OpResult that must have succeeded.
// Thread-safety: one test thread.
#pragma once

#include <gtest/gtest.h>
#include <stdlib.h>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>

#include "storage/clock.h"
#include "storage/options.h"
#include "types/keyspace.h"
#include "types/op_result.h"

namespace ebb::types {

// The value of a result that must have succeeded (a failure fails the test and gives T()).
template <typename T>
T Value(OpResult<T> result) {
  EXPECT_TRUE(result.ok()) << "status " << static_cast<int>(result.status()) << " "
                           << result.engine_status().ToString();
  if (!result.ok()) return T();
  return std::move(*result);
}

class TypesTest : public ::testing::Test {
 protected:
  // `start_ms`: the clock at the start.
  explicit TypesTest(int64_t start_ms = 1'700'000'000'000)
      : clock_(std::make_shared<storage::ManualClock>(start_ms)) {
    char tmpl[] = "/tmp/ebb_types_test_XXXXXX";
    dir_ = ::mkdtemp(tmpl);
    options_.clock = clock_;
    options_.memtable_size = 8 << 10;  // tiny: reads cross memtables and files
    options_.block_size = 512;
    options_.wal_fsync = storage::WalFsync::kNo;
  }
  ~TypesTest() override {
    ks_.reset();
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }

  void SetUp() override { Open(); }

  // Opens the keyspace (again: what a restart keeps) with options_.
  void Open() {
    ks_.reset();
    storage::Status s = Keyspace::Open(options_, dir_, &ks_, layout_);
    ASSERT_TRUE(s.ok()) << s.ToString();
  }

  std::shared_ptr<storage::ManualClock> clock_;
  std::string dir_;
  storage::Options options_;
  KeyLayout layout_ = KeyLayout::kByDatabase;  // what Open uses
  std::unique_ptr<Keyspace> ks_;
};

}  // namespace ebb::types
