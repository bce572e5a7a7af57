// Scripting against a spawned ebb-server: function libraries survive a restart (their engine
// row), a change the disk cannot take is refused and undone, an older ebb's functions file moves
// into the engine, and a script's writes are all or nothing across a crash: killed while the
// script runs, the server comes back without any of them; killed after the reply, with all of
// them.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <string>

#include "tests/support/test_server.h"

namespace ebb::test {
namespace {

class ScriptingServerTest : public ServerTest {};

// With too few good replicas (min-replicas-to-write), a script whose shebang lets it write is
// refused before it runs; one without a shebang runs, and only its writes are refused.
TEST_F(ScriptingServerTest, TooFewReplicasRefuseScriptsThatMayWrite) {
  EXPECT_EQ(Do({"SET", "x", "some value"}), "+OK");
  EXPECT_EQ(Do({"CONFIG", "SET", "min-replicas-to-write", "1"}), "+OK");
  EXPECT_EQ(Do({"EVAL", "#!lua flags=no-writes\nreturn redis.call('get', 'x')", "0"}),
            "$some value");
  EXPECT_EQ(Do({"EVAL", "return redis.call('get', 'x')", "0"}), "$some value");
  EXPECT_EQ(Do({"EVAL", "#!lua\nreturn redis.call('get', 'x')", "0"}),
            "-NOREPLICAS Not enough good replicas to write.");
  EXPECT_THAT(Do({"EVAL", "return redis.call('set', 'x', 1)", "0"}),
              ::testing::StartsWith("-NOREPLICAS Not enough good replicas to write."));
  EXPECT_EQ(Do({"CONFIG", "SET", "min-replicas-to-write", "0"}), "+OK");
  EXPECT_EQ(Do({"GET", "x"}), "$some value");
}

// A replica whose link is down under replica-serve-stale-data no runs only allow-stale scripts,
// and those only call what a stale replica serves.
TEST_F(ScriptingServerTest, AStaleReplicaRunsOnlyAllowStaleScripts) {
  EXPECT_EQ(Do({"CONFIG", "SET", "replica-serve-stale-data", "no"}), "+OK");
  EXPECT_EQ(Do({"REPLICAOF", "127.0.0.1", std::to_string(TestServer::FreePort())}), "+OK");
  EXPECT_EQ(Do({"EVAL", "return 1", "0"}),
            "-MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to 'no'.");
  EXPECT_EQ(Do({"EVAL", "#!lua flags=no-writes\nreturn 1", "0"}),
            "-MASTERDOWN Link with MASTER is down, replica-serve-stale-data is set to 'no' and "
            "'allow-stale' flag is not set on the script.");
  EXPECT_EQ(
      Do({"EVAL", "#!lua flags=no-writes,allow-stale\nreturn type(redis.call('info', 'server'))",
          "0"}),
      "$string");
  EXPECT_THAT(Do({"EVAL", "#!lua flags=no-writes,allow-stale\nreturn redis.call('get', 'x')", "0"}),
              ::testing::StartsWith("-ERR Can not execute the command on a stale replica"));
  EXPECT_EQ(Do({"EVAL", "#!lua\nreturn 1", "0"}),
            "-MASTERDOWN Link with MASTER is down, replica-serve-stale-data is set to 'no' and "
            "'allow-stale' flag is not set on the script.");
  EXPECT_EQ(Do({"CONFIG", "SET", "replica-serve-stale-data", "yes"}), "+OK");
  EXPECT_EQ(Do({"EVAL", "#!lua\nreturn 1", "0"}),
            "-READONLY Can not run script with write flag on readonly replica");
  EXPECT_EQ(Do({"REPLICAOF", "NO", "ONE"}), "+OK");
}

TEST_F(ScriptingServerTest, FunctionsSurviveRestart) {
  EXPECT_EQ(Do({"FUNCTION", "LOAD",
                "#!lua name=counter\nredis.register_function('bump', function(keys)\n"
                "  return redis.call('incr', keys[1]) end)"}),
            "$counter");
  EXPECT_EQ(Do({"FCALL", "bump", "1", "n"}), ":1");
  Restart();
  EXPECT_EQ(Do({"FCALL", "bump", "1", "n"}), ":2");
  EXPECT_EQ(Do({"FUNCTION", "DELETE", "counter"}), "+OK");
  Restart();
  EXPECT_EQ(Do({"FCALL", "bump", "1", "n"}), "-ERR Function not found");
  EXPECT_EQ(Do({"FUNCTION", "LIST"}), "[]");
}

// A change the disk cannot take is answered MISCONF, and what the server shows afterwards is
// what a restart finds: the first change meeting the fault reaches the engine (only its sync
// fails) and stays; the next ones are refused by the engine and undone.
TEST_F(ScriptingServerTest, AFunctionChangeMeetingADiskFaultIsWhatARestartFinds) {
  EXPECT_EQ(Do({"FUNCTION", "LOAD",
                "#!lua name=lib1\nredis.register_function('one', function() return 1 end)"}),
            "$lib1");
  // `two` may not write, so it runs while writes are refused.
  EXPECT_EQ(Do({"FUNCTION", "LOAD",
                "#!lua name=lib2\nredis.register_function{function_name='two', "
                "callback=function() return 2 end, flags={'no-writes'}}"}),
            "$lib2");
  const std::string payload = Cmd(conn_.get(), {"FUNCTION", "DUMP"}).str();
  ASSERT_EQ(Do({"DEBUG", "DISK-FAULT", "ON"}), "+OK");
  EXPECT_THAT(Do({"FUNCTION", "DELETE", "lib1"}), ::testing::StartsWith("-MISCONF"));
  EXPECT_EQ(Do({"FCALL", "one", "0"}), "-ERR Function not found");
  EXPECT_THAT(Do({"FUNCTION", "FLUSH"}), ::testing::StartsWith("-MISCONF"));
  EXPECT_THAT(Do({"FUNCTION", "RESTORE", payload, "FLUSH"}), ::testing::StartsWith("-MISCONF"));
  EXPECT_THAT(Do({"FUNCTION", "LOAD",
                  "#!lua name=lib3\nredis.register_function('three', function() return 3 end)"}),
              ::testing::StartsWith("-MISCONF"));
  EXPECT_EQ(Do({"FCALL", "one", "0"}), "-ERR Function not found");
  EXPECT_EQ(Do({"FCALL", "two", "0"}), ":2");
  EXPECT_EQ(Do({"FCALL", "three", "0"}), "-ERR Function not found");
  // A script that may write is refused before it runs, as a write is.
  EXPECT_THAT(Do({"EVAL", "#!lua\nreturn 1", "0"}), ::testing::StartsWith("-MISCONF"));
  ASSERT_EQ(Do({"DEBUG", "DISK-FAULT", "OFF"}), "+OK");
  Restart();
  EXPECT_EQ(Do({"FCALL", "one", "0"}), "-ERR Function not found");
  EXPECT_EQ(Do({"FCALL", "two", "0"}), ":2");
  EXPECT_EQ(Do({"FCALL", "three", "0"}), "-ERR Function not found");
}

// The functions file an older ebb kept in the data directory (FUNCTION DUMP's payload) is
// loaded once, written to the engine and removed; FLUSHALL leaves the libraries.
TEST_F(ScriptingServerTest, AnOlderFunctionsFileMovesIntoTheEngine) {
  EXPECT_EQ(Do({"FUNCTION", "LOAD",
                "#!lua name=old\nredis.register_function('two', function() return 2 end)"}),
            "$old");
  const std::string payload = Cmd(conn_.get(), {"FUNCTION", "DUMP"}).str();
  ASSERT_EQ(server_.Stop(), 0);
  // A data directory as an older ebb left it: the engine without the libraries row, the file.
  std::filesystem::remove_all(server_.data_dir());
  std::filesystem::create_directories(server_.data_dir());
  const std::string file = server_.data_dir() + "/functions";
  {
    FILE* f = std::fopen(file.c_str(), "wb");
    ASSERT_NE(f, nullptr);
    ASSERT_EQ(std::fwrite(payload.data(), 1, payload.size(), f), payload.size());
    std::fclose(f);
  }
  Start({});
  EXPECT_EQ(Do({"FCALL", "two", "0"}), ":2");
  EXPECT_NE(::access(file.c_str(), F_OK), 0);
  EXPECT_EQ(Do({"FLUSHALL"}), "+OK");
  Restart();
  EXPECT_EQ(Do({"FCALL", "two", "0"}), ":2");
}

TEST_F(ScriptingServerTest, AcknowledgedScriptWritesSurviveACrash) {
  EXPECT_EQ(Do({"EVAL", "for i = 1, 100 do redis.call('set', 'k' .. i, i) end return 1", "0"}),
            ":1");
  server_.Kill();
  Start({});
  EXPECT_EQ(Do({"GET", "k1"}), "$1");
  EXPECT_EQ(Do({"GET", "k100"}), "$100");
}

TEST_F(ScriptingServerTest, ACrashInsideAScriptLeavesNoneOfItsWrites) {
  EXPECT_EQ(Do({"SET", "before", "1"}), "+OK");
  // The script writes, then spins until the server is killed under it.
  RawConnection raw(server_.port());
  ASSERT_TRUE(raw.connected());
  const std::string script =
      "for i = 1, 100 do redis.call('set', 'k' .. i, i) end while true do end";
  ASSERT_TRUE(raw.Send("*3\r\n$4\r\nEVAL\r\n$" + std::to_string(script.size()) + "\r\n" + script +
                       "\r\n$1\r\n0\r\n"));
  // Nothing answers while the script runs: the reply never comes before the kill.
  EXPECT_EQ(raw.ReadExactly(1, 500), "");
  server_.Kill();
  Start({});
  EXPECT_EQ(Do({"GET", "before"}), "$1");
  EXPECT_EQ(Do({"EXISTS", "k1"}), ":0");
  EXPECT_EQ(Do({"EXISTS", "k100"}), ":0");
}

}  // namespace
}  // namespace ebb::test
