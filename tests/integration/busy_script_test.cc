// Busy scripts against a spawned ebb-server: past busy-reply-threshold every other client gets
// -BUSY (new ones too), SCRIPT KILL and FUNCTION KILL end a script that has not written, a
// script that has written is UNKILLABLE, and SHUTDOWN NOSAVE ends the process without the
// script's writes.
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "tests/support/test_server.h"

namespace ebb::test {
namespace {

constexpr std::string_view kBusyScript =
    "-BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.";
constexpr std::string_view kBusyFunction =
    "-BUSY Redis is busy running a script. You can only call FUNCTION KILL or SHUTDOWN NOSAVE.";

std::string Resp(const std::vector<std::string>& args) {
  std::string out = "*" + std::to_string(args.size()) + "\r\n";
  for (const std::string& arg : args) {
    out += "$" + std::to_string(arg.size()) + "\r\n" + arg + "\r\n";
  }
  return out;
}

class BusyScriptTest : public ServerTest {
 protected:
  std::vector<std::string> ServerArgs() const override { return {"--busy-reply-threshold", "50"}; }

  // Sends `args` on a connection of its own, whose reply is read later.
  std::unique_ptr<RawConnection> Launch(const std::vector<std::string>& args) {
    auto raw = std::make_unique<RawConnection>(server_.port());
    EXPECT_TRUE(raw->connected());
    EXPECT_TRUE(raw->Send(Resp(args)));
    return raw;
  }

