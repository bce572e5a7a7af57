#include "server/dispatch/dispatcher.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "protocol/reply_writer.h"
#include "server/acl/acl.h"
#include "server/config/config.h"
#include "server/core/client.h"
#include "server/core/command.h"
#include "server/services/server_context.h"
#include "storage/clock.h"

namespace ebb::server {
namespace {

void Echo1(CommandContext& ctx) { ctx.reply.Bulk(ctx.args[1]); }
void Sub(CommandContext& ctx) { ctx.reply.SimpleString("sub:" + std::string(ctx.args[1])); }
void Ok(CommandContext& ctx) { ctx.reply.Ok(); }

class DispatcherTest : public ::testing::Test {
 protected:
  DispatcherTest()
      : ctx_(&registry_, &table_, &clock_),
        dispatcher_(&ctx_),
        client_(1, "127.0.0.1:5000", "127.0.0.1:6379", 5, 0, true) {
    table_.Add({.name = "one", .arity = 2, .flags = kCmdFast, .handler = Echo1});
    table_.Add({.name = "atleast", .arity = -2, .handler = Ok});
    table_.Add({.name = "open", .arity = 1, .flags = kCmdNoAuth, .handler = Ok});
    table_.Add({.name = "dbg", .arity = -1, .flags = kCmdDebug, .handler = Ok});
    table_.Add({.name = "wr", .arity = 1, .flags = kCmdWrite, .handler = Ok});
    table_.Add({.name = "box",
                .arity = -2,
                .subcommands = {{.name = "ins", .arity = 4, .handler = Sub},
                                {.name = "get", .arity = -3, .handler = Sub}}});
  }

  std::string Run(std::vector<std::string> args, Dispatcher::Result* result = nullptr) {
    std::vector<std::string_view> views(args.begin(), args.end());
    std::string out;
    protocol::ReplyWriter writer(&out);
    Dispatcher::Result r = dispatcher_.Dispatch(views, client_, writer);
    if (result) *result = r;
    return out;
  }

