#include "server/scripting/lua_guards.h"

#include <climits>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

extern "C" {
#include <lauxlib.h>
#include <lua.h>
}

#include "server/scripting/lua_registry.h"

namespace ebb::server::scripting {
namespace {

constexpr char kBinaryChunkError[] = "binary chunks are not allowed";
constexpr char kSetfenvError[] = "'setfenv' cannot change environment of given object";
// The most bytes load() gathers from its reader: Lua's own string limit.
constexpr size_t kMaxLoadBytes = static_cast<size_t>(INT_MAX);
// The largest JSON text cjson.encode may write, and lua-cjson's default nesting bound.
constexpr size_t kMaxJsonBytes = size_t{128} << 20;
constexpr int kMaxJsonDepth = 1000;

int GuardedUnpack(lua_State* L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  const lua_Integer first = luaL_optinteger(L, 2, 1);
  const lua_Integer last =
      lua_isnoneornil(L, 3) ? static_cast<lua_Integer>(lua_objlen(L, 1)) : luaL_checkinteger(L, 3);
  if (first > last) return 0;
  // last - first in unsigned arithmetic: exact for every first <= last, where the signed
  // difference overflows on the widest 64-bit ranges (unpack(t, -2^63)).
  const uint64_t span = static_cast<uint64_t>(last) - static_cast<uint64_t>(first);
  if (span >= INT_MAX - 1 || !lua_checkstack(L, static_cast<int>(span + 1))) {
    return luaL_error(L, "too many results to unpack");
  }
  const int count = static_cast<int>(span + 1);
  for (int i = 0; i < count; ++i) lua_rawgeti(L, 1, static_cast<int>(first + i));
  return count;
}

// lua-bitop's argument conversion: the number, rounded, modulo 2^32.
uint32_t BitArgument(lua_State* L, int index) {
  const double n = luaL_checknumber(L, index) + 6755399441055744.0;  // 2^52 + 2^51
  uint64_t bits = 0;
  std::memcpy(&bits, &n, sizeof(bits));
  return static_cast<uint32_t>(bits);
}

int BitTohex(lua_State* L) {
  uint32_t value = BitArgument(L, 1);
  int64_t digits = lua_isnone(L, 2) ? 8 : static_cast<int32_t>(BitArgument(L, 2));
  const char* hex = "0123456789abcdef";
  if (digits < 0) {
    digits = -digits;  // 64-bit: -(-2^31) is representable
    hex = "0123456789ABCDEF";
  }
  if (digits > 8) digits = 8;
  char out[8];
  for (int64_t i = digits - 1; i >= 0; --i) {
    out[i] = hex[value & 15];
    value >>= 4;
  }
  lua_pushlstring(L, out, static_cast<size_t>(digits));
  return 1;
}

// Lua's LUA_SIGNATURE[0], ESC (decimal 27).
bool IsBinary(std::string_view chunk) { return !chunk.empty() && chunk[0] == '\033'; }

// Compiles `chunk` (never binary) and returns Lua's loadstring results.
int LoadChunk(lua_State* L, std::string_view chunk, const char* name) {
  if (IsBinary(chunk)) {
    lua_pushnil(L);
    lua_pushstring(L, kBinaryChunkError);
    return 2;
  }
  if (luaL_loadbuffer(L, chunk.data(), chunk.size(), name) == 0) return 1;
  lua_pushnil(L);
  lua_insert(L, -2);
  return 2;
}

int Loadstring(lua_State* L) {
  size_t length = 0;
  const char* s = luaL_checklstring(L, 1, &length);
  lua_settop(L, 2);
  if (lua_isnil(L, 2)) {  // the chunk itself names it, anchored as argument 1
    lua_pushvalue(L, 1);
    lua_replace(L, 2);
  }
  const char* name = luaL_checkstring(L, 2);
  return LoadChunk(L, std::string_view(s, length), name);
}

// load(f [, name]): the pieces f returns, gathered in a Lua buffer, then compiled as text.
int Load(lua_State* L) {
  luaL_checktype(L, 1, LUA_TFUNCTION);
  // The chunk name stays on the stack while Lua parses: Lua 5.1's parser does not anchor it
  // and a collection during the parse would free it (CVE-2025-49844).
  lua_settop(L, 2);
  if (lua_isnil(L, 2)) {
    lua_pushliteral(L, "=(load)");
    lua_replace(L, 2);
  }
  const char* name = luaL_checkstring(L, 2);
  lua_pushliteral(L, "");  // the chunk so far, at index 3
  for (;;) {
    lua_pushvalue(L, 1);
    lua_call(L, 0, 1);
    if (lua_isnil(L, -1)) {
      lua_pop(L, 1);
      break;
    }
    if (!lua_isstring(L, -1)) return luaL_error(L, "reader function must return a string");
    const size_t piece = lua_objlen(L, -1);
    if (piece == 0) {
      lua_pop(L, 1);
      break;
    }
    if (lua_objlen(L, 3) + piece > kMaxLoadBytes) return luaL_error(L, "chunk too large");
    lua_concat(L, 2);
  }
  size_t length = 0;
  const char* chunk = lua_tolstring(L, 3, &length);
  return LoadChunk(L, std::string_view(chunk, length), name);
}

// Pushes the function getfenv/setfenv name: a function, or the function at a stack level.
// Returns false (nothing pushed) for level 0, the running thread.
bool PushTarget(lua_State* L) {
  if (lua_isfunction(L, 1)) {
    lua_pushvalue(L, 1);
    return true;
  }
  const int level = luaL_optint(L, 1, 1);
  luaL_argcheck(L, level >= 0, 1, "level must be non-negative");
  if (level == 0) return false;
  lua_Debug ar;
  if (lua_getstack(L, level, &ar) == 0) luaL_argerror(L, 1, "invalid level");
  lua_getinfo(L, "f", &ar);
  if (lua_isnil(L, -1)) {
    luaL_error(L, "no function environment for tail call at level %d", level);
  }
  return true;
}

void PushGlobalsView(lua_State* L) {
  lua_pushlightuserdata(L, &kRunGlobalsKey);
  lua_rawget(L, LUA_REGISTRYINDEX);
}

bool IsSandboxFunction(lua_State* L, int index);

// The environments of C functions and of the sandbox's own functions are Lua's real globals:
// they are answered as the read-only view.
int Getfenv(lua_State* L) {
  if (!PushTarget(L) || lua_iscfunction(L, -1) || IsSandboxFunction(L, -1)) {
    PushGlobalsView(L);
    return 1;
  }
  lua_getfenv(L, -1);
  return 1;
}

bool IsSandboxFunction(lua_State* L, int index) {
  if (!lua_isfunction(L, index)) return false;
  lua_Debug ar;
  lua_pushvalue(L, index);
  lua_getinfo(L, ">S", &ar);
  return std::strcmp(ar.source, "@sandbox") == 0;
}

int Setfenv(lua_State* L) {
  luaL_checktype(L, 2, LUA_TTABLE);
  if (!PushTarget(L) || lua_iscfunction(L, -1) || IsSandboxFunction(L, -1)) {
    return luaL_error(L, kSetfenvError);
  }
  lua_pushvalue(L, 2);
  if (lua_setfenv(L, -2) == 0) return luaL_error(L, kSetfenvError);
  return 1;
}

int Collectgarbage(lua_State* L) {
  static const char* const kOptions[] = {"collect", "count", "step", nullptr};
  static constexpr int kWhat[] = {LUA_GCCOLLECT, LUA_GCCOUNT, LUA_GCSTEP};
  const int option = luaL_checkoption(L, 1, "collect", kOptions);
  const int arg = luaL_optint(L, 2, 0);
  const int result = lua_gc(L, kWhat[option], arg);
  switch (kWhat[option]) {
    case LUA_GCCOUNT:
      lua_pushnumber(L, result + lua_gc(L, LUA_GCCOUNTB, 0) / 1024.0);
      return 1;
    case LUA_GCSTEP:
      lua_pushboolean(L, result);
      return 1;
    default:
      lua_pushnumber(L, result);
      return 1;
  }
}

// An upper bound of the bytes cjson.encode writes for the value at `index`, stopping once past
// kMaxJsonBytes (so a table shared many times, or nested in itself, costs no more than that).
void AddJsonBound(lua_State* L, int index, int depth, size_t* bound) {
  if (*bound > kMaxJsonBytes) return;
  switch (lua_type(L, index)) {
    case LUA_TSTRING:
      *bound += 6 * lua_objlen(L, index) + 2;  // every byte may become \u00XX
      return;
    case LUA_TTABLE:
      *bound += 2;
      // Deeper than cjson encodes: it raises its own error there.
      if (depth > kMaxJsonDepth || !lua_checkstack(L, 3)) return;
      lua_pushnil(L);
      while (lua_next(L, index < 0 ? index - 1 : index) != 0) {
        AddJsonBound(L, lua_gettop(L) - 1, depth + 1, bound);
        AddJsonBound(L, lua_gettop(L), depth + 1, bound);
        lua_pop(L, 1);
        if (*bound > kMaxJsonBytes) {
          lua_pop(L, 1);
          return;
        }
      }
      return;
    default:
      *bound += 32;  // a number, a boolean, null
  }
}

// cjson.encode, refused for a value whose encoding could pass kMaxJsonBytes: lua-cjson 2.1's
// buffer sizes are ints, and a large enough output overflows them (CVE-2022-24834).
int CjsonEncode(lua_State* L) {
  size_t bound = 0;
  if (lua_gettop(L) >= 1) AddJsonBound(L, 1, 1, &bound);
  if (bound > kMaxJsonBytes) {
    return luaL_error(L, "cjson.encode: the value may encode to more than %d bytes",
                      static_cast<int>(kMaxJsonBytes));
  }
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_insert(L, 1);
  lua_call(L, lua_gettop(L) - 1, LUA_MULTRET);
  return lua_gettop(L);
}

void SetGlobal(lua_State* L, const char* name, lua_CFunction f) {
  lua_pushcfunction(L, f);
  lua_setglobal(L, name);
}

}  // namespace

void InstallGuards(lua_State* L) {
  SetGlobal(L, "unpack", GuardedUnpack);
  SetGlobal(L, "loadstring", Loadstring);
  SetGlobal(L, "load", Load);
  SetGlobal(L, "getfenv", Getfenv);
  SetGlobal(L, "setfenv", Setfenv);
  SetGlobal(L, "collectgarbage", Collectgarbage);
  lua_getglobal(L, "bit");
  lua_pushcfunction(L, BitTohex);
  lua_setfield(L, -2, "tohex");
  lua_pop(L, 1);
  lua_getglobal(L, "cjson");
  lua_getfield(L, -1, "encode");
  lua_pushcclosure(L, CjsonEncode, 1);
  lua_setfield(L, -2, "encode");
  lua_pop(L, 1);
}

void* LimitedAlloc(void* ud, void* ptr, size_t old_size, size_t new_size) {
  auto* heap = static_cast<HeapLimit*>(ud);
  if (new_size == 0) {
    std::free(ptr);
    heap->used -= old_size;
    return nullptr;
  }
  if (heap->enforce && heap->limit != 0 && new_size > old_size &&
      heap->used - old_size + new_size > heap->limit) {
    return nullptr;
  }
  void* grown = std::realloc(ptr, new_size);
  if (grown != nullptr) heap->used = heap->used - old_size + new_size;
  return grown;
}

}  // namespace ebb::server::scripting
