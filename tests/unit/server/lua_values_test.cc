// The Redis reply -> Lua value conversion (server/scripting/lua_values.h) for every RESP2 and
// RESP3 type, including those no ebb command replies today (doubles, booleans, big numbers,
// verbatim strings, sets, attributes), and the way back.
#include "server/scripting/lua_values.h"

#include <gtest/gtest.h>

#include <string>

extern "C" {
#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
}

namespace ebb::server::scripting {
namespace {

class LuaValuesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    L_ = luaL_newstate();
    luaL_openlibs(L_);
  }
  void TearDown() override { lua_close(L_); }

  // Converts `resp` to a Lua value, binds it to the global `v`, and returns what `expression`
  // (Lua, reading v) evaluates to, as a string.
  std::string Check(std::string_view resp, const std::string& expression) {
    PushReply(L_, resp);
    lua_setglobal(L_, "v");
    const std::string code = "return tostring(" + expression + ")";
    if (luaL_dostring(L_, code.c_str()) != 0) return "error: " + std::string(lua_tostring(L_, -1));
    std::string out = lua_tostring(L_, -1);
    lua_pop(L_, 1);
    return out;
  }
  // Converts the value of the Lua `expression` back to a reply.
  std::string Reply(const std::string& expression, int script_resp, int client_resp) {
    luaL_dostring(L_, ("return " + expression).c_str());
    std::string out;
    protocol::ReplyWriter writer(&out, client_resp);
    ReplyBudget budget{.bytes = &out};
    WriteLuaValue(L_, script_resp, writer, budget);
    return out;
  }

  lua_State* L_ = nullptr;
};

TEST_F(LuaValuesTest, Resp2) {
  EXPECT_EQ(Check(":42\r\n", "v"), "42");
  EXPECT_EQ(Check(":-7\r\n", "type(v)"), "number");
  EXPECT_EQ(Check("$5\r\nhello\r\n", "v"), "hello");
  EXPECT_EQ(Check("$0\r\n\r\n", "#v"), "0");
  EXPECT_EQ(Check("$-1\r\n", "v"), "false");
  EXPECT_EQ(Check("*-1\r\n", "v"), "false");
  EXPECT_EQ(Check("+OK\r\n", "v.ok"), "OK");
  EXPECT_EQ(Check("-ERR bad thing\r\n", "v.err"), "ERR bad thing");
  EXPECT_EQ(Check("*3\r\n:1\r\n$1\r\na\r\n*1\r\n$-1\r\n", "v[1] .. v[2] .. tostring(v[3][1])"),
            "1afalse");
  EXPECT_EQ(Check("*0\r\n", "#v"), "0");
}

TEST_F(LuaValuesTest, Resp3) {
  EXPECT_EQ(Check("_\r\n", "v"), "nil");
  EXPECT_EQ(Check("#t\r\n", "v"), "true");
  EXPECT_EQ(Check("#f\r\n", "v"), "false");
  EXPECT_EQ(Check(",3.25\r\n", "v.double"), "3.25");
  EXPECT_EQ(Check(",inf\r\n", "v.double"), "inf");
  EXPECT_EQ(Check("(12345678901234567890\r\n", "v.big_number"), "12345678901234567890");
  EXPECT_EQ(Check("=7\r\ntxt:abc\r\n", "v.verbatim_string.format .. v.verbatim_string.string"),
            "txtabc");
  EXPECT_EQ(Check("%2\r\n$1\r\na\r\n:1\r\n$1\r\nb\r\n#t\r\n", "v.map.a .. tostring(v.map.b)"),
            "1true");
  EXPECT_EQ(Check("~2\r\n$1\r\nx\r\n$1\r\ny\r\n", "tostring(v.set.x and v.set.y)"), "true");
  // An attribute is dropped; the reply it annotates remains.
  EXPECT_EQ(Check("|1\r\n$3\r\nkey\r\n$3\r\nval\r\n:5\r\n", "v"), "5");
  EXPECT_EQ(Check(">2\r\n$1\r\na\r\n$1\r\nb\r\n", "v[2]"), "b");
}

TEST_F(LuaValuesTest, LuaToReplies) {
  EXPECT_EQ(Reply("{1, 'x', {2}}", 2, 2), "*3\r\n:1\r\n$1\r\nx\r\n*1\r\n:2\r\n");
  EXPECT_EQ(Reply("true", 2, 3), ":1\r\n");
  EXPECT_EQ(Reply("false", 2, 2), "$-1\r\n");
  EXPECT_EQ(Reply("false", 2, 3), "_\r\n");
  EXPECT_EQ(Reply("true", 3, 3), "#t\r\n");
  EXPECT_EQ(Reply("false", 3, 2), ":0\r\n");  // RESP2 client: a boolean is 1 / 0
  EXPECT_EQ(Reply("{err='CODE text\\r\\nmore'}", 2, 2), "-CODE text  more\r\n");
  EXPECT_EQ(Reply("{ok='fine\\nline'}", 2, 2), "+fine line\r\n");
  EXPECT_EQ(Reply("{double=0.5}", 2, 3), ",0.5\r\n");
  EXPECT_EQ(Reply("{big_number='-42'}", 2, 2), "$3\r\n-42\r\n");
  EXPECT_EQ(Reply("{map={k='v'}}", 2, 3), "%1\r\n$1\r\nk\r\n$1\r\nv\r\n");
  EXPECT_EQ(Reply("{set={m=true}}", 2, 2), "*1\r\n$1\r\nm\r\n");
  EXPECT_EQ(Reply("function() end", 2, 2), "$-1\r\n");
  // The err field wins over the others, then ok (Redis's order).
  EXPECT_EQ(Reply("{ok='a', err='ERR b'}", 2, 2), "-ERR b\r\n");
}

TEST_F(LuaValuesTest, ErrorTables) {
  PushErrorTable(L_, "-WRONGTYPE Operation against a key\r\n");
  lua_getfield(L_, -1, "err");
  EXPECT_STREQ(lua_tostring(L_, -1), "WRONGTYPE Operation against a key");
  lua_pop(L_, 2);
  PushErrorTable(L_, "plain message");
  lua_getfield(L_, -1, "err");
  EXPECT_STREQ(lua_tostring(L_, -1), "ERR plain message");
  lua_pop(L_, 2);
}

}  // namespace
}  // namespace ebb::server::scripting