  // PINGs (bounded: ~10 s) until the answer is no longer PONG: the script went busy.
  std::string WaitBusy() {
    std::string reply;
    for (int i = 0; i < 500; ++i) {
      reply = Do({"PING"});
      if (reply != "+PONG") break;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return reply;
  }
};

TEST_F(BusyScriptTest, ScriptKillEndsAScriptThatHasNotWritten) {
  EXPECT_EQ(Do({"SCRIPT", "KILL"}), "-NOTBUSY No scripts in execution right now.");
  EXPECT_EQ(Do({"FUNCTION", "KILL"}), "-NOTBUSY No scripts in execution right now.");
  auto script = Launch({"EVAL", "while true do end", "0"});
  EXPECT_EQ(WaitBusy(), kBusyScript);
  // Every command but the few allowed ones, from a client connected before or during the run.
  EXPECT_EQ(Do({"GET", "k"}), kBusyScript);
  EXPECT_EQ(Do({"EVAL", "return 1", "0"}), kBusyScript);
  EXPECT_EQ(Do({"SHUTDOWN"}), kBusyScript);  // only SHUTDOWN NOSAVE runs
  EXPECT_EQ(Do({"NOSUCHCOMMAND"}).substr(0, 20), "-ERR unknown command");
  RawConnection late(server_.port());
  ASSERT_TRUE(late.Send(Resp({"SET", "k", "v"})));
  EXPECT_EQ(late.ReadUntil("\r\n"), std::string(kBusyScript) + "\r\n");
  // A transaction: MULTI is allowed, a refused command aborts it.
  EXPECT_EQ(Do({"MULTI"}), "+OK");
  EXPECT_EQ(Do({"GET", "k"}), kBusyScript);
  EXPECT_EQ(Do({"EXEC"}),
            "-EXECABORT Transaction discarded because of: " + std::string(kBusyScript.substr(1)));
  EXPECT_EQ(Do({"FUNCTION", "KILL"}), kBusyScript);  // a script, not a function
  EXPECT_EQ(Do({"SCRIPT", "KILL"}), "+OK");
  const std::string reply = script->ReadUntil("\r\n");
  EXPECT_NE(reply.find("-ERR Script killed by user with SCRIPT KILL..."), std::string::npos)
      << reply;
  EXPECT_EQ(Do({"PING"}), "+PONG");
  EXPECT_EQ(Do({"EXISTS", "k"}), ":0");
  EXPECT_EQ(Do({"SCRIPT", "KILL"}), "-NOTBUSY No scripts in execution right now.");
}

TEST_F(BusyScriptTest, PcallCannotSwallowTheKill) {
  auto script = Launch({"EVAL", "while true do pcall(function() while true do end end) end", "0"});
  EXPECT_EQ(WaitBusy(), kBusyScript);
  EXPECT_EQ(Do({"SCRIPT", "KILL"}), "+OK");
  EXPECT_NE(script->ReadUntil("\r\n").find("Script killed by user"), std::string::npos);
  EXPECT_EQ(Do({"PING"}), "+PONG");
}

// A pattern match that backtracks for ages (2^40 ways here) runs inside one C call of Lua's,
// where the count hook never fires: ebb's matcher calls the hook itself, so the server answers
// BUSY meanwhile and SCRIPT KILL ends the match.
TEST_F(BusyScriptTest, ScriptKillEndsABacktrackingPatternMatch) {
  auto script = Launch({"EVAL",
                        "return string.find(string.rep('a', 40), string.rep('a?', 40) .. "
                        "string.rep('a', 40))",
                        "0"});
  EXPECT_EQ(WaitBusy(), kBusyScript);
  EXPECT_EQ(Do({"SCRIPT", "KILL"}), "+OK");
  EXPECT_NE(script->ReadUntil("\r\n").find("Script killed by user"), std::string::npos);
  EXPECT_EQ(Do({"PING"}), "+PONG");
}

TEST_F(BusyScriptTest, FunctionKillEndsAFunction) {
  EXPECT_EQ(Do({"FUNCTION", "LOAD",
                "#!lua name=spin\nredis.register_function('spin', function() "
                "local a = 1 while true do a = a + 1 end end)"}),
            "$spin");
  auto call = Launch({"FCALL", "spin", "0"});
  EXPECT_EQ(WaitBusy(), kBusyFunction);
  const std::string stats = R({"FUNCTION", "STATS"});
  EXPECT_NE(stats.find("\"name\"\n"), std::string::npos) << stats;
  EXPECT_NE(stats.find("\"spin\""), std::string::npos) << stats;
  EXPECT_NE(stats.find("\"FCALL\""), std::string::npos) << stats;
  EXPECT_NE(stats.find("duration_ms"), std::string::npos) << stats;
  EXPECT_EQ(Do({"SCRIPT", "KILL"}), kBusyFunction);  // a function, not a script
  EXPECT_EQ(Do({"FUNCTION", "KILL"}), "+OK");
  EXPECT_NE(call->ReadUntil("\r\n").find("Script killed by user"), std::string::npos);
  EXPECT_EQ(Do({"PING"}), "+PONG");
  EXPECT_EQ(R({"FUNCTION", "STATS"}).find("\"spin\""), std::string::npos);
}

TEST_F(BusyScriptTest, AWritingScriptIsUnkillableAndShutdownNosaveDropsItsWrites) {
  EXPECT_EQ(Do({"SET", "before", "1"}), "+OK");
  auto script = Launch({"EVAL", "redis.call('set', 'k', 'v') while true do end", "0"});
  EXPECT_EQ(WaitBusy(), kBusyScript);
  EXPECT_EQ(Do({"SCRIPT", "KILL"}),
            "-UNKILLABLE Sorry the script already executed write commands against the dataset. "
            "You can either wait the script termination or kill the server in a hard way using "
            "the SHUTDOWN NOSAVE command.");
  EXPECT_EQ(Do({"SHUTDOWN"}), kBusyScript);
  Cmd(conn_.get(), {"SHUTDOWN", "NOSAVE"});  // no reply: the process ends
  EXPECT_EQ(server_.WaitExit(10000), 0);
  EXPECT_TRUE(script->WaitClosed());
  Start({});
  EXPECT_EQ(Do({"GET", "before"}), "$1");
  EXPECT_EQ(Do({"EXISTS", "k"}), ":0");
}

TEST_F(BusyScriptTest, ThresholdIsSetAtRuntimeUnderBothNames) {
  EXPECT_EQ(R({"CONFIG", "GET", "lua-time-limit"}), "1) \"lua-time-limit\"\n2) \"50\"");
  EXPECT_EQ(Do({"CONFIG", "SET", "lua-time-limit", "60000"}), "+OK");
  EXPECT_EQ(R({"CONFIG", "GET", "busy-reply-threshold"}),
            "1) \"busy-reply-threshold\"\n2) \"60000\"");
  // Under the threshold nobody is answered while the script runs: the PING waits for its end.
  auto script = Launch({"EVAL", "local n = 0 while n < 3000000 do n = n + 1 end return n", "0"});
  EXPECT_EQ(Do({"PING"}), "+PONG");
  EXPECT_EQ(script->ReadUntil("\r\n"), ":3000000\r\n");
}

}  // namespace
}  // namespace ebb::test
