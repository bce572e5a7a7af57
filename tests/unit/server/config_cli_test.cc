#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "server/config/config.h"
#include "tests/unit/server/config_test_util.h"

namespace ebb::server {
namespace {

// argv for ParseCommandLine; owns the strings.
class Argv {
 public:
  explicit Argv(std::vector<std::string> args) : args_(std::move(args)) {
    args_.insert(args_.begin(), "ebb-server");
    for (std::string& a : args_) ptrs_.push_back(a.data());
    ptrs_.push_back(nullptr);
  }
  int argc() const { return static_cast<int>(args_.size()); }
  char** argv() { return ptrs_.data(); }

 private:
  std::vector<std::string> args_;
  std::vector<char*> ptrs_;
};

TEST(ConfigCliTest, FlagsApplyAfterTheFile) {
  config_test::ScratchDir dir;
  const std::string path = dir.File("ebb.conf");
  config_test::WriteFile(path, "port 7000\ndatabases 4\nttl-rule f:* 1h\n");
  Argv args({path, "--port", "7001", "--dir", "/var/ebb", "--ttl-rule", "a:*", "1h", "--ttl-rule",
             "b:*", "2d", "--bind", "127.0.0.1", "::1", "--expiration", "off"});
  ConfigRegistry r;
  std::string error;
  bool exit_now = true;
  ASSERT_TRUE(r.ParseCommandLine(args.argc(), args.argv(), &error, &exit_now)) << error;
  EXPECT_FALSE(exit_now);
  EXPECT_EQ(r.config().port, 7001);
  EXPECT_EQ(r.config().databases, 4);
  EXPECT_EQ(r.config().dir, "/var/ebb");
  // Command-line rules replace the file's.
  EXPECT_EQ(r.config().ttl_rules,
            (std::vector<TtlRule>{{"a:*", 3600000}, {"b:*", 2 * 86400000LL}}));
  EXPECT_EQ(r.config().bind, (std::vector<std::string>{"127.0.0.1", "::1"}));
  EXPECT_FALSE(r.config().expiration);
  EXPECT_EQ(r.config_file(), path);
}

TEST(ConfigCliTest, NoArguments) {
  Argv args({});
  ConfigRegistry r;
  std::string error;
  bool exit_now = true;
  ASSERT_TRUE(r.ParseCommandLine(args.argc(), args.argv(), &error, &exit_now)) << error;
  EXPECT_FALSE(exit_now);
  EXPECT_EQ(r.Get("*"), ConfigRegistry().Get("*"));
  EXPECT_EQ(r.config_file(), "");
}

TEST(ConfigCliTest, BadValuesAndUnknownFlags) {
  struct Case {
    std::vector<std::string> args;
    std::string error_contains;
  };
  const std::vector<Case> cases = {
      {{"--port", "x"}, "invalid value 'x' for '--port': argument couldn't be parsed"},
      {{"--default-ttl", "5x"}, "invalid duration '5x'"},
      {{"--no-such-option", "1"}, "no-such-option"},
      {{"--ttl-rule", "a:*"}, "ttl-rule"},
      {{"/nonexistent/ebb.conf"}, "can't open config file '/nonexistent/ebb.conf'"},
  };
  for (const Case& c : cases) {
    Argv args(c.args);
    ConfigRegistry r;
    std::string error;
    bool exit_now = false;
    EXPECT_FALSE(r.ParseCommandLine(args.argc(), args.argv(), &error, &exit_now)) << c.args[0];
    EXPECT_NE(error.find(c.error_contains), std::string::npos) << error;
    EXPECT_FALSE(exit_now);
  }
}

TEST(ConfigCliTest, HelpListsEveryOptionAndAsksToExit) {
  Argv args({"--help"});
  ConfigRegistry r;
  std::string error;
  bool exit_now = false;
  testing::internal::CaptureStdout();
  EXPECT_TRUE(r.ParseCommandLine(args.argc(), args.argv(), &error, &exit_now));
  const std::string help = testing::internal::GetCapturedStdout();
  EXPECT_TRUE(exit_now);
  for (const auto& o : r.Options()) EXPECT_NE(help.find("--" + o.name), std::string::npos);
}

}  // namespace
}  // namespace ebb::server
