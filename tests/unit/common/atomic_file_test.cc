#include "common/atomic_file.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

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

  // The names in the directory, sorted.
  std::vector<std::string> Names() const {
    std::vector<std::string> names;
    for (const auto& entry : fs::directory_iterator(dir_)) {
      names.push_back(entry.path().filename());
    }
    std::sort(names.begin(), names.end());
    return names;
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
  EXPECT_EQ(Names(), std::vector<std::string>{"ebb.conf"});  // no temporary left
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
  EXPECT_EQ(Names(), std::vector<std::string>{"taken"});  // the temporary removed
}

// Whoever may write the directory cannot make the writer write elsewhere: a symbolic link
// planted under the temporary name a writer would use (the fixed "<file>.tmp", or any other
// guessable name) is neither followed nor removed; the file it points to stays as it was.
TEST_F(ReplaceFileAtomicallyTest, APlantedSymbolicLinkIsNotFollowed) {
  const fs::path victim = dir_ / "victim";
  std::ofstream(victim) << "precious\n";
  const fs::path file = dir_ / "users.acl";
  std::ofstream(file) << "user default on nopass ~* &* +@all\n";
  const std::vector<std::string> planted = {"users.acl.tmp", "users.acl.tmp-0",
                                            "users.acl.tmp-" + std::to_string(::getpid())};
  for (const std::string& name : planted) fs::create_symlink(victim, dir_ / name);
  for (int i = 0; i < 20; i++) {
    ASSERT_EQ(ReplaceFileAtomically(file, "user default on >x ~* &* +@all\n"), "");
  }
  EXPECT_EQ(Read(victim), "precious\n");
  EXPECT_EQ(Read(file), "user default on >x ~* &* +@all\n");
  for (const std::string& name : planted) EXPECT_TRUE(fs::is_symlink(dir_ / name)) << name;
  EXPECT_EQ(Names().size(), planted.size() + 2);  // the links, the victim, the file: nothing else
}

}  // namespace
}  // namespace ebb
