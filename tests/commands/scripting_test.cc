// EVAL, EVALSHA, EVAL_RO, EVALSHA_RO and SCRIPT through the command layer, as Redis 7 documents
// them: the Lua <-> RESP conversions in both directions and both protocols, redis.call and
// redis.pcall with Redis's refusals and error wording, the sandbox, the script cache, shebang
// flags, and a script's writes as one batch (WATCH, transactions, ebb's own types).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "tests/support/command_runner.h"

namespace ebb::test {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

class ScriptingTest : public CommandTest {
 protected:
  std::string Eval(std::string_view script) { return Do({"EVAL", script, "0"}); }
  // The SHA-1 ebb names `script` by (SCRIPT LOAD's reply).
  std::string Sha(std::string_view script) { return Cmd({"SCRIPT", "LOAD", script}).str(); }
};

TEST_F(ScriptingTest, LuaValuesBecomeReplies) {
  EXPECT_EQ(Eval("return 1"), ":1");
  EXPECT_EQ(Eval("return 3.99"), ":3");  // numbers are truncated to integers
  EXPECT_EQ(Eval("return -3.99"), ":-3");
  EXPECT_EQ(Eval("return 'hello'"), "$hello");
  EXPECT_EQ(Eval("return true"), ":1");
  EXPECT_EQ(Eval("return false"), "nil");
  EXPECT_EQ(Eval("return nil"), "nil");
  EXPECT_EQ(Eval("return {1, 'two', {3, 'four'}}"), "[:1,$two,[:3,$four]]");
  // An array ends at its first nil.
  EXPECT_EQ(Eval("return {1, 2, nil, 4}"), "[:1,:2]");
  EXPECT_EQ(Eval("return {ok='FINE'}"), "+FINE");
  EXPECT_EQ(Eval("return {err='MYCODE something broke'}"), "-MYCODE something broke");
  EXPECT_EQ(Eval("return redis.status_reply('DONE')"), "+DONE");
  EXPECT_EQ(Eval("return redis.error_reply('MYCODE mine')"), "-MYCODE mine");
  EXPECT_EQ(Eval("return redis.error_reply('-MYCODE mine')"), "-MYCODE mine");
  EXPECT_EQ(Eval("return {double=3.5}"), "$3.5");  // RESP2: a double is a bulk string
  EXPECT_EQ(Eval("return {map={a=1}}"), "[$a,:1]");
  EXPECT_EQ(Eval("return {set={a=true}}"), "[$a]");
}

TEST_F(ScriptingTest, LuaValuesBecomeResp3Replies) {
  ebb_->Raw({"HELLO", "3"});
  // The script's own protocol decides how booleans come out: RESP2 unless it selects 3.
  EXPECT_EQ(ebb_->Raw({"EVAL", "return true", "0"}), ":1\r\n");
  EXPECT_EQ(ebb_->Raw({"EVAL", "return false", "0"}), "_\r\n");
  EXPECT_EQ(ebb_->Raw({"EVAL", "redis.setresp(3); return true", "0"}), "#t\r\n");
  EXPECT_EQ(ebb_->Raw({"EVAL", "redis.setresp(3); return false", "0"}), "#f\r\n");
  EXPECT_EQ(ebb_->Raw({"EVAL", "return {double=3.5}", "0"}), ",3.5\r\n");
  EXPECT_EQ(ebb_->Raw({"EVAL", "return {map={a=1}}", "0"}), "%1\r\n$1\r\na\r\n:1\r\n");
  EXPECT_EQ(ebb_->Raw({"EVAL", "return {set={a=true}}", "0"}), "~1\r\n$1\r\na\r\n");
  EXPECT_EQ(ebb_->Raw({"EVAL", "return {big_number='123456789012345678901234567890'}", "0"}),
            "(123456789012345678901234567890\r\n");
  EXPECT_EQ(ebb_->Raw({"EVAL", "return {verbatim_string={format='txt', string='hi'}}", "0"}),
            "=6\r\ntxt:hi\r\n");
}

TEST_F(ScriptingTest, RepliesBecomeLuaValues) {
  EXPECT_EQ(Do({"SET", "k", "v"}), "+OK");
  // integer -> number, bulk -> string, nil bulk -> false, status -> {ok=}, error -> {err=}.
  EXPECT_EQ(Eval("return type(redis.call('incr', 'n'))"), "$number");
  EXPECT_EQ(Eval("return type(redis.call('get', 'k'))"), "$string");
  EXPECT_EQ(Eval("return tostring(redis.call('get', 'missing'))"), "$false");
  EXPECT_EQ(Eval("return redis.call('set', 'k', 'w').ok"), "$OK");
  EXPECT_EQ(Eval("return redis.pcall('incr', 'k').err"),
            "$ERR value is not an integer or out of range");
  EXPECT_EQ(Eval("local r = redis.call('mget', 'k', 'missing'); return {r[1], type(r[2])}"),
            "[$w,$boolean]");
  // RESP3 (redis.setresp(3)): null -> nil, doubles, maps, booleans.
  EXPECT_EQ(Eval("redis.setresp(3); return tostring(redis.call('get', 'missing'))"), "$nil");
  // GETMETA replies a map: under RESP3 it is {map={...}}, under RESP2 a flat array.
  EXPECT_EQ(Eval("redis.setresp(3); return redis.call('getmeta', 'k').map.value"), "$w");
  EXPECT_EQ(Eval("redis.setresp(2); local m = redis.call('getmeta', 'k'); return {m[1], m[2]}"),
            "[$value,$w]");
}

TEST_F(ScriptingTest, KeysAndArgv) {
  EXPECT_EQ(Do({"EVAL", "return {KEYS[1], KEYS[2], ARGV[1], ARGV[2], #KEYS, #ARGV}", "2", "a", "b",
                "c", "d"}),
            "[$a,$b,$c,$d,:2,:2]");
  EXPECT_EQ(Do({"EVAL", "return 1", "3", "a"}),
            "-ERR Number of keys can't be greater than number of args");
  EXPECT_EQ(Do({"EVAL", "return 1", "-1"}), "-ERR Number of keys can't be negative");
  EXPECT_EQ(Do({"EVAL", "return 1", "x"}), "-ERR value is not an integer or out of range");
  EXPECT_EQ(Do({"EVAL", "return 1"}), "-ERR wrong number of arguments for 'eval' command");
}

TEST_F(ScriptingTest, CallErrorsRaiseAndPcallReturnsThem) {
  const std::string sha = Sha("return redis.call('nosuch')");
  EXPECT_EQ(Do({"EVALSHA", sha, "0"}), "-ERR Unknown Redis command called from script script: " +
                                           sha + ", on @user_script:1.");
  EXPECT_EQ(Eval("return redis.pcall('nosuch')"), "-ERR Unknown Redis command called from script");
  EXPECT_THAT(Eval("return redis.call('incr')"),
              StartsWith("-ERR Wrong number of args calling Redis command from script script: "));
  EXPECT_THAT(Eval("return redis.call('multi')"),
              StartsWith("-ERR This Redis command is not allowed from script script: "));
  EXPECT_THAT(Eval("return redis.call('eval', 'return 1', '0')"),
              StartsWith("-ERR This Redis command is not allowed from script"));
  EXPECT_THAT(Eval("return redis.call('subscribe', 'c')"),
              StartsWith("-ERR This Redis command is not allowed from script"));
  EXPECT_THAT(Eval("return redis.call()"),
              StartsWith("-ERR Please specify at least one argument for this redis lib call"));
  EXPECT_THAT(Eval("return redis.call('get', {})"),
              StartsWith("-ERR Lua redis lib command arguments must be strings or integers"));
  // A command's own error, raised by redis.call, keeps its code.
  EXPECT_EQ(Do({"SET", "s", "text"}), "+OK");
  EXPECT_THAT(Eval("return redis.call('incr', 's')"),
              StartsWith("-ERR value is not an integer or out of range script: "));
  EXPECT_THAT(Eval("return redis.call('tlog', 'size', 's')"),
              StartsWith("-WRONGTYPE Operation against a key holding the wrong kind of value"));
  // Lua's pcall catches redis.call's error as its message.
  EXPECT_EQ(Eval("local ok, e = pcall(redis.call, 'nosuch'); return {tostring(ok), e}"),
            "[$false,$ERR Unknown Redis command called from script]");
  // Runtime and compile errors.
  EXPECT_THAT(Eval("return 1 +"),
              StartsWith("-ERR Error compiling script (new function): user_script:1:"));
  EXPECT_THAT(Eval("error('boom')"), StartsWith("-ERR user_script:1: boom script: "));
  EXPECT_THAT(Eval("error({err='MYCODE custom'})"), StartsWith("-MYCODE custom script: "));
}

TEST_F(ScriptingTest, Sandbox) {
  EXPECT_THAT(Eval("return a"),
              StartsWith("-ERR Script attempted to access nonexistent global variable 'a'"));
  EXPECT_THAT(Eval("a = 10"),
              StartsWith("-ERR user_script:1: Attempt to modify a readonly table script: "));
  EXPECT_THAT(Eval("redis.call = function() end"), HasSubstr("Attempt to modify a readonly table"));
  EXPECT_THAT(Eval("string.len = nil"), HasSubstr("Attempt to modify a readonly table"));
  EXPECT_THAT(Eval("cjson.encode = nil"), HasSubstr("Attempt to modify a readonly table"));
  EXPECT_THAT(Eval("setmetatable(_G, {})"), HasSubstr("Attempt to modify a readonly table"));
  EXPECT_THAT(Eval("rawset(_G, 'x', 1)"), HasSubstr("Attempt to modify a readonly table"));
  EXPECT_THAT(Eval("getmetatable(_G).__index.x = 1"),
              HasSubstr("Attempt to modify a readonly table"));
  EXPECT_THAT(Eval("getmetatable('').__index.len = nil"),
              HasSubstr("Attempt to modify a readonly table"));
  for (const char* name : {"os", "io", "loadfile", "dofile", "print", "require", "debug"}) {
    EXPECT_THAT(Eval(std::string("return ") + name + " ~= nil"),
                HasSubstr("nonexistent global variable '" + std::string(name) + "'"))
        << name;
  }
  EXPECT_THAT(Eval("return loadstring(string.dump(function() return 1 end))()"),
              HasSubstr("attempt to call a nil value"));
  // Locals, closures and loadstring of source still work; KEYS does not outlive its run.
  EXPECT_EQ(Eval("local t = {} t.x = 5 return loadstring('return 2')() + t.x"), ":7");
  EXPECT_THAT(Do({"EVAL", "return 1", "1", "k"}), ":1");
  EXPECT_THAT(Eval("return KEYS[1]"), "nil");
}

TEST_F(ScriptingTest, Libraries) {
  EXPECT_EQ(Eval("return cjson.encode({1, 2, 3})"), "$[1,2,3]");
  EXPECT_EQ(Eval("return cjson.decode('{\"a\":[1,2]}').a[2]"), ":2");
  EXPECT_EQ(Eval("return bit.band(0xff, 0x0f)"), ":15");
  EXPECT_EQ(Eval("return bit.tohex(65535, 4)"), "$ffff");
  EXPECT_EQ(Eval("return redis.sha1hex('')"), "$da39a3ee5e6b4b0d3255bfef95601890afd80709");
  EXPECT_EQ(Eval("return redis.sha1hex('Pizza & Mandolino')"),
            "$74822d82031af7493c20eefa13bd07ec4fada82f");
  EXPECT_EQ(Eval("return string.format('%05d', 42)"), "$00042");
  EXPECT_EQ(Eval("redis.log(redis.LOG_NOTICE, 'from', 'a script') return 1"), ":1");
  EXPECT_THAT(Eval("redis.log(99, 'x')"), HasSubstr("Invalid debug level."));
  EXPECT_EQ(Eval("redis.set_repl(redis.REPL_ALL) return 1"), ":1");
  EXPECT_THAT(Eval("redis.set_repl(99)"), HasSubstr("Invalid replication flags."));
  EXPECT_THAT(Eval("redis.setresp(4)"), HasSubstr("RESP version must be 2 or 3."));
}

TEST_F(ScriptingTest, MathRandomIsRedisGenerator) {
  // Redis's lrand48 from seed 42 gives the same numbers on every platform.
  const std::string script =
      "math.randomseed(42) local a = math.random(1000) local b = math.random(1000) "
      "return {a, b}";
  const std::string first = Eval(script);
  EXPECT_EQ(Eval(script), first);
  EXPECT_NE(Eval("return tostring(math.random())"), Eval("return tostring(math.random())"));
}

TEST_F(ScriptingTest, ScriptCache) {
  const std::string sha = Sha("return 'cached'");
  EXPECT_EQ(sha.size(), 40u);
  EXPECT_EQ(Do({"EVALSHA", sha, "0"}), "$cached");
  std::string upper = sha;
  for (char& c : upper) c = static_cast<char>(std::toupper(c));
  EXPECT_EQ(Do({"EVALSHA", upper, "0"}), "$cached");
  EXPECT_EQ(Do({"SCRIPT", "EXISTS", sha, "ffffffffffffffffffffffffffffffffffffffff"}), "[:1,:0]");
  EXPECT_EQ(Do({"EVALSHA", "ffffffffffffffffffffffffffffffffffffffff", "0"}),
            "-NOSCRIPT No matching script. Please use EVAL.");
  EXPECT_EQ(Do({"EVALSHA", "short", "0"}), "-NOSCRIPT No matching script. Please use EVAL.");
  // EVAL caches what it runs.
  EXPECT_EQ(Eval("return 'by eval'"), "$by eval");
  EXPECT_EQ(Do({"SCRIPT", "EXISTS", Sha("return 'by eval'")}), "[:1]");
  EXPECT_EQ(Do({"SCRIPT", "FLUSH"}), "+OK");
  EXPECT_EQ(Do({"SCRIPT", "EXISTS", sha}), "[:0]");
  EXPECT_EQ(Do({"SCRIPT", "FLUSH", "ASYNC"}), "+OK");
  EXPECT_EQ(Do({"SCRIPT", "FLUSH", "NOW"}), "-ERR SCRIPT FLUSH only support SYNC|ASYNC option");
  EXPECT_EQ(Do({"SCRIPT", "LOAD", "return +"}).substr(0, 46),
            "-ERR Error compiling script (new function): us");
  EXPECT_EQ(Do({"SCRIPT", "KILL"}), "-NOTBUSY No scripts in execution right now.");
  EXPECT_THAT(R({"SCRIPT", "HELP"}), HasSubstr("EXISTS <sha1> [<sha1> ...]"));
}

TEST_F(ScriptingTest, ReadOnlyScripts) {
  EXPECT_EQ(Do({"SET", "k", "v"}), "+OK");
  EXPECT_EQ(Do({"EVAL_RO", "return redis.call('get', KEYS[1])", "1", "k"}), "$v");
  EXPECT_THAT(Do({"EVAL_RO", "return redis.call('set', 'k', 'x')", "0"}),
              StartsWith("-ERR Write commands are not allowed from read-only scripts. script: "));
  const std::string sha = Sha("return redis.call('del', 'k')");
  EXPECT_THAT(Do({"EVALSHA_RO", sha, "0"}),
              StartsWith("-ERR Write commands are not allowed from read-only scripts."));
  EXPECT_EQ(Do({"GET", "k"}), "$v");
  // Shebang flags: no-writes refuses writes; a script that may write refuses *_RO.
  EXPECT_THAT(Eval("#!lua flags=no-writes\nreturn redis.call('set', 'k', 'x')"),
              StartsWith("-ERR Write commands are not allowed from read-only scripts. script: "));
  EXPECT_EQ(Do({"EVAL_RO", "#!lua flags=no-writes\nreturn redis.call('get', 'k')", "0"}), "$v");
  EXPECT_EQ(Do({"EVAL_RO", "#!lua\nreturn 1", "0"}),
            "-ERR Can not execute a script with write flag using *_ro command.");
  EXPECT_THAT(Eval("#!lua\nreturn a"), HasSubstr("on @user_script:2."));  // lines kept
  EXPECT_EQ(Eval("#!lua flags=no-writes,allow-oom\nreturn 1"), ":1");
  EXPECT_EQ(Eval("#!lua flags=bogus\nreturn 1"), "-ERR Unexpected flag in script shebang: bogus");
  EXPECT_EQ(Eval("#!lua nonsense=1\nreturn 1"), "-ERR Unknown lua shebang option: nonsense=1");
  EXPECT_EQ(Eval("#!python\nreturn 1"), "-ERR Unexpected engine in script shebang: #!python");
  EXPECT_EQ(Eval("#!lua"), "-ERR Invalid script shebang");
}

TEST_F(ScriptingTest, EveryEbbCommandIsCallable) {
  EXPECT_EQ(Do({"EVAL", "return redis.call('TLOG', 'INS', KEYS[1], ARGV[1], ARGV[2])", "1", "log",
                "first", "1000"}),
            "+OK");
  EXPECT_EQ(Do({"EVAL", "return redis.call('TLOG', 'SIZE', KEYS[1])", "1", "log"}), ":1");
  EXPECT_EQ(Do({"EVAL", "return redis.call('TREG', 'SET', KEYS[1], 'v', '5')", "1", "reg"}),
            Do({"TREG", "SET", "reg2", "v", "5"}));
  EXPECT_EQ(Do({"EVAL", "return redis.call('TREG', 'GET', KEYS[1])", "1", "reg"}),
            Do({"TREG", "GET", "reg2"}));
  EXPECT_EQ(Do({"EVAL", "return redis.call('PUT', KEYS[1], 'x')", "1", "p"}),
            Do({"PUT", "p2", "x"}));
}

// FLUSHALL and FLUSHDB inside a script join its one batch: later calls see only what the script
// wrote since, and the whole of it holds after a restart.
TEST_F(ScriptingTest, AFlushInsideAScriptIsPartOfItsBatch) {
  EXPECT_EQ(Do({"MSET", "x", "1", "y", "2"}), "+OK");
  EXPECT_EQ(Eval("redis.call('set', 'a', '1') redis.call('flushall') redis.call('set', 'b', '2') "
                 "return {redis.call('dbsize'), redis.call('exists', 'x', 'a', 'b')}"),
            "[:1,:1]");
  ebb_->Reopen();
  EXPECT_EQ(Do({"KEYS", "*"}), "[$b]");
  EXPECT_EQ(Eval("redis.call('set', 'c', '3') redis.call('flushdb') return redis.call('dbsize')"),
            ":0");
  ebb_->Reopen();
  EXPECT_EQ(Do({"DBSIZE"}), ":0");
}

TEST_F(ScriptingTest, WritesAreOneBatchAndSignalWatchers) {
  // A script's writes are visible to its own later reads, and after it, to everyone.
  EXPECT_EQ(Eval("redis.call('set', 'a', '1') redis.call('incr', 'a') return redis.call('get', "
                 "'a')"),
            "$2");
  EXPECT_EQ(Do({"GET", "a"}), "$2");
  // A script that fails half-way keeps what it wrote (Redis does not roll back).
  EXPECT_THAT(Eval("redis.call('set', 'b', '1') error('stop')"), HasSubstr("stop"));
  EXPECT_EQ(Do({"GET", "b"}), "$1");
  // A write from a script invalidates another client's WATCH.
  const size_t other = ebb_->AddClient();
  EXPECT_EQ(DoAs(other, {"WATCH", "a"}), "+OK");
  EXPECT_EQ(DoAs(other, {"MULTI"}), "+OK");
  EXPECT_EQ(DoAs(other, {"GET", "a"}), "+QUEUED");
  EXPECT_EQ(Eval("return redis.call('set', 'a', 'changed')"), "+OK");
  EXPECT_EQ(DoAs(other, {"EXEC"}), "nil");
  // Inside MULTI, EVAL is queued and runs in the transaction's batch.
  EXPECT_EQ(Do({"MULTI"}), "+OK");
  EXPECT_EQ(Do({"SET", "t", "1"}), "+QUEUED");
  EXPECT_EQ(Do({"EVAL", "return redis.call('incr', 't')", "0"}), "+QUEUED");
  EXPECT_EQ(Do({"EXEC"}), "[+OK,:2]");
  EXPECT_EQ(Do({"GET", "t"}), "$2");
}

TEST_F(ScriptingTest, SelectStaysInsideTheScript) {
  EXPECT_EQ(Eval("redis.call('select', '1') redis.call('set', 'k', 'in1') return 1"), ":1");
  EXPECT_EQ(Do({"EXISTS", "k"}), ":0");
  EXPECT_EQ(Do({"SELECT", "1"}), "+OK");
  EXPECT_EQ(Do({"GET", "k"}), "$in1");
}

TEST_F(ScriptingTest, WritesSurviveReopen) {
  EXPECT_EQ(Eval("for i = 1, 50 do redis.call('set', 'k' .. i, i) end return 1"), ":1");
  ebb_->Reopen();
  EXPECT_EQ(Do({"GET", "k1"}), "$1");
  EXPECT_EQ(Do({"GET", "k50"}), "$50");
}

// A reply nested past Lua's stack limit is an error inside the reply, and the stack space it
// claimed goes back once Lua collects (Redis's "EVAL does not leak in the Lua stack").
TEST_F(ScriptingTest, DeepRepliesLeaveNoStackBehind) {
  // (Read raw: the nesting is deeper than hiredis parses.)
  EXPECT_THAT(ebb_->Raw({"EVAL", "local a = {} local b = {a} a[1] = b return a", "0"}),
              HasSubstr("-ERR reached lua stack limit\r\n"));
  for (int i = 0; i < 4; ++i) EXPECT_EQ(Eval("collectgarbage('collect') return 1"), ":1");
  const std::string info = Cmd({"INFO", "memory"}).str();
  const size_t at = info.find("used_memory_lua:");
  ASSERT_NE(at, std::string::npos);
  EXPECT_LT(std::stoll(info.substr(at + 16)), 100 * 1024);
}

}  // namespace
}  // namespace ebb::test
