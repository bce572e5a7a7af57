// ebb's string.find, string.match, string.gmatch and string.gsub (server/scripting/
// lua_patterns.h) against stock Lua 5.1's, which ebb links: the same answers and errors for
// hand-picked and random subjects, patterns, starts and replacements; then the two bounds stock
// Lua lacks, its depth and the check it calls during a long match.
#include "server/scripting/lua_patterns.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <utility>
#include <vector>

extern "C" {
#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
}

namespace ebb::server::scripting {
namespace {

// Runs every function on (s, p, start, a replacement, a count) in protected mode and returns
// what each answered, error messages included, as one line.
constexpr const char* kEveryFunction = R"(
local s, p, start, replacement_kind, most = ...
local out = {}
local function add(ok, ...)
  out[#out + 1] = tostring(ok)
  for i = 1, select('#', ...) do
    local v = select(i, ...)
    out[#out + 1] = type(v) .. ':' .. tostring(v)
  end
end
add(pcall(string.find, s, p, start))
add(pcall(string.find, s, p, start, true))
add(pcall(string.match, s, p, start))
local replacements = {
  '<%0|%1>',
  function(a, b) if a == 'a' then return false end return '[' .. tostring(a) .. tostring(b) .. ']' end,
  {a = 'A', b = 1, ab = true},
  '%',
  '%2',
}
add(pcall(string.gsub, s, p, replacements[replacement_kind], most))
add(pcall(function()
  local seen = {}
  for a, b, c in string.gmatch(s, p) do
    if #seen == 50 then break end
    seen[#seen + 1] = tostring(a) .. ',' .. tostring(b) .. ',' .. tostring(c)
  end
  return table.concat(seen, ';')
end))
return table.concat(out, ' ')
)";

class LuaPatternsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    stock_ = luaL_newstate();
    luaL_openlibs(stock_);
    ours_ = luaL_newstate();
    luaL_openlibs(ours_);
    InstallPatternFunctions(ours_, nullptr);
  }
  void TearDown() override {
    lua_close(stock_);
    lua_close(ours_);
  }

  static std::string Answers(lua_State* L, const std::string& s, const std::string& p, int start,
                             int replacement_kind, int most) {
    lua_settop(L, 0);
    if (luaL_loadstring(L, kEveryFunction) != 0) return lua_tostring(L, -1);
    lua_pushlstring(L, s.data(), s.size());
    lua_pushlstring(L, p.data(), p.size());
    lua_pushinteger(L, start);
    lua_pushinteger(L, replacement_kind);
    if (most < 0) {
      lua_pushnil(L);
    } else {
      lua_pushinteger(L, most);
    }
    if (lua_pcall(L, 5, 1, 0) != 0) return std::string("error ") + lua_tostring(L, -1);
    size_t length = 0;
    const char* answer = lua_tolstring(L, -1, &length);
    return std::string(answer, length);
  }

  // Expects both states to answer alike; false when they differ.
  bool Alike(const std::string& s, const std::string& p, int start, int replacement_kind,
             int most) {
    const std::string stock = Answers(stock_, s, p, start, replacement_kind, most);
    const std::string ours = Answers(ours_, s, p, start, replacement_kind, most);
    EXPECT_EQ(ours, stock) << "subject [" << s << "] pattern [" << p << "] start " << start
                           << " replacement " << replacement_kind << " most " << most;
    return ours == stock;
  }

  std::string Eval(lua_State* L, const std::string& code) {
    if (luaL_dostring(L, code.c_str()) != 0) return "error: " + std::string(lua_tostring(L, -1));
    const std::string out = lua_tostring(L, -1);
    lua_pop(L, 1);
    return out;
  }

  lua_State* stock_ = nullptr;
  lua_State* ours_ = nullptr;
};

TEST_F(LuaPatternsTest, AnswersAsStockLuaOnPatternsScriptsUse) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"aab", "(a*)ab"},
      {"aaab", "(a-)(a+)b"},
      {"hello world", "(%w+) (%w+)"},
      {"  trim  ", "^%s*(.-)%s*$"},
      {"key=val", "(%w+)=(%w+)"},
      {"THE (quick) fox", "%((%a+)%)"},
      {"abcabc", "(abc)%1"},
      {"f(a(b)c)d", "%b()"},
      {"THE (quick) fox", "%f[%a]%a+"},
      {"x=1, y=2", "(%w+)=(%w+)"},
      {"aaa", "a?a?a?aaa"},
      {"abc", "()b()"},
      {"", ""},
      {"", "x*"},
      {"abc", ""},
      {"a.b", "%."},
      {"[x]", "[]]"},
      {"a-b", "[a%-]+"},
      {std::string("a\0b", 3), "%z"},
      {"a+b", "a+b"},
      {"user:1000:name", "^user:(%d+):(%a+)$"},
      {"abc", "[a"},
      {"abc", "%"},
      {"abc", "(()"},
      {"abc", "%1"},
      {"abc", "%f"},
      {"abc", "%b"},
      {"abc", "a)"},
  };
  for (const auto& [s, p] : cases) {
    for (int start : {-3, 0, 1, 2, 9}) {
      for (int kind = 1; kind <= 5; kind++) {
        if (!Alike(s, p, start, kind, -1)) return;
      }
    }
  }
  EXPECT_TRUE(Alike("aaaa", "a", 1, 1, 2));
}

