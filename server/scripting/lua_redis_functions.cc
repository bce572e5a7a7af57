#include "server/scripting/lua_redis_functions.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>

extern "C" {
#include <lauxlib.h>
#include <lua.h>
}

#include "server/core/digest.h"
#include "server/scripting/lua_registry.h"
#include "server/scripting/lua_values.h"

namespace ebb::server::scripting {

namespace {

// Redis's redisLrand48: the 48-bit linear congruential generator of POSIX lrand48, so math.random
// gives the same sequence on every platform. One sequence per process, as in Redis.
uint64_t rand48_state = 0x1234ABCD330EULL;
constexpr int32_t kRand48Max = 0x7fffffff;

int32_t Lrand48() {
  rand48_state = (0x5DEECE66DULL * rand48_state + 0xB) & ((1ULL << 48) - 1);
  return static_cast<int32_t>(rand48_state >> 17);
}

void Srand48(int32_t seed) {
  rand48_state = (static_cast<uint64_t>(static_cast<uint32_t>(seed)) << 16) | 0x330E;
}

}  // namespace

int MathRandom(lua_State* L) {
  lua_pushlightuserdata(L, &kRunKey);
  lua_rawget(L, LUA_REGISTRYINDEX);
  const bool running = !lua_isnil(L, -1);
  lua_pop(L, 1);
  if (!running) return luaL_error(L, "math.random can only be called inside a script invocation");
  const lua_Number r = static_cast<lua_Number>(Lrand48() % kRand48Max) / kRand48Max;
  switch (lua_gettop(L)) {
    case 0:
      lua_pushnumber(L, r);
      break;
    case 1: {
      const int u = luaL_checkint(L, 1);
      luaL_argcheck(L, 1 <= u, 1, "interval is empty");
      lua_pushnumber(L, std::floor(r * u) + 1);
      break;
    }
    case 2: {
      const int l = luaL_checkint(L, 1);
      const int u = luaL_checkint(L, 2);
      luaL_argcheck(L, l <= u, 2, "interval is empty");
      lua_pushnumber(L, std::floor(r * (u - l + 1)) + l);
      break;
    }
    default:
      return luaL_error(L, "wrong number of arguments");
  }
  return 1;
}

int MathRandomseed(lua_State* L) {
  Srand48(luaL_checkint(L, 1));
  return 0;
}

// Redis's luaRedisPcall: Lua's pcall, except that an error table raised by redis.call comes back
// as its message.
int Pcall(lua_State* L) {
  const int argc = lua_gettop(L);
  lua_pushboolean(L, 1);
  lua_insert(L, 1);
  if (lua_pcall(L, argc - 1, LUA_MULTRET, 0) != 0) {
    lua_remove(L, 1);
    if (lua_istable(L, -1)) {
      lua_getfield(L, -1, "err");
      if (lua_isstring(L, -1)) {
        lua_replace(L, -2);
      } else {
        lua_pop(L, 1);
      }
    }
    lua_pushboolean(L, 0);
    lua_insert(L, 1);
  }
  return lua_gettop(L);
}

int Sha1hex(lua_State* L) {
  if (lua_gettop(L) != 1) return RaiseError(L, "wrong number of arguments");
  size_t length = 0;
  const char* s = lua_tolstring(L, 1, &length);
  char digest[41];
  const std::string hex = Sha1Hex(std::string_view(s == nullptr ? "" : s, s ? length : 0));
  std::copy(hex.begin(), hex.end(), digest);
  digest[40] = '\0';
  lua_pushstring(L, digest);
  return 1;
}

int ErrorReply(lua_State* L) {
  if (lua_gettop(L) != 1 || lua_type(L, -1) != LUA_TSTRING) {
    PushErrorTable(L, "wrong number or type of arguments");
    return 1;
  }
  size_t length = 0;
  const char* s = lua_tolstring(L, -1, &length);
  std::string_view error(s, length);
  if (error.empty() || error[0] != '-') {
    PushErrorTable(L, "-" + std::string(error));
  } else {
    PushErrorTable(L, error);
  }
  return 1;
}

int StatusReply(lua_State* L) {
  if (lua_gettop(L) != 1 || lua_type(L, -1) != LUA_TSTRING) {
    PushErrorTable(L, "wrong number or type of arguments");
    return 1;
  }
  lua_newtable(L);
  lua_pushstring(L, "ok");
  lua_pushvalue(L, -3);
  lua_settable(L, -3);
  return 1;
}

int Log(lua_State* L) {
  const int argc = lua_gettop(L);
  if (argc < 2) return RaiseError(L, "redis.log() requires two arguments or more.");
  if (!lua_isnumber(L, 1)) return RaiseError(L, "First argument must be a number (log level).");
  const int level = static_cast<int>(lua_tointeger(L, 1));
  if (level < 0 || level > 3) return RaiseError(L, "Invalid debug level.");
  luaL_Buffer buffer;
  luaL_buffinit(L, &buffer);
  for (int i = 2; i <= argc; ++i) {
    if (i > 2) luaL_addchar(&buffer, ' ');
    size_t length = 0;
    const char* s = lua_tolstring(L, i, &length);
    if (s != nullptr) luaL_addlstring(&buffer, s, length);
  }
  luaL_pushresult(&buffer);
  size_t length = 0;
  const char* message = lua_tolstring(L, -1, &length);
  static constexpr spdlog::level::level_enum kLevels[] = {
      spdlog::level::debug, spdlog::level::debug, spdlog::level::info, spdlog::level::warn};
  spdlog::log(kLevels[level], "{}", std::string_view(message, length));
  return 0;
}

}  // namespace ebb::server::scripting
