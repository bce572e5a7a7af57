// cmsgpack: MessagePack for scripts, byte for byte as Redis's bundled lua-cmsgpack
// (server/scripting/lua_libraries.h states what a script sees).
//
// Lua errors unwind with longjmp, which skips C++ destructors: the functions below that may raise
// (every Lua API call that allocates, and the library's own errors) hold no object with one. The
// one buffer that has one, pack's output, belongs to Pack, which runs the encoding under
// lua_pcall and raises only after the buffer is gone.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>

extern "C" {
#include <lauxlib.h>
#include <lua.h>
}

#include "server/scripting/lua_libraries.h"

namespace ebb::server::scripting {
namespace {

// Tables nested deeper than this encode as nil, so a table that contains itself ends.
constexpr int kMaxNesting = 16;

// ---- Encoding

void PutBigEndian(std::string* out, uint64_t value, int bytes) {
  for (int i = bytes - 1; i >= 0; --i) out->push_back(static_cast<char>((value >> (8 * i)) & 0xff));
}

void PutHeader(std::string* out, uint8_t type, uint64_t value, int bytes) {
  out->push_back(static_cast<char>(type));
  PutBigEndian(out, value, bytes);
}

void EncodeInteger(std::string* out, int64_t n) {
  const auto u = static_cast<uint64_t>(n);
  if (n >= 0) {
    if (n <= 127) {
      out->push_back(static_cast<char>(n));  // positive fixnum
    } else if (n <= 0xff) {
      PutHeader(out, 0xcc, u, 1);
    } else if (n <= 0xffff) {
      PutHeader(out, 0xcd, u, 2);
    } else if (n <= 0xffffffffLL) {
      PutHeader(out, 0xce, u, 4);
    } else {
      PutHeader(out, 0xcf, u, 8);
    }
  } else if (n >= -32) {
    out->push_back(static_cast<char>(n));  // negative fixnum
  } else if (n >= -128) {
    PutHeader(out, 0xd0, u, 1);
  } else if (n >= -32768) {
    PutHeader(out, 0xd1, u, 2);
  } else if (n >= -2147483648LL) {
    PutHeader(out, 0xd2, u, 4);
  } else {
    PutHeader(out, 0xd3, u, 8);
  }
}

// A float when that is exact, else a double (IEEE 754, big endian).
void EncodeDouble(std::string* out, double d) {
  const auto f = static_cast<float>(d);
  if (static_cast<double>(f) == d) {
    uint32_t bits;
    std::memcpy(&bits, &f, sizeof(bits));
    PutHeader(out, 0xca, bits, 4);
  } else {
    uint64_t bits;
    std::memcpy(&bits, &d, sizeof(bits));
    PutHeader(out, 0xcb, bits, 8);
  }
}

bool IsInt64(lua_Number n) {
  return n >= -9223372036854775808.0 && n < 9223372036854775808.0 && std::trunc(n) == n;
}

void EncodeString(std::string* out, const char* s, size_t length) {
  if (length < 32) {
    out->push_back(static_cast<char>(0xa0 | length));  // fix raw
  } else if (length <= 0xff) {
    PutHeader(out, 0xd9, length, 1);
  } else if (length <= 0xffff) {
    PutHeader(out, 0xda, length, 2);
  } else {
    PutHeader(out, 0xdb, length, 4);
  }
  out->append(s, length);
}

// An array or map header: the fix form up to 15 entries, then 16 and 32 bits.
void EncodeContainer(std::string* out, uint8_t fix, uint8_t type16, uint64_t n) {
  if (n <= 15) {
    out->push_back(static_cast<char>(fix | n));
  } else if (n <= 0xffff) {
    PutHeader(out, type16, n, 2);
  } else {
    PutHeader(out, type16 + 1, n, 4);
  }
}

// True if the table on the top of the stack has exactly the keys 1..n (numbers equal to a
// positive int, as many as the largest).
bool IsArray(lua_State* L) {
  luaL_checkstack(L, 2, "in function table_is_an_array");
  int64_t count = 0;
  lua_Number max = 0;
  lua_pushnil(L);
  while (lua_next(L, -2) != 0) {
    lua_pop(L, 1);
    const lua_Number n = lua_type(L, -1) == LUA_TNUMBER ? lua_tonumber(L, -1) : 0;
    if (n <= 0 || n > 2147483647.0 || std::trunc(n) != n) {
      lua_pop(L, 1);
      return false;
    }
    max = n > max ? n : max;
    count++;
  }
  return max == static_cast<lua_Number>(count);
}

void Encode(lua_State* L, std::string* out, int level);

void EncodeTable(lua_State* L, std::string* out, int level) {
  if (IsArray(L)) {
    const size_t length = lua_objlen(L, -1);
    EncodeContainer(out, 0x90, 0xdc, length);
    luaL_checkstack(L, 1, "in function mp_encode_lua_table_as_array");
    for (size_t i = 1; i <= length; ++i) {
      lua_pushnumber(L, static_cast<lua_Number>(i));
      lua_gettable(L, -2);
      Encode(L, out, level + 1);
    }
    return;
  }
  luaL_checkstack(L, 3, "in function mp_encode_lua_table_as_map");
  uint64_t count = 0;
  lua_pushnil(L);
  while (lua_next(L, -2) != 0) {
    lua_pop(L, 1);
    count++;
  }
  EncodeContainer(out, 0x80, 0xde, count);
  lua_pushnil(L);
  while (lua_next(L, -2) != 0) {
    lua_pushvalue(L, -2);
    Encode(L, out, level + 1);  // the key
    Encode(L, out, level + 1);  // the value
  }
}

// Encodes the value on the top of the stack and pops it.
void Encode(lua_State* L, std::string* out, int level) {
  int type = lua_type(L, -1);
  if (type == LUA_TTABLE && level == kMaxNesting) type = LUA_TNIL;
  switch (type) {
    case LUA_TSTRING: {
      size_t length = 0;
      const char* s = lua_tolstring(L, -1, &length);
      EncodeString(out, s, length);
      break;
    }
    case LUA_TBOOLEAN:
      out->push_back(static_cast<char>(lua_toboolean(L, -1) ? 0xc3 : 0xc2));
      break;
    case LUA_TNUMBER: {
      const lua_Number n = lua_tonumber(L, -1);
      if (IsInt64(n)) {
        EncodeInteger(out, static_cast<int64_t>(n));
      } else {
        EncodeDouble(out, n);
      }
      break;
    }
    case LUA_TTABLE:
      EncodeTable(L, out, level);
      break;
    default:
      out->push_back(static_cast<char>(0xc0));
  }
  lua_pop(L, 1);
}

// Under Pack's lua_pcall: argument 1 is the output buffer, the values follow.
int PackInto(lua_State* L) {
  auto* out = static_cast<std::string*>(lua_touserdata(L, 1));
  const int top = lua_gettop(L);
  for (int i = 2; i <= top; ++i) {
    lua_pushvalue(L, i);
    Encode(L, out, 0);
  }
  lua_pushlstring(L, out->data(), out->size());
  return 1;
}

int Pack(lua_State* L) {
  const int nargs = lua_gettop(L);
  if (nargs == 0) return luaL_argerror(L, 0, "MessagePack pack needs input.");
  if (!lua_checkstack(L, nargs + 2)) {
    return luaL_argerror(L, 0, "Too many arguments for MessagePack pack.");
  }
  int status;
  {
    std::string out;
    lua_pushcfunction(L, PackInto);
    lua_insert(L, 1);
    lua_pushlightuserdata(L, &out);
    lua_insert(L, 2);
    status = lua_pcall(L, nargs + 1, 1, 0);
  }
  if (status != 0) return lua_error(L);
  return 1;
}

// ---- Decoding

struct Cursor {
  const unsigned char* p;
  size_t left;
  enum { kOk, kMissingBytes, kBadFormat } error = kOk;