TEST_F(LuaPatternsTest, AnswersAsStockLuaOnRandomPatterns) {
  const std::string bytes("aab()[]%.-b^$ \0x1\n", 18);
  const std::vector<std::string> items = {"a",
                                          "b",
                                          ".",
                                          "%a",
                                          "%A",
                                          "%d",
                                          "%s",
                                          "%w",
                                          "%x",
                                          "%p",
                                          "%l",
                                          "%u",
                                          "%c",
                                          "%z",
                                          "%%",
                                          "%.",
                                          "[ab]",
                                          "[^a]",
                                          "[a-c]",
                                          "[%a]",
                                          "[]]",
                                          "[^]]",
                                          "[a-]",
                                          "(",
                                          ")",
                                          "()",
                                          "%1",
                                          "%2",
                                          "%0",
                                          "%b()",
                                          "%bab",
                                          "%f[a]",
                                          "%f[%w]",
                                          "%f[^a]",
                                          "^",
                                          "$",
                                          "*",
                                          "+",
                                          "-",
                                          "?",
                                          "[",
                                          "%",
                                          "%b",
                                          "%f",
                                          "x",
                                          " ",
                                          std::string(1, '\0'),
                                          "[%]",
                                          "%]",
                                          "[a%-]"};
  std::mt19937_64 rng(20261205);
  for (int round = 0; round < 10000; round++) {
    std::string s;
    for (int n = static_cast<int>(rng() % 10); n > 0; n--) s += bytes[rng() % bytes.size()];
    std::string p;
    for (int n = static_cast<int>(rng() % 8); n > 0; n--) p += items[rng() % items.size()];
    const int start = static_cast<int>(rng() % 15) - 7;
    const int kind = static_cast<int>(rng() % 5) + 1;
    const int most = static_cast<int>(rng() % 5) - 1;
    if (!Alike(s, p, start, kind, most)) return;
  }
}

// Stock Lua 5.1 recurses once per item here, without a bound, and overflows the C stack.
TEST_F(LuaPatternsTest, ADeepPatternIsTooComplex) {
  const std::string deep =
      "return select(2, pcall(string.find, string.rep('a', 200000), "
      "string.rep('a?', 200000)))";
  EXPECT_EQ(Eval(ours_, deep), "pattern too complex");
  EXPECT_EQ(Eval(ours_,
                 "return select(2, pcall(string.gfind(string.rep('a', 200000), "
                 "string.rep('a?', 200000))))"),
            "pattern too complex");
  // As deep as Lua 5.2 and later allow, it matches.
  EXPECT_EQ(Eval(ours_, "return string.find(string.rep('a', 190), string.rep('a?', 190))"), "190");
}

int checks = 0;
TEST_F(LuaPatternsTest, ALongMatchCallsTheCheckWhichMayStopIt) {
  lua_State* L = luaL_newstate();
  luaL_openlibs(L);
  checks = 0;
  InstallPatternFunctions(L, [](lua_State* L) {
    if (++checks == 3) luaL_error(L, "stopped by the check");
  });
  // 2^30 ways to try: far past three checks' worth of steps.
  EXPECT_EQ(Eval(L,
                 "return select(2, pcall(string.find, string.rep('a', 30), "
                 "string.rep('a?', 30) .. string.rep('a', 30)))"),
            "stopped by the check");
  EXPECT_EQ(checks, 3);
  // A %b run and a gsub over a long subject count their steps too.
  checks = 0;
  EXPECT_EQ(Eval(L, "return select(2, pcall(string.gsub, string.rep('(', 3000), '%b()', ''))"),
            "stopped by the check");
  lua_close(L);
}

}  // namespace
}  // namespace ebb::server::scripting
