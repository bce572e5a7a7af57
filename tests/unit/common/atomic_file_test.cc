#include "common/atomic_file.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace ebb {
namespace {

namespace fs = std::filesystem;

class ReplaceFileAtomicallyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("ebb-atomic-file-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  static std::string Read(const fs::path& p) {
    std::ifstream in(p);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
  static mode_t Mode(const fs::path& p) {
    struct stat st;
    EXPECT_EQ(::stat(p.c_str(), &st), 0);
    return st.st_mode & 07777;
  }

  fs::path dir_;
};

TEST_F(ReplaceFileAtomicallyTest, ReplacesTheContentsAndKeepsTheMode) {
  const fs::path file = dir_ / "ebb.conf";
  std::ofstream(file) << "port 1\n";
  ASSERT_EQ(::chmod(file.c_str(), 0640), 0);
  EXPECT_EQ(ReplaceFileAtomically(file, "port 2\n"), "");
  EXPECT_EQ(Read(file), "port 2\n");
  EXPECT_EQ(Mode(file), 0640u);
  EXPECT_FALSE(fs::exists(dir_ / "ebb.conf.tmp"));
}

TEST_F(ReplaceFileAtomicallyTest, ANewFileIsReadableByItsOwnerOnly) {
  const fs::path file = dir_ / "new.conf";
  EXPECT_EQ(ReplaceFileAtomically(file, "requirepass x\n"), "");
  EXPECT_EQ(Read(file), "requirepass x\n");
  EXPECT_EQ(Mode(file), 0600u);
}

TEST_F(ReplaceFileAtomicallyTest, ASymbolicLinkKeepsPointingAtTheRewrittenFile) {
  fs::create_directories(dir_ / "real");
  const fs::path target = dir_ / "real" / "ebb.conf";
  std::ofstream(target) << "port 1\n";
  const fs::path link = dir_ / "ebb.conf";
  fs::create_symlink(target, link);
  EXPECT_EQ(ReplaceFileAtomically(link, "port 3\n"), "");
  EXPECT_TRUE(fs::is_symlink(link));
  EXPECT_EQ(Read(target), "port 3\n");
}

TEST_F(ReplaceFileAtomicallyTest, AFailureLeavesTheOriginalAndNoTemporary) {
  const fs::path file = dir_ / "missing-dir" / "ebb.conf";
  const std::string error = ReplaceFileAtomically(file, "x\n");
  EXPECT_NE(error.find("can't create '"), std::string::npos) << error;
  // A directory where the file should be: the rename fails, the directory stays.
  const fs::path taken = dir_ / "taken";
  fs::create_directories(taken / "child");
  EXPECT_NE(ReplaceFileAtomically(taken, "x\n"), "");
  EXPECT_TRUE(fs::is_directory(taken / "child"));
  EXPECT_FALSE(fs::exists(dir_ / "taken.tmp"));
}

}  // namespace
}  // namespace ebb