  bool Need(size_t n) {
    if (left >= n) return true;
    error = kMissingBytes;
    return false;
  }
  void Consume(size_t n) {
    p += n;
    left -= n;
  }
  uint64_t BigEndian(size_t at, int bytes) const {
    uint64_t v = 0;
    for (int i = 0; i < bytes; ++i) v = (v << 8) | p[at + i];
    return v;
  }
};

void Decode(lua_State* L, Cursor& c);

void DecodeArray(lua_State* L, Cursor& c, size_t length) {
  lua_newtable(L);
  luaL_checkstack(L, 1, "in function mp_decode_to_lua_array");
  for (size_t i = 1; i <= length; ++i) {
    lua_pushnumber(L, static_cast<lua_Number>(i));
    Decode(L, c);
    if (c.error != Cursor::kOk) return;
    lua_settable(L, -3);
  }
}

void DecodeMap(lua_State* L, Cursor& c, size_t length) {
  lua_newtable(L);
  for (size_t i = 0; i < length; ++i) {
    Decode(L, c);  // the key
    if (c.error != Cursor::kOk) return;
    Decode(L, c);  // the value
    if (c.error != Cursor::kOk) return;
    lua_settable(L, -3);
  }
}

// A string of `length` bytes after a header of `header` bytes.
void DecodeString(lua_State* L, Cursor& c, size_t header, size_t length) {
  c.Consume(header);
  if (!c.Need(length)) return;
  lua_pushlstring(L, reinterpret_cast<const char*>(c.p), length);
  c.Consume(length);
}

// Pushes the value of a type with a type byte of its own and a fixed size (nil, the booleans,
// integers, floats) and moves past it; false (nothing done) for another type.
bool DecodeScalar(lua_State* L, Cursor& c, unsigned char type) {
  switch (type) {
    case 0xc0:
      lua_pushnil(L);
      c.Consume(1);
      return true;
    case 0xc2:
    case 0xc3:
      lua_pushboolean(L, type == 0xc3);
      c.Consume(1);
      return true;
    case 0xcc:
    case 0xcd:
    case 0xce:
    case 0xcf: {  // unsigned 8, 16, 32, 64 (above 2^63 it wraps negative, as in Redis)
      const int bytes = 1 << (type - 0xcc);
      if (!c.Need(1 + bytes)) return true;
      lua_pushinteger(L, static_cast<lua_Integer>(c.BigEndian(1, bytes)));
      c.Consume(1 + bytes);
      return true;
    }
    case 0xd0:
    case 0xd1:
    case 0xd2: {  // signed 8, 16, 32
      const int bytes = 1 << (type - 0xd0);
      if (!c.Need(1 + bytes)) return true;
      const uint64_t raw = c.BigEndian(1, bytes);
      const int shift = 64 - 8 * bytes;
      lua_pushinteger(L, static_cast<lua_Integer>(static_cast<int64_t>(raw << shift) >> shift));
      c.Consume(1 + bytes);
      return true;
    }
    case 0xd3:  // signed 64
      if (!c.Need(9)) return true;
      lua_pushnumber(L, static_cast<lua_Number>(static_cast<int64_t>(c.BigEndian(1, 8))));
      c.Consume(9);
      return true;
    case 0xca: {
      if (!c.Need(5)) return true;
      const auto bits = static_cast<uint32_t>(c.BigEndian(1, 4));
      float f;
      std::memcpy(&f, &bits, sizeof(f));
      lua_pushnumber(L, f);
      c.Consume(5);
      return true;
    }
    case 0xcb: {
      if (!c.Need(9)) return true;
      const uint64_t bits = c.BigEndian(1, 8);
      double d;
      std::memcpy(&d, &bits, sizeof(d));
      lua_pushnumber(L, d);
      c.Consume(9);
      return true;
    }
    default:
      return false;
  }
}

// Pushes a value of a fix type (fixnums, fix raw, fix array, fix map: the value or length in
// the type byte) and moves past it; sets c.error for a type byte that is none.
void DecodeFixType(lua_State* L, Cursor& c, unsigned char type) {
  if ((type & 0x80) == 0) {  // positive fixnum
    lua_pushinteger(L, type);
    c.Consume(1);
  } else if ((type & 0xe0) == 0xe0) {  // negative fixnum
    lua_pushinteger(L, static_cast<signed char>(type));
    c.Consume(1);
  } else if ((type & 0xe0) == 0xa0) {  // fix raw
    DecodeString(L, c, 1, type & 0x1f);
  } else if ((type & 0xf0) == 0x90) {  // fix array
    c.Consume(1);
    DecodeArray(L, c, type & 0xf);
  } else if ((type & 0xf0) == 0x80) {  // fix map
    c.Consume(1);
    DecodeMap(L, c, type & 0xf);
  } else {
    c.error = Cursor::kBadFormat;
  }
}

// Pushes the value at the cursor and moves past it; on malformed input sets c.error.
void Decode(lua_State* L, Cursor& c) {
  if (!c.Need(1)) return;
  // One slot per value: a stream of many values returns them all at once.
  luaL_checkstack(L, 1, "too many return values at once; use unpack_one or unpack_limit instead.");
  const unsigned char type = c.p[0];
  if (DecodeScalar(L, c, type)) return;
  switch (type) {
    case 0xd9:
    case 0xda:
    case 0xdb: {  // raw 8, 16, 32
      const int bytes = 1 << (type - 0xd9);
      if (!c.Need(1 + bytes)) return;
      return DecodeString(L, c, 1 + bytes, c.BigEndian(1, bytes));
    }
    case 0xdc:
    case 0xdd:
    case 0xde:
    case 0xdf: {  // array 16, 32; map 16, 32
      const int bytes = (type & 1) ? 4 : 2;
      if (!c.Need(1 + bytes)) return;
      const size_t length = c.BigEndian(1, bytes);
      c.Consume(1 + bytes);
      return type <= 0xdd ? DecodeArray(L, c, length) : DecodeMap(L, c, length);
    }
    default:
      break;
  }
  DecodeFixType(L, c, type);
}

// Decodes up to `limit` values from `offset` of argument 1. With neither (both 0) it returns
// every value; otherwise the next offset (-1 at the end) comes first.
int Unpack(lua_State* L, lua_Integer limit, lua_Integer offset) {
  size_t length = 0;
  const char* s = luaL_checklstring(L, 1, &length);
  if (offset < 0 || limit < 0) {
    return luaL_error(L, "Invalid request to unpack with offset of %d and limit of %d.",
                      static_cast<int>(offset), static_cast<int>(length));
  }
  if (static_cast<size_t>(offset) > length) {
    return luaL_error(L, "Start offset %d greater than input length %d.", static_cast<int>(offset),
                      static_cast<int>(length));
  }
  const bool all = limit == 0 && offset == 0;
  if (all) limit = INT32_MAX;
  Cursor c{reinterpret_cast<const unsigned char*>(s) + offset, length - offset};
  int count = 0;
  for (; c.left > 0 && count < limit; ++count) {
    Decode(L, c);
    if (c.error == Cursor::kMissingBytes) return luaL_error(L, "Missing bytes in input.");
    if (c.error == Cursor::kBadFormat) return luaL_error(L, "Bad data format in input.");
  }
  if (all) return count;
  luaL_checkstack(L, 1, "in function mp_unpack_full");
  lua_pushinteger(L, c.left == 0 ? -1 : static_cast<lua_Integer>(length - c.left));
  lua_insert(L, 2);
  return count + 1;
}

int UnpackAll(lua_State* L) { return Unpack(L, 0, 0); }

int UnpackOne(lua_State* L) {
  const lua_Integer offset = luaL_optinteger(L, 2, 0);
  lua_settop(L, 1);
  return Unpack(L, 1, offset);
}

int UnpackLimit(lua_State* L) {
  const lua_Integer limit = luaL_checkinteger(L, 2);
  const lua_Integer offset = luaL_optinteger(L, 3, 0);
  lua_settop(L, 1);
  return Unpack(L, limit, offset);
}

}  // namespace

int OpenCmsgpack(lua_State* L) {
  static const luaL_Reg kFunctions[] = {{"pack", Pack},
                                        {"unpack", UnpackAll},
                                        {"unpack_one", UnpackOne},
                                        {"unpack_limit", UnpackLimit},
                                        {nullptr, nullptr}};
  lua_newtable(L);
  luaL_register(L, nullptr, kFunctions);
  lua_pushliteral(L, "lua-cmsgpack 0.4.0");
  lua_setfield(L, -2, "_VERSION");
  lua_pushliteral(L, "Copyright (C) 2012, Salvatore Sanfilippo");
  lua_setfield(L, -2, "_COPYRIGHT");
  lua_pushliteral(L, "MessagePack C implementation for Lua");
  lua_setfield(L, -2, "_DESCRIPTION");
  return 1;
}

}  // namespace ebb::server::scripting
