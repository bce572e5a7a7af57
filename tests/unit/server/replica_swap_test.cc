// The directory swap of a replica's full resynchronisation (server/replication/replica.h): the
// exchange, and what a start does with each state a crash can leave (docs/replication.md,
// "Full resynchronisation: replacing the engine").
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "server/replication/replica.h"

namespace ebb::server {
namespace {

namespace fs = std::filesystem;

class ReplicaSwapTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::path(::testing::TempDir()) /
            ("ebb_swap_" + std::to_string(::getpid()) + "_" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    fs::create_directories(root_);
    dir_ = (root_ / "data").string();
  }
  void TearDown() override { fs::remove_all(root_); }

  static void Write(const std::string& path, const std::string& text) {
    fs::create_directories(fs::path(path).parent_path());
    std::ofstream(path) << text;
  }
  static std::string Read(const std::string& path) {
    std::ifstream in(path);
    std::string text;
    std::getline(in, text);
    return text;
  }

  fs::path root_;
  std::string dir_;
};

TEST_F(ReplicaSwapTest, ExchangeSwapsTheTwoDirectories) {
  Write(dir_ + "/CURRENT", "old");
  Write(dir_ + ".sync/CURRENT", "snapshot");
  ASSERT_TRUE(ExchangeDirectories(dir_, dir_ + ".sync").ok());
  EXPECT_EQ(Read(dir_ + "/CURRENT"), "snapshot");
  EXPECT_EQ(Read(dir_ + ".sync/CURRENT"), "old");
}

TEST_F(ReplicaSwapTest, AStartPutsBackTheOldDataWhenTheSwapWasCutShort) {
  // Between the fallback's first two renames: no data directory, the old one beside it.
  Write(dir_ + ".old/CURRENT", "old");
  Write(dir_ + ".sync/CURRENT", "snapshot");
  RecoverDataDirectory(dir_);
  EXPECT_EQ(Read(dir_ + "/CURRENT"), "old");
  EXPECT_FALSE(fs::exists(dir_ + ".old"));
  EXPECT_FALSE(fs::exists(dir_ + ".sync"));
}

TEST_F(ReplicaSwapTest, AStartKeepsTheDataDirectoryAndRemovesLeftovers) {
  // After the exchange (or during the transfer): the data directory is whole; the rest goes.
  Write(dir_ + "/CURRENT", "snapshot");
  Write(dir_ + ".sync/CURRENT", "old");
  Write(dir_ + ".old/CURRENT", "older");
  RecoverDataDirectory(dir_);
  EXPECT_EQ(Read(dir_ + "/CURRENT"), "snapshot");
  EXPECT_FALSE(fs::exists(dir_ + ".sync"));
  EXPECT_FALSE(fs::exists(dir_ + ".old"));
  RecoverDataDirectory(root_.string() + "/never-made");  // nothing there: nothing happens
  EXPECT_FALSE(fs::exists(root_ / "never-made"));
}

}  // namespace
}  // namespace ebb::server
