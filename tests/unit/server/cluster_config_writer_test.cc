#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "server/cluster/config_writer.h"

namespace ebb::server::cluster {
namespace {

std::string Slurp(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

class ConfigWriterTest : public testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("config-writer-" + std::to_string(::getpid()) + "-" +
            testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
    path_ = (dir_ / "nodes.conf").string();
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::filesystem::path dir_;
  std::string path_;
};

TEST_F(ConfigWriterTest, WriteReturnsOnceItsTextIsTheFile) {
  ConfigWriter writer(path_);
  EXPECT_TRUE(writer.Write("vars currentEpoch 1 lastVoteEpoch 0\n").ok());
  EXPECT_EQ(Slurp(path_), "vars currentEpoch 1 lastVoteEpoch 0\n");
}

TEST_F(ConfigWriterTest, SubmittedTextsCoalesceAndTheLatestWins) {
  ConfigWriter writer(path_);
  for (int i = 0; i < 1000; i++) writer.Submit("epoch " + std::to_string(i) + "\n");
  EXPECT_TRUE(writer.Flush().ok());
  EXPECT_EQ(Slurp(path_), "epoch 999\n");
  writer.Submit("epoch 1000\n");
  EXPECT_TRUE(writer.Write("epoch 1001\n").ok());  // a wait covers what came before it
  EXPECT_EQ(Slurp(path_), "epoch 1001\n");
}

TEST_F(ConfigWriterTest, DestroyingWritesWhatWasSubmitted) {
  {
    ConfigWriter writer(path_);
    writer.Submit("first\n");
    writer.Submit("last\n");
  }
  EXPECT_EQ(Slurp(path_), "last\n");
}

TEST_F(ConfigWriterTest, AFailedWriteIsReportedAndLeavesTheFileAlone) {
  ConfigWriter writer((dir_ / "missing-dir" / "nodes.conf").string());
  const Result<ClusterCode> written = writer.Write("text\n");
  EXPECT_EQ(written.code(), ClusterCode::kSaveFailed);
  EXPECT_NE(written.detail(), "");
  EXPECT_FALSE(std::filesystem::exists(dir_ / "missing-dir"));
}

}  // namespace
}  // namespace ebb::server::cluster