  ConfigRegistry registry_;
  CommandTable table_;
  storage::PinnableClock clock_;
  ServerContext ctx_;
  Dispatcher dispatcher_;
  Client client_;
};

TEST_F(DispatcherTest, RunsCommandsCaseInsensitively) {
  EXPECT_EQ(Run({"ONE", "x"}), "$1\r\nx\r\n");
  EXPECT_EQ(Run({"oNe", "y"}), "$1\r\ny\r\n");
  EXPECT_EQ(ctx_.stats().total_commands_processed, 2u);
}

// The table finds names of up to 8 bytes as one word and longer ones byte by byte: both in any
// case, and neither by a prefix, an extension or a name that differs only past a NUL.
TEST_F(DispatcherTest, FindsShortAndLongNamesInAnyCase) {
  table_.Add({.name = "eightchr", .arity = 1, .handler = Ok});
  table_.Add({.name = "ninechars", .arity = 1, .handler = Ok});
  EXPECT_EQ(table_.Find("EightChr"), table_.Find("eightchr"));
  EXPECT_NE(table_.Find("eightchr"), nullptr);
  EXPECT_EQ(table_.Find("NINEchars"), table_.Find("ninechars"));
  EXPECT_NE(table_.Find("ninechars"), nullptr);
  EXPECT_EQ(table_.Find("eightch"), nullptr);
  EXPECT_EQ(table_.Find("eightchrs"), nullptr);
  EXPECT_EQ(table_.Find(std::string_view("one\0", 4)), nullptr);
  EXPECT_EQ(table_.Find(std::string_view("o\0e", 3)), nullptr);
  EXPECT_EQ(table_.Find(""), nullptr);
  EXPECT_EQ(table_.Find("\xcfne"), nullptr);  // not ASCII 'O'
  EXPECT_EQ(Run({"EIGHTCHR"}), "+OK\r\n");
}

TEST_F(DispatcherTest, ArityUsesRedisSignConvention) {
  EXPECT_EQ(Run({"one"}), "-ERR wrong number of arguments for 'one' command\r\n");
  EXPECT_EQ(Run({"one", "a", "b"}), "-ERR wrong number of arguments for 'one' command\r\n");
  EXPECT_EQ(Run({"atleast"}), "-ERR wrong number of arguments for 'atleast' command\r\n");
  EXPECT_EQ(Run({"atleast", "a", "b", "c"}), "+OK\r\n");
}

TEST_F(DispatcherTest, UnknownCommandQuotesArgs) {
  EXPECT_EQ(Run({"nope", "a", "b"}),
            "-ERR unknown command 'nope', with args beginning with: 'a' 'b' \r\n");
}

TEST_F(DispatcherTest, Subcommands) {
  EXPECT_EQ(Run({"BOX", "INS", "k", "v"}), "+sub:INS\r\n");
  EXPECT_EQ(Run({"box", "ins", "k"}), "-ERR wrong number of arguments for 'box|ins' command\r\n");
  EXPECT_EQ(Run({"box", "zap"}), "-ERR unknown subcommand 'zap'. Try BOX HELP.\r\n");
  EXPECT_EQ(Run({"box"}), "-ERR wrong number of arguments for 'box' command\r\n");
}

TEST_F(DispatcherTest, NoAuthWhenPasswordSet) {
  ASSERT_EQ(ConfigErrorText(registry_.Set("requirepass", "secret"), "requirepass"), "");
  EXPECT_EQ(Run({"one", "x"}), "-NOAUTH Authentication required.\r\n");
  EXPECT_EQ(Run({"open"}), "+OK\r\n");
  // Unknown commands and arity are reported before authentication, as Redis does.
  EXPECT_EQ(Run({"nope"}), "-ERR unknown command 'nope', with args beginning with: \r\n");
  client_.set_user(ctx_.acl().Authenticate("default", "secret"));
  ASSERT_TRUE(client_.authenticated());
  EXPECT_EQ(Run({"one", "x"}), "$1\r\nx\r\n");
}

TEST_F(DispatcherTest, DebugRefusedByDefault) {
  EXPECT_EQ(Run({"dbg"}),
            "-ERR DEBUG command not allowed. If the enable-debug-command option is set to "
            "\"local\", you can run it from a local connection, otherwise you need to set this "
            "option in the configuration file, and then restart the server.\r\n");
}

TEST_F(DispatcherTest, ReportsWrites) {
  Dispatcher::Result r;
  Run({"wr"}, &r);
  EXPECT_TRUE(r.is_write);
  ASSERT_NE(r.command, nullptr);
  Run({"one", "x"}, &r);
  EXPECT_FALSE(r.is_write);
  Run({"nope"}, &r);
  EXPECT_EQ(r.command, nullptr);
}

TEST_F(DispatcherTest, AppendKeysOfNamesTheKeysOfKnownRequestsOnly) {
  table_.Add({.name = "mget", .arity = -2, .flags = kCmdReadOnly, .keys = kAllKeys, .handler = Ok});
  table_.Add({.name = "mset", .arity = -3, .keys = kKeyValuePairs, .handler = Ok});
  table_.Add({.name = "spub", .arity = 3, .flags = kCmdPubSub, .keys = kFirstKey, .handler = Ok});
  table_.Add({.name = "reg",
              .arity = -2,
              .subcommands = {{.name = "get", .arity = 3, .keys = kSubcommandKey, .handler = Ok}}});
  const auto keys_of = [&](std::vector<std::string_view> args) {
    std::vector<std::string_view> keys{"before"};  // appended to, never cleared
    dispatcher_.AppendKeysOf(args, &keys);
    keys.erase(keys.begin());
    return keys;
  };
  using Keys = std::vector<std::string_view>;
  EXPECT_EQ(keys_of({"MGET", "a", "b", "c"}), (Keys{"a", "b", "c"}));
  EXPECT_EQ(keys_of({"mset", "a", "1", "b", "2"}), (Keys{"a", "b"}));
  EXPECT_EQ(keys_of({"REG", "get", "k"}), (Keys{"k"}));
  EXPECT_EQ(keys_of({"one", "x"}), Keys{});  // a row without keys
  EXPECT_EQ(keys_of({"mget"}), Keys{});      // arity
  EXPECT_EQ(keys_of({"reg", "get"}), Keys{});
  EXPECT_EQ(keys_of({"nosuch", "k"}), Keys{});
  EXPECT_EQ(keys_of({"spub", "channel", "m"}), Keys{});  // a channel is no key
  EXPECT_EQ(keys_of({}), Keys{});
  EXPECT_EQ(ctx_.stats().total_commands_processed, 0u);  // nothing ran
}

}  // namespace
}  // namespace ebb::server
