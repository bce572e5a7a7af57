// FUNCTION LOAD/LIST/DELETE/FLUSH/DUMP/RESTORE/STATS and FCALL/FCALL_RO through the command
// layer, with Redis 7's replies and errors (tests/unit/functions.tcl).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "tests/support/command_runner.h"

namespace ebb::test {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

constexpr std::string_view kLibrary =
    "#!lua name=mylib\n"
    "redis.register_function('setter', function(keys, args)\n"
    "  return redis.call('set', keys[1], args[1])\n"
    "end)\n"
    "redis.register_function{function_name='getter', description='reads a key',\n"
    "  callback=function(keys) return redis.call('get', keys[1]) end, flags={'no-writes'}}\n";

class FunctionsTest : public CommandTest {};

TEST_F(FunctionsTest, LoadAndCall) {
  EXPECT_EQ(Do({"FUNCTION", "LOAD", kLibrary}), "$mylib");
  EXPECT_EQ(Do({"FCALL", "setter", "1", "k", "v"}), "+OK");
  EXPECT_EQ(Do({"FCALL", "getter", "1", "k"}), "$v");
  EXPECT_EQ(Do({"FCALL", "GETTER", "1", "k"}), "$v");  // names are case-insensitive
  EXPECT_EQ(Do({"FCALL_RO", "getter", "1", "k"}), "$v");
  EXPECT_EQ(Do({"FCALL_RO", "setter", "1", "k", "x"}),
            "-ERR Can not execute a script with write flag using *_ro command.");
  EXPECT_EQ(Do({"FCALL", "nosuch", "0"}), "-ERR Function not found");
  EXPECT_EQ(Do({"FCALL", "getter", "x"}), "-ERR Bad number of keys provided");
  EXPECT_EQ(Do({"FCALL", "getter", "2", "k"}),
            "-ERR Number of keys can't be greater than number of args");
  EXPECT_EQ(Do({"FUNCTION", "LOAD", kLibrary}), "-ERR Library 'mylib' already exists");
  EXPECT_EQ(Do({"FUNCTION", "LOAD", "REPLACE", kLibrary}), "$mylib");
  // Errors name the function and the library's line.
  EXPECT_EQ(Do({"FUNCTION", "LOAD",
                "#!lua name=bad\nredis.register_function('boom',\n"
                "  function() return redis.call('nosuch') end)"}),
            "$bad");
  EXPECT_EQ(Do({"FCALL", "boom", "0"}),
            "-ERR Unknown Redis command called from script script: boom, on @user_function:3.");
}

TEST_F(FunctionsTest, LoadErrors) {
  EXPECT_EQ(Do({"FUNCTION", "LOAD", "return 1"}), "-ERR Missing library metadata");
  EXPECT_EQ(Do({"FUNCTION", "LOAD", "#!lua name=x"}), "-ERR Invalid library metadata");
  EXPECT_EQ(Do({"FUNCTION", "LOAD", "#!lua\nreturn 1"}), "-ERR Library name was not given");
  EXPECT_EQ(Do({"FUNCTION", "LOAD", "#!lua name=a name=b\n"}),
            "-ERR Invalid metadata value, name argument was given multiple times");
  EXPECT_EQ(Do({"FUNCTION", "LOAD", "#!lua name=a foo=b\n"}),
            "-ERR Invalid metadata value given: foo=b");
  EXPECT_EQ(Do({"FUNCTION", "LOAD", "#!lua name=a-b\n"}),
            "-ERR Library names can only contain letters, numbers, or underscores(_) and must be "
            "at least one character long");
  EXPECT_EQ(Do({"FUNCTION", "LOAD", "#!js name=a\n"}), "-ERR Engine 'js' not found");
  EXPECT_EQ(Do({"FUNCTION", "LOAD", "#!lua name=a\nreturn 1"}), "-ERR No functions registered");
  EXPECT_THAT(Do({"FUNCTION", "LOAD", "#!lua name=a\nreturn +"}),
              StartsWith("-ERR Error compiling function: user_function:"));
  // While a library loads it sees its redis table alone.
  EXPECT_THAT(Do({"FUNCTION", "LOAD", "#!lua name=a\nreturn redis.call('ping')"}),
              HasSubstr("Script attempted to access nonexistent global variable 'call'"));
  EXPECT_THAT(Do({"FUNCTION", "LOAD", "#!lua name=a\nreturn math.random()"}),
              HasSubstr("Script attempted to access nonexistent global variable 'math'"));
  EXPECT_THAT(Do({"FUNCTION", "LOAD", "#!lua name=a\nx = 1"}),
              HasSubstr("Attempt to modify a readonly table"));
  EXPECT_THAT(
      Do({"FUNCTION", "LOAD", "#!lua name=a\nredis.register_function('f', function() end, 1)"}),
      HasSubstr("wrong number of arguments to redis.register_function"));
  EXPECT_THAT(Do({"FUNCTION", "LOAD",
                  "#!lua name=a\nredis.register_function{function_name='f', "
                  "callback=function() end, flags={'bogus'}}"}),
              HasSubstr("unknown flag given"));
  EXPECT_THAT(Do({"FUNCTION", "LOAD", "#!lua name=a\nwhile true do end"}),
              HasSubstr("FUNCTION LOAD timeout"));
  EXPECT_EQ(Do({"FUNCTION", "LOAD", "BOGUS", "#!lua name=a\n"}),
            "-ERR Unknown option given: BOGUS");
  EXPECT_EQ(Do({"FUNCTION", "STATS"}),
            "[$running_script,nil,$engines,[$LUA,[$libraries_count,:0,$functions_count,:0]]]");
  // A function another library has is refused, and the failed load changes nothing.
  EXPECT_EQ(Do({"FUNCTION", "LOAD", kLibrary}), "$mylib");
  EXPECT_EQ(Do({"FUNCTION", "LOAD",
                "#!lua name=other\nredis.register_function('getter', function() end)"}),
            "-ERR Function getter already exists");
  EXPECT_EQ(Do({"FUNCTION", "LOAD", "REPLACE", "#!lua name=mylib\nerror('no')"}).substr(0, 37),
            "-ERR Error registering functions: ERR");
  EXPECT_EQ(Do({"FCALL", "setter", "1", "k", "still"}), "+OK");
}

TEST_F(FunctionsTest, ListDeleteFlushStats) {
  EXPECT_EQ(Do({"FUNCTION", "LOAD", kLibrary}), "$mylib");
  EXPECT_EQ(Do({"FUNCTION", "LIST"}),
            "[[$library_name,$mylib,$engine,$LUA,$functions,[[$name,$getter,$description,$reads "
            "a key,$flags,[$no-writes]],[$name,$setter,$description,nil,$flags,[]]]]]");
  EXPECT_EQ(Do({"FUNCTION", "LIST", "LIBRARYNAME", "other*"}), "[]");
  EXPECT_THAT(Do({"FUNCTION", "LIST", "WITHCODE", "LIBRARYNAME", "my*"}),
              HasSubstr("$library_code,$#!lua name=mylib"));
  EXPECT_EQ(Do({"FUNCTION", "LIST", "LIBRARYNAME"}), "-ERR library name argument was not given");
  EXPECT_EQ(Do({"FUNCTION", "STATS"}),
            "[$running_script,nil,$engines,[$LUA,[$libraries_count,:1,$functions_count,:2]]]");
  EXPECT_EQ(Do({"FUNCTION", "DELETE", "nosuch"}), "-ERR Library not found");
  EXPECT_EQ(Do({"FUNCTION", "DELETE", "mylib"}), "+OK");
  EXPECT_EQ(Do({"FCALL", "getter", "1", "k"}), "-ERR Function not found");
  EXPECT_EQ(Do({"FUNCTION", "LOAD", kLibrary}), "$mylib");
  EXPECT_EQ(Do({"FUNCTION", "FLUSH", "SYNC"}), "+OK");
  EXPECT_EQ(Do({"FUNCTION", "LIST"}), "[]");
  EXPECT_EQ(Do({"FUNCTION", "FLUSH", "BAD"}),
            "-ERR FUNCTION FLUSH only supports SYNC|ASYNC option");
  EXPECT_EQ(Do({"FUNCTION", "KILL"}), "-NOTBUSY No scripts in execution right now.");
  // SCRIPT FLUSH leaves the functions alone.
  EXPECT_EQ(Do({"FUNCTION", "LOAD", kLibrary}), "$mylib");
  EXPECT_EQ(Do({"SCRIPT", "FLUSH"}), "+OK");
  EXPECT_EQ(Do({"FCALL", "setter", "1", "k", "v"}), "+OK");
}

TEST_F(FunctionsTest, DumpAndRestore) {
  EXPECT_EQ(Do({"FUNCTION", "LOAD", kLibrary}), "$mylib");
  const std::string dump = Cmd({"FUNCTION", "DUMP"}).str();
  EXPECT_EQ(Do({"FUNCTION", "FLUSH"}), "+OK");
  EXPECT_EQ(Do({"FUNCTION", "RESTORE", dump}), "+OK");
  EXPECT_EQ(Do({"FCALL", "setter", "1", "k", "v"}), "+OK");
  EXPECT_EQ(Do({"FUNCTION", "RESTORE", dump}), "-ERR Library mylib already exists");
  EXPECT_EQ(Do({"FUNCTION", "RESTORE", dump, "REPLACE"}), "+OK");
  EXPECT_EQ(Do({"FUNCTION", "LOAD",
                "#!lua name=extra\nredis.register_function('e', "
                "function() return 1 end)"}),
            "$extra");
  EXPECT_EQ(Do({"FUNCTION", "RESTORE", dump, "FLUSH"}), "+OK");
  EXPECT_EQ(Do({"FCALL", "e", "0"}), "-ERR Function not found");
  std::string damaged = dump;
  damaged[damaged.size() / 2] ^= 1;
  EXPECT_EQ(Do({"FUNCTION", "RESTORE", damaged}),
            "-ERR DUMP payload version or checksum are wrong");
  EXPECT_EQ(Do({"FUNCTION", "RESTORE", "garbage"}),
            "-ERR DUMP payload version or checksum are wrong");
  EXPECT_EQ(Do({"FUNCTION", "RESTORE", dump, "SOMETIMES"}),
            "-ERR Wrong restore policy given, value should be either FLUSH, APPEND or REPLACE.");
  EXPECT_EQ(Do({"FUNCTION", "RESTORE", dump, "FLUSH", "x"}),
            "-ERR unknown subcommand or wrong number of arguments for 'restore'. Try FUNCTION "
            "HELP.");
  EXPECT_EQ(Do({"FCALL", "getter", "1", "k"}), "$v");
}

TEST_F(FunctionsTest, FunctionsSeeNoKeysGlobalAndCannotRegister) {
  EXPECT_EQ(Do({"FUNCTION", "LOAD",
                "#!lua name=lib\n"
                "redis.register_function('keys', function() return KEYS end)\n"
                "redis.register_function('reg', function()\n"
                "  redis.register_function('x', function() end) end)\n"
                "redis.register_function('args', function(keys, args)\n"
                "  return {#keys, #args, keys[1], args[1]} end)"}),
            "$lib");
  EXPECT_THAT(Do({"FCALL", "keys", "1", "k"}),
              HasSubstr("Script attempted to access nonexistent global variable 'KEYS'"));
  EXPECT_THAT(Do({"FCALL", "reg", "0"}),
              HasSubstr("attempt to call field 'register_function' (a nil value)"));
  EXPECT_EQ(Do({"FCALL", "args", "1", "k", "a", "b"}), "[:1,:2,$k,$a]");
}

}  // namespace
}  // namespace ebb::test
