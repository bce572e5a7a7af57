// Every Lua scripting advisory Redis has published, as a script that once broke Redis (or would
// break stock Lua 5.1, which ebb runs): each must answer an error or the right result, and the
// server must keep serving (docs/security.md, "Scripts", names each test).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "server/scripting/script_engine.h"
#include "server/services/server_context.h"
#include "tests/support/command_runner.h"

namespace ebb::test {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

class LuaAdvisoriesTest : public CommandTest {
 protected:
  std::string Eval(std::string_view script) { return Do({"EVAL", script, "0"}); }
  void TearDown() override { EXPECT_EQ(Do({"PING"}), "+PONG"); }
};

// Bytecode: no loader accepts a binary chunk.
TEST_F(LuaAdvisoriesTest, CVE_2015_4335_NoLoaderAcceptsBytecode) {
  EXPECT_EQ(Eval("local f, e = loadstring(string.dump(function() return 4242 end)) return e"),
            "$binary chunks are not allowed");
  EXPECT_EQ(Eval("local s = string.dump(function() return 4242 end) local d = false "
                 "local f, e = load(function() if d then return nil end d = true return s end) "
                 "return e"),
            "$binary chunks are not allowed");
  // The bytecode split so its first piece is one byte: load judges the whole chunk.
  EXPECT_EQ(Eval("local s = string.dump(function() return 4242 end) local i = 0 "
                 "local f, e = load(function() i = i + 1 return s:sub(i, i) ~= '' and s:sub(i, i) "
                 "or nil end) return e"),
            "$binary chunks are not allowed");
  EXPECT_THAT(Eval("local s = string.dump(function() return 4242 end) local d = false "
                   "local f = load(function() if d then return nil end d = true return s end) "
                   "return f()"),
              HasSubstr("attempt to call local 'f' (a nil value)"));
  // Source still loads, through both.
  EXPECT_EQ(Eval("local d = false return load(function() if d then return nil end d = true "
                 "return 'return 7' end)() + loadstring('return 1')()"),
            ":8");
  EXPECT_THAT(Eval("return dofile"), HasSubstr("nonexistent global variable 'dofile'"));
  EXPECT_THAT(Eval("return loadfile"), HasSubstr("nonexistent global variable 'loadfile'"));
}

// cmsgpack: packing and unpacking many values checks the Lua stack.
TEST_F(LuaAdvisoriesTest, CVE_2018_11218_CmsgpackChecksTheStack) {
  // Past the stack: an error, as Redis's fixed cmsgpack answers, never an overflow.
  EXPECT_THAT(Eval("local t = {} for i = 1, 7000 do t[i] = i end return cmsgpack.pack(unpack(t))"),
              HasSubstr("Too many arguments for MessagePack pack."));
  EXPECT_THAT(Eval("return select('#', cmsgpack.unpack(string.rep('\\192', 100000)))"),
              HasSubstr("stack overflow (too many return values at once"));
  EXPECT_EQ(Eval("local t = {} for i = 1, 100 do t[i] = i end "
                 "return #{cmsgpack.unpack(cmsgpack.pack(unpack(t)))}"),
            ":100");
  // A table nested in itself packs to a bounded depth.
  EXPECT_EQ(Eval("local a = {} a[1] = a return #cmsgpack.pack(a) > 0"), ":1");
}

// struct: sizes and counts past an int are errors, not overflows.
TEST_F(LuaAdvisoriesTest, CVE_2018_11219_StructSizesAreChecked) {
  EXPECT_THAT(Eval("return struct.pack('i99999999999999999999', 1)"), StartsWith("-ERR"));
  EXPECT_THAT(Eval("return struct.unpack('c99999999999999999999', 'x')"), StartsWith("-ERR"));
  EXPECT_THAT(Eval("return struct.unpack('i33', string.rep('x', 33))"), StartsWith("-ERR"));
  // Found by lua_script_fuzz: a zero-byte signed integer shifted by -1 (undefined behaviour).
  EXPECT_EQ(Eval("return {struct.unpack('i0', 'x')}"), "[:0,:1]");
  EXPECT_EQ(Eval("return {struct.unpack('>i00B', 'x')}"), "[:0,:120,:2]");
  EXPECT_EQ(Eval("return struct.pack('i0I0', 5, 6)"), "$");
}

TEST_F(LuaAdvisoriesTest, CVE_2020_14147_StructCountOverflow) {
  EXPECT_THAT(Eval("return struct.pack('c2147483648', 'x')"), StartsWith("-ERR"));
  EXPECT_THAT(Eval("return struct.unpack('c2147483647', 'x')"), StartsWith("-ERR"));
  EXPECT_THAT(Eval("return struct.size('!2147483648i')"), StartsWith("-"));
}

// Replies into Lua and arguments out of it check the stack.
TEST_F(LuaAdvisoriesTest, CVE_2021_32626_LargeRepliesAndArgumentLists) {
  EXPECT_EQ(Eval("local t = {} for i = 1, 7900 do t[i] = 'k' .. i end "
                 "return redis.call('mset', unpack(t))"),
            "+OK");
  EXPECT_EQ(Eval("local t = {} for i = 1, 7900 do t[i] = 'k' .. i end "
                 "return #redis.call('mget', unpack(t))"),
            ":7900");
  EXPECT_EQ(Eval("local t = {} for i = 1, 7900 do t[i] = 'k' .. i end "
                 "return select('#', unpack(redis.call('mget', unpack(t))))"),
            ":7900");
}

// cjson: an output past lua-cjson's int buffer sizes is refused before it is written.
TEST_F(LuaAdvisoriesTest, CVE_2022_24834_CjsonEncodeIsBounded) {
  EXPECT_EQ(Do({"CONFIG", "SET", "lua-memory-limit", "0"}), "+OK");
  EXPECT_THAT(Eval("local s = string.rep('\"', 32 * 1024 * 1024) "
                   "return cjson.encode({s, s, s, s, s, s, s, s, s, s, s, s})"),
              HasSubstr("cjson.encode: the value may encode to more than"));
  EXPECT_THAT(Eval("local t = {} for i = 1, 40 do t = {t, t} end return cjson.encode(t)"),
              HasSubstr("cjson.encode: the value may encode to more than"));
  EXPECT_EQ(Eval("return cjson.encode({'\"', 1})"), "$[\"\\\"\",1]");
}

// Debian's liblua5.1 exposes package.loadlib: no script reaches package, from anywhere.
TEST_F(LuaAdvisoriesTest, CVE_2022_0543_NoPackageLibrary) {
  EXPECT_THAT(Eval("return package.loadlib('/usr/lib/x86_64-linux-gnu/liblua5.1.so.0', "
                   "'luaopen_io')"),
              HasSubstr("nonexistent global variable 'package'"));
  EXPECT_THAT(Eval("return require"), HasSubstr("nonexistent global variable 'require'"));
  EXPECT_THAT(Eval("return module"), HasSubstr("nonexistent global variable 'module'"));
  // A C function's environment is the read-only view, not Lua's real globals.
  EXPECT_THAT(Eval("return getfenv(tostring).package"),
              HasSubstr("nonexistent global variable 'package'"));
  EXPECT_THAT(Eval("getfenv(tostring).x = 1"), HasSubstr("Attempt to modify a readonly table"));
  EXPECT_THAT(Eval("getfenv(setmetatable).x = 1"), HasSubstr("Attempt to modify a readonly table"));
}

// lua-bitop's tohex with n = -2^31 wrote past its buffer.
TEST_F(LuaAdvisoriesTest, CVE_2024_31449_BitTohexMinimumCount) {
  EXPECT_EQ(Eval("return {pcall(bit.tohex, 65535, -2147483648)}"), "[:1,$0000FFFF]");
  EXPECT_EQ(Eval("return bit.tohex(65535, 2147483647)"), "$0000ffff");
  EXPECT_EQ(Eval("return bit.tohex(-1, -4)"), "$FFFF");
  EXPECT_EQ(Eval("return bit.tohex(255)"), "$000000ff");
}

// Finalizers and state kept across SCRIPT FLUSH: no userdata maker, and a fresh state.
TEST_F(LuaAdvisoriesTest, CVE_2024_46981_FlushStartsAFreshState) {
  EXPECT_THAT(Eval("return newproxy"), HasSubstr("nonexistent global variable 'newproxy'"));
  EXPECT_EQ(Do({"FUNCTION", "LOAD",
                "#!lua name=lib\nredis.register_function('f', function() return 5 end)"}),
            "$lib");
  EXPECT_EQ(Eval("return 1"), ":1");
  EXPECT_EQ(Do({"SCRIPT", "FLUSH"}), "+OK");
  EXPECT_EQ(Eval("return 1"), ":1");
  EXPECT_EQ(Do({"FCALL", "f", "0"}), ":5");  // libraries load again into the fresh state
  EXPECT_EQ(Do({"FUNCTION", "FLUSH"}), "+OK");
  EXPECT_EQ(Do({"FCALL", "f", "0"}), "-ERR Function not found");
  EXPECT_EQ(Eval("return 2"), ":2");  // scripts compile again into the fresh state
}

// The parser's chunk name is anchored: a collection while a chunk loads frees nothing in use.
TEST_F(LuaAdvisoriesTest, CVE_2025_49844_CollectionWhileParsing) {
  EXPECT_EQ(Eval("local n = 0 for i = 1, 200 do local d = false "
                 "local f = load(function() collectgarbage('collect') if d then return nil end "
                 "d = true return 'return ' .. i end) n = n + f() end return n"),
            ":20100");
  EXPECT_EQ(Eval("local n = 0 for i = 1, 200 do collectgarbage('step') "
                 "n = n + loadstring('return ' .. i)() end return n"),
            ":20100");
}

// unpack's count overflowed on the widest range, in 32 bits and in 64 (Lua's integers).
TEST_F(LuaAdvisoriesTest, CVE_2025_46817_UnpackRanges) {
  EXPECT_THAT(Eval("return {unpack({0,2,3}, -2^63)}"), HasSubstr("too many results to unpack"));
  EXPECT_THAT(Eval("return {unpack({0,2,3}, -2^63, 2^62)}"),
              HasSubstr("too many results to unpack"));
  EXPECT_THAT(Eval("return {unpack({0,2,3}, -2^62, 2^62)}"),
              HasSubstr("too many results to unpack"));
  EXPECT_EQ(Eval("return {unpack({0,2,3}, 2^62, -2^63)}"), "[]");
  EXPECT_THAT(Eval("return {unpack({1,2,3}, -2147483648, 2147483647)}"),
              HasSubstr("too many results to unpack"));
  EXPECT_THAT(Eval("return {unpack({1,2,3}, 0, 2147483647)}"),
              HasSubstr("too many results to unpack"));
  EXPECT_THAT(Eval("return {unpack({1,2,3}, -2, 2147483647)}"),
              HasSubstr("too many results to unpack"));
  EXPECT_EQ(Eval("return {unpack({1,2,3}, 2147483647, -2147483648)}"), "[]");
  EXPECT_EQ(Eval("return {unpack({1,2,3})}"), "[:1,:2,:3]");
  EXPECT_EQ(Eval("return {unpack({1,2,3}, 2)}"), "[:2,:3]");
  EXPECT_EQ(Eval("return {unpack({1,2,3}, 2, 3)}"), "[:2,:3]");
}

// One script reaching into the next: basic types' metatables, the thread's globals, and the
// library functions' environments are out of reach.
TEST_F(LuaAdvisoriesTest, CVE_2025_46818_NoScriptRunsInsideAnother) {
  EXPECT_THAT(Eval("getmetatable('').__index = {}"),
              HasSubstr("Attempt to modify a readonly table"));
  EXPECT_THAT(Eval("getmetatable('').__index.upper = function() end"),
              HasSubstr("Attempt to modify a readonly table"));
  EXPECT_THAT(Eval("setmetatable(getmetatable(''), {})"),
              HasSubstr("Attempt to modify a readonly table"));
  EXPECT_THAT(Eval("setfenv(0, {})"),
              HasSubstr("'setfenv' cannot change environment of given object"));
  EXPECT_THAT(Eval("setfenv(setmetatable, {})"),
              HasSubstr("'setfenv' cannot change environment of given object"));
  EXPECT_THAT(Eval("setfenv(tostring, {})"),
              HasSubstr("'setfenv' cannot change environment of given object"));
  // A wrapper around redis.call armed by one run is gone in the next run of the same script.
  const std::string script =
      "if ARGV[1] == 'arm' then setfenv(1, setmetatable({redis = {call = function() "
      "return 'hijacked' end}}, {__index = getfenv(0)})) end return redis.call('ping')";
  EXPECT_EQ(Do({"EVAL", script, "0", "arm"}), "$hijacked");
  EXPECT_EQ(Do({"EVAL", script, "0", "run"}), "+PONG");
  // Still usable inside one script: setfenv on a function of its own.
  EXPECT_EQ(Eval("local function f() return x end setfenv(f, {x = 3}) return f()"), ":3");
}

// The lexer's error paths on malformed long strings, comments and numbers.
TEST_F(LuaAdvisoriesTest, CVE_2025_46819_MalformedTokens) {
  for (const char* script : {"return [[", "return [==[ x ]=]", "--[[", "--[==[ x", "return 0x",
                             "return 1e", "return '\\", "return \"abc", "[=", "return [=x"}) {
    EXPECT_THAT(Do({"EVAL", script, "0"}), StartsWith("-ERR Error compiling script")) << script;
  }
}

// ebb's own bounds on what a script costs.
// Stock Lua 5.1's pattern matcher recurses once per pattern item without a bound: 200,000 `a?`
// items overflowed the C stack and killed the server (Redis 7.0 too). ebb's matcher refuses a
// pattern nested past 200 levels, as Lua 5.2 and later do.
TEST_F(LuaAdvisoriesTest, PatternMatchingIsBoundedInDepth) {
  for (const char* call : {"string.find(s, p)", "string.match(s, p)", "string.gsub(s, p, '')",
                           "string.gmatch(s, p)()", "string.gfind(s, p)()"}) {
    EXPECT_THAT(Eval("local s, p = string.rep('a', 200000), string.rep('a?', 200000) return " +
                     std::string(call)),
                HasSubstr("pattern too complex"))
        << call;
  }
  EXPECT_EQ(Eval("return string.match('key=value', '^(%w+)=(%w+)$')"), "$key");
}

TEST_F(LuaAdvisoriesTest, ErrorObjectMetamethodsNeverRun) {
  // Read raw: an __index that never returns is never called.
  EXPECT_THAT(Eval("error(setmetatable({}, {__index = function() while true do end end}))"),
              StartsWith("-ERR unknown error script: "));
  EXPECT_THAT(Eval("error(setmetatable({err = 'MY own'}, {__newindex = function() "
                   "while true do end end}))"),
              StartsWith("-MY own script: "));
  EXPECT_THAT(Eval("error(redis)"), StartsWith("-ERR "));
  // The handler never wrote its position into a read-only table raised as the error.
  EXPECT_EQ(Eval("return redis.source"), "nil");
}

TEST_F(LuaAdvisoriesTest, SharedTableRepliesAreBounded) {
  EXPECT_EQ(Eval("local t = {1} for i = 1, 40 do t = {t, t} end return t"),
            "-ERR Script reply too large: more than 16777216 values or 536870912 bytes");
  EXPECT_EQ(Eval("local t = {1} for i = 1, 3 do t = {t, t} end return t"),
            "[[[[:1],[:1]],[[:1],[:1]]],[[[:1],[:1]],[[:1],[:1]]]]");
}

// The fuzzing harness converts under smaller bounds; the same check enforces them.
TEST_F(LuaAdvisoriesTest, ReplyLimitsAreTheEnginesSetting) {
  ebb_->context().scripts().set_reply_limits({.max_elements = 4, .max_bytes = 1 << 20});
  EXPECT_EQ(Eval("return {1, 2, 3}"), "[:1,:2,:3]");
  EXPECT_THAT(Eval("return {1, 2, 3, 4}"), StartsWith("-ERR Script reply too large"));
  ebb_->context().scripts().set_reply_limits({});
  EXPECT_EQ(Eval("return {1, 2, 3, 4}"), "[:1,:2,:3,:4]");
}

TEST_F(LuaAdvisoriesTest, HeapIsBoundedByLuaMemoryLimit) {
  EXPECT_EQ(Do({"CONFIG", "GET", "lua-memory-limit"}), "[$lua-memory-limit,$268435456]");
  EXPECT_EQ(Do({"CONFIG", "SET", "lua-memory-limit", "8mb"}), "+OK");
  const std::string sha =
      Cmd({"SCRIPT", "LOAD", "local t = {} for i = 1, 1e8 do t[i] = i end"}).str();
  EXPECT_EQ(Do({"EVALSHA", sha, "0"}),
            "-ERR Script exceeded lua-memory-limit (not enough memory), script: " + sha);
  EXPECT_EQ(Eval("local ok, e = pcall(string.rep, 'x', 64 * 1024 * 1024) return e"),
            "$not enough memory");
  EXPECT_EQ(Eval("return #string.rep('x', 1024 * 1024)"), ":1048576");
  EXPECT_EQ(Do({"CONFIG", "SET", "lua-memory-limit", "0"}), "+OK");
  EXPECT_EQ(Eval("return #string.rep('x', 64 * 1024 * 1024)"), ":67108864");
}

}  // namespace
}  // namespace ebb::test
