// struct: binary packing for scripts, as the struct library Redis bundles
// (server/scripting/lua_libraries.h states what a script sees).
//
// Lua errors unwind with longjmp: nothing here holds an object with a destructor.
#include <bit>
#include <cctype>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <cstring>

extern "C" {
#include <lauxlib.h>
#include <lua.h>
}

#include "server/scripting/lua_libraries.h"

namespace ebb::server::scripting {
namespace {

using Int = long;  // the library's integer type (`long`, as Redis builds it)
using Uint = unsigned long;

constexpr int kMaxIntSize = 32;  // the largest i/I size

// The largest natural alignment, `!` without a number.
struct AlignProbe {
  char c;
  double d;
};
constexpr int kMaxAlign = offsetof(AlignProbe, d) > sizeof(int)
                              ? static_cast<int>(offsetof(AlignProbe, d))
                              : static_cast<int>(sizeof(int));

enum Endian { kBig, kLittle };
constexpr Endian kNative = std::endian::native == std::endian::little ? kLittle : kBig;

struct Header {
  Endian endian = kNative;
  int align = 1;
};

// The number at *fmt (advanced past it), or `fallback` when there is none.
int ReadNumber(lua_State* L, const char** fmt, int fallback) {
  if (!std::isdigit(static_cast<unsigned char>(**fmt))) return fallback;
  int n = 0;
  do {
    const int digit = **fmt - '0';
    if (n > INT_MAX / 10 || n * 10 > INT_MAX - digit) luaL_error(L, "integral size overflow");
    n = n * 10 + digit;
    ++*fmt;
  } while (std::isdigit(static_cast<unsigned char>(**fmt)));
  return n;
}

// The bytes option `opt` occupies (0 for controls, and for c0 and s whose size varies).
size_t OptionSize(lua_State* L, char opt, const char** fmt) {
  switch (opt) {
    case 'B':
    case 'b':
      return sizeof(char);
    case 'H':
    case 'h':
      return sizeof(short);
    case 'L':
    case 'l':
      return sizeof(long);
    case 'T':
      return sizeof(size_t);
    case 'f':
      return sizeof(float);
    case 'd':
      return sizeof(double);
    case 'x':
      return 1;
    case 'c':
      return ReadNumber(L, fmt, 1);
    case 'i':
    case 'I': {
      const int size = ReadNumber(L, fmt, sizeof(int));
      if (size > kMaxIntSize) {
        luaL_error(L, "integral size %d is larger than limit of %d", size, kMaxIntSize);
      }
      return size;
    }
    default:
      return 0;
  }
}

// The integer options: b B h H l L T i I (lower case: signed).
bool IsInteger(char opt) { return opt != '\0' && std::strchr("bBhHlLTiI", opt) != nullptr; }

// Padding before an item of `size` bytes at offset `length` (alignment capped by the header's).
size_t Padding(size_t length, const Header& h, char opt, size_t size) {
  if (size == 0 || opt == 'c') return 0;
  if (size > static_cast<size_t>(h.align)) size = h.align;
  return (size - (length & (size - 1))) & (size - 1);
}

// A control option: space, >, <, ![n]; anything else is an error.
void Control(lua_State* L, char opt, const char** fmt, Header* h) {
  switch (opt) {
    case ' ':
      return;
    case '>':
      h->endian = kBig;
      return;
    case '<':
      h->endian = kLittle;
      return;
    case '!': {
      const int align = ReadNumber(L, fmt, kMaxAlign);
      if (align <= 0 || (align & (align - 1)) != 0) {
        luaL_error(L, "alignment %d is not a power of 2", align);
      }
      h->align = align;
      return;
    }
    default:
      luaL_argerror(L, 1, lua_pushfstring(L, "invalid format option '%c'", opt));
  }
}

void PutInteger(lua_State* L, luaL_Buffer* b, int arg, Endian endian, int size) {
  const lua_Number n = luaL_checknumber(L, arg);
  Uint value = n < 0 ? static_cast<Uint>(static_cast<Int>(n)) : static_cast<Uint>(n);
  char bytes[kMaxIntSize];
  for (int i = 0; i < size; ++i) {
    bytes[endian == kLittle ? i : size - 1 - i] = static_cast<char>(value & 0xff);
    value >>= 8;  // past the value's own bytes: zeros
  }
  luaL_addlstring(b, bytes, size);
}

// Reverses `size` bytes in place unless `endian` is the machine's.
void ToEndian(char* bytes, int size, Endian endian) {
  if (endian == kNative) return;
  for (int i = 0, j = size - 1; i < j; ++i, --j) {
    const char t = bytes[i];
    bytes[i] = bytes[j];
    bytes[j] = t;
  }
}

int StructPack(lua_State* L) {
  const char* fmt = luaL_checkstring(L, 1);
  Header h;
  int arg = 2;
  size_t total = 0;
  lua_pushnil(L);  // keeps the arguments below the buffer's stack slots
  luaL_Buffer b;
  luaL_buffinit(L, &b);
  while (*fmt != '\0') {
    const char opt = *fmt++;
    size_t size = OptionSize(L, opt, &fmt);
    const size_t padding = Padding(total, h, opt, size);
    total += padding;
    for (size_t i = 0; i < padding; ++i) luaL_addchar(&b, '\0');
    if (IsInteger(opt)) {
      PutInteger(L, &b, arg++, h.endian, static_cast<int>(size));
      total += size;
      continue;
    }
    switch (opt) {
      case 'x':
        luaL_addchar(&b, '\0');
        break;
      case 'f': {
        auto f = static_cast<float>(luaL_checknumber(L, arg++));
        ToEndian(reinterpret_cast<char*>(&f), sizeof(f), h.endian);
        luaL_addlstring(&b, reinterpret_cast<const char*>(&f), sizeof(f));
        break;
      }
      case 'd': {
        double d = luaL_checknumber(L, arg++);
        ToEndian(reinterpret_cast<char*>(&d), sizeof(d), h.endian);
        luaL_addlstring(&b, reinterpret_cast<const char*>(&d), sizeof(d));
        break;
      }
      case 'c':
      case 's': {
        size_t length = 0;
        const char* s = luaL_checklstring(L, arg++, &length);
        if (size == 0) size = length;
        luaL_argcheck(L, length >= size, arg, "string too short");
        luaL_addlstring(&b, s, size);
        if (opt == 's') {
          luaL_addchar(&b, '\0');
          size++;
        }
        break;
      }
      default:
        Control(L, opt, &fmt, &h);
    }
    total += size;
  }
  luaL_pushresult(&b);
  return 1;
}

lua_Number GetInteger(const char* bytes, Endian endian, bool is_signed, int size) {
  Uint value = 0;
  for (int i = 0; i < size; ++i) {
    value = (value << 8) | static_cast<unsigned char>(bytes[endian == kBig ? i : size - 1 - i]);
  }
  if (!is_signed) return static_cast<lua_Number>(value);
  // A zero-byte integer ('i0', as stock lua-struct allows) is 0: no sign bit to extend.
  if (size > 0 && size < static_cast<int>(sizeof(Uint))) {
    const Uint sign = Uint{1} << (size * 8 - 1);
    if (value & sign) value |= ~((sign << 1) - 1);  // extend the sign
  }
  return static_cast<lua_Number>(static_cast<Int>(value));
}

int StructUnpack(lua_State* L) {
  const char* fmt = luaL_checkstring(L, 1);
  size_t length = 0;
  const char* data = luaL_checklstring(L, 2, &length);
  size_t pos = static_cast<size_t>(luaL_optinteger(L, 3, 1));
  luaL_argcheck(L, pos > 0, 3, "offset must be 1 or greater");
  pos--;  // 1-based in Lua
  Header h;
  int results = 0;
  while (*fmt != '\0') {
    const char opt = *fmt++;
    size_t size = OptionSize(L, opt, &fmt);
    pos += Padding(pos, h, opt, size);
    luaL_argcheck(L, size <= length && pos <= length - size, 2, "data string too short");
    luaL_checkstack(L, 2, "too many results");
    if (IsInteger(opt)) {
      lua_pushnumber(
          L, GetInteger(data + pos, h.endian, std::islower(opt) != 0, static_cast<int>(size)));
      results++;
      pos += size;
      continue;
    }
    switch (opt) {
      case 'x':
        break;
      case 'f': {
        float f;
        std::memcpy(&f, data + pos, sizeof(f));
        ToEndian(reinterpret_cast<char*>(&f), sizeof(f), h.endian);
        lua_pushnumber(L, f);
        results++;
        break;
      }
      case 'd': {
        double d;
        std::memcpy(&d, data + pos, sizeof(d));
        ToEndian(reinterpret_cast<char*>(&d), sizeof(d), h.endian);
        lua_pushnumber(L, d);
        results++;
        break;
      }
      case 'c': {
        if (size == 0) {  // the length is the number unpacked before it
          if (results == 0 || !lua_isnumber(L, -1)) {
            luaL_error(L, "format 'c0' needs a previous size");
          }
          size = static_cast<size_t>(lua_tonumber(L, -1));
          lua_pop(L, 1);
          results--;
          luaL_argcheck(L, size <= length && pos <= length - size, 2, "data string too short");
        }
        lua_pushlstring(L, data + pos, size);
        results++;
        break;
      }
      case 's': {
        const auto* end = static_cast<const char*>(std::memchr(data + pos, '\0', length - pos));
        if (end == nullptr) luaL_error(L, "unfinished string in data");
        size = static_cast<size_t>(end - (data + pos)) + 1;
        lua_pushlstring(L, data + pos, size - 1);
        results++;
        break;
      }
      default:
        Control(L, opt, &fmt, &h);
    }
    pos += size;
  }
  lua_pushinteger(L, static_cast<lua_Integer>(pos + 1));  // where the next value starts
  return results + 1;
}

int Size(lua_State* L) {
  const char* fmt = luaL_checkstring(L, 1);
  Header h;
  size_t pos = 0;
  while (*fmt != '\0') {
    const char opt = *fmt++;
    const size_t size = OptionSize(L, opt, &fmt);
    pos += Padding(pos, h, opt, size);
    if (opt == 's') {
      luaL_argerror(L, 1, "option 's' has no fixed size");
    } else if (opt == 'c' && size == 0) {
      luaL_argerror(L, 1, "option 'c0' has no fixed size");
    }
    if (!std::isalnum(static_cast<unsigned char>(opt))) Control(L, opt, &fmt, &h);
    pos += size;
  }
  lua_pushinteger(L, static_cast<lua_Integer>(pos));
  return 1;
}

}  // namespace

int OpenStruct(lua_State* L) {
  static const luaL_Reg kFunctions[] = {
      {"pack", StructPack}, {"unpack", StructUnpack}, {"size", Size}, {nullptr, nullptr}};
  lua_newtable(L);
  luaL_register(L, nullptr, kFunctions);
  return 1;
}

}  // namespace ebb::server::scripting
