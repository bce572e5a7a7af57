// ScriptCode's texts (server/scripting/script_code.h): each outcome spelled as Redis 7 spells
// it, and the outcomes ParseShebang and CompileChunk return.
#include "server/scripting/script_code.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

extern "C" {
#include <lauxlib.h>
#include <lua.h>
}

#include "server/scripting/lua_registry.h"
#include "server/scripting/script_engine.h"

namespace ebb::server::scripting {
namespace {

std::string Text(ScriptCode code, std::string_view detail = {}) {
  return ScriptErrorText(Result<ScriptCode>(code, detail));
}

TEST(ScriptCodeTest, TextsQuoteTheirDetail) {
  EXPECT_EQ(Text(ScriptCode::kInvalidShebang), "ERR Invalid script shebang");
  EXPECT_EQ(Text(ScriptCode::kUnexpectedShebangEngine, "#!python"),
            "ERR Unexpected engine in script shebang: #!python");
  EXPECT_EQ(Text(ScriptCode::kUnexpectedShebangFlag, "bogus"),
            "ERR Unexpected flag in script shebang: bogus");
  EXPECT_EQ(Text(ScriptCode::kScriptCompile, "user_script:1: oops"),
            "ERR Error compiling script (new function): user_script:1: oops");
  EXPECT_EQ(Text(ScriptCode::kFunctionCompile, "user_function:1: oops"),
            "ERR Error compiling function: user_function:1: oops");
  EXPECT_EQ(Text(ScriptCode::kInvalidMetadataValue, "x=1"),
            "ERR Invalid metadata value given: x=1");
  EXPECT_EQ(Text(ScriptCode::kLibraryExistsOnLoad, "lib"), "ERR Library 'lib' already exists");
  EXPECT_EQ(Text(ScriptCode::kLibraryExistsOnRestore, "lib"), "ERR Library lib already exists");
  EXPECT_EQ(Text(ScriptCode::kFunctionExists, "f"), "ERR Function f already exists");
  EXPECT_EQ(Text(ScriptCode::kLibraryNotFound), "ERR Library not found");
  EXPECT_EQ(Text(ScriptCode::kLibrariesNotSaved, "IO error: /data/x: No space left on device"),
            "MISCONF Errors writing to the data directory: No space left on device");
  EXPECT_EQ(Text(ScriptCode::kLibrariesNotOpened, "cannot read f: IO error"),
            "cannot read f: IO error");
}

TEST(ScriptCodeTest, ParseShebang) {
  uint32_t flags = 0;
  size_t length = 0;
  ASSERT_TRUE(ParseShebang("return 1", &flags, &length).ok());
  EXPECT_EQ(flags, kScriptEvalCompat);
  ASSERT_TRUE(ParseShebang("#!lua flags=no-writes\nreturn 1", &flags, &length).ok());
  EXPECT_EQ(flags, kScriptNoWrites);
  EXPECT_EQ(length, 21u);

  EXPECT_EQ(ParseShebang("#!lua", &flags, &length).code(), ScriptCode::kInvalidShebang);
  const Result<ScriptCode> engine = ParseShebang("#!js\n", &flags, &length);
  EXPECT_EQ(engine.code(), ScriptCode::kUnexpectedShebangEngine);
  EXPECT_EQ(engine.detail(), "#!js");
  const Result<ScriptCode> option = ParseShebang("#!lua name=x\n", &flags, &length);
  EXPECT_EQ(option.code(), ScriptCode::kUnknownShebangOption);
  EXPECT_EQ(option.detail(), "name=x");
  const Result<ScriptCode> flag = ParseShebang("#!lua flags=no-writes,bogus\n", &flags, &length);
  EXPECT_EQ(flag.code(), ScriptCode::kUnexpectedShebangFlag);
  EXPECT_EQ(flag.detail(), "bogus");
}

TEST(ScriptCodeTest, CompileChunkReturnsLuasMessage) {
  lua_State* L = luaL_newstate();
  ASSERT_TRUE(CompileChunk(L, "return 1", "@user_script", ScriptCode::kScriptCompile).ok());
  EXPECT_EQ(lua_gettop(L), 1);  // the function
  lua_settop(L, 0);
  const Result<ScriptCode> r =
      CompileChunk(L, "return (", "@user_script", ScriptCode::kScriptCompile);
  EXPECT_EQ(r.code(), ScriptCode::kScriptCompile);
  EXPECT_EQ(r.detail().rfind("user_script:1:", 0), 0u) << r.detail();
  EXPECT_EQ(ScriptErrorText(r), "ERR Error compiling script (new function): " + r.detail());
  EXPECT_EQ(lua_gettop(L), 0);  // nothing pushed
  lua_close(L);
}

}  // namespace
}  // namespace ebb::server::scripting
