#include "server/scripting/lua_values.h"

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <string>

#include "server/core/errors.h"
#include "server/scripting/lua_registry.h"

extern "C" {
#include <lauxlib.h>
#include <lua.h>
}

namespace ebb::server::scripting {

// kScriptReplyTooLarge (server/core/errors.h) names these bounds in its text.
static_assert(kMaxReplyElements == 16777216 && kMaxReplyBytes == 536870912,
              "kScriptReplyTooLarge's text must name the reply bounds");

namespace {

// Reads one reply from `in` at *pos (advancing it past the reply) and pushes it. The bytes come
// from ReplyWriter, so they are well formed; a truncated reply pushes nil.
class ReplyReader {
 public:
  ReplyReader(lua_State* L, std::string_view in) : L_(L), in_(in) {}

  void PushOne() {
    lua_checkstack(L_, 4);
    if (pos_ >= in_.size()) return lua_pushnil(L_);
    const char type = in_[pos_++];
    const std::string_view line = Line();
    switch (type) {
      case ':':
        lua_pushnumber(L_, static_cast<lua_Number>(std::strtoll(line.data(), nullptr, 10)));
        return;
      case '$': {
        const int64_t length = std::strtoll(line.data(), nullptr, 10);
        if (length < 0) return lua_pushboolean(L_, 0);
        return PushBulk(static_cast<size_t>(length));
      }
      case '+':
        return PushField("ok", line);
      case '-':
        return PushField("err", line);
      case '*':
      case '>': {
        const int64_t n = std::strtoll(line.data(), nullptr, 10);
        if (n < 0) return lua_pushboolean(L_, 0);
        lua_createtable(L_, static_cast<int>(n), 0);
        for (int64_t i = 1; i <= n; ++i) {
          PushOne();
          lua_rawseti(L_, -2, static_cast<int>(i));
        }
        return;
      }
      case '%':
      case '~': {
        const int64_t n = std::strtoll(line.data(), nullptr, 10);
        lua_newtable(L_);
        lua_pushstring(L_, type == '%' ? "map" : "set");
        lua_newtable(L_);
        for (int64_t i = 0; i < n; ++i) {
          PushOne();
          if (type == '%') {
            PushOne();
          } else {
            lua_pushboolean(L_, 1);
          }
          lua_settable(L_, -3);
        }
        lua_settable(L_, -3);
        return;
      }
      case '|': {  // an attribute: read and dropped, then the reply it annotates
        const int64_t n = std::strtoll(line.data(), nullptr, 10);
        for (int64_t i = 0; i < 2 * n; ++i) {
          PushOne();
          lua_pop(L_, 1);
        }
        return PushOne();
      }
      case '_':
        return lua_pushnil(L_);
      case '#':
        return lua_pushboolean(L_, line == "t");
      case ',': {
        lua_newtable(L_);
        lua_pushstring(L_, "double");
        lua_pushnumber(L_, ParseDouble(line));
        lua_settable(L_, -3);
        return;
      }
      case '(':
        return PushField("big_number", line);
      case '=': {
        const size_t length = std::strtoull(line.data(), nullptr, 10);
        const std::string_view body = in_.substr(pos_, length);
        pos_ += length + 2;
        lua_newtable(L_);
        lua_pushstring(L_, "verbatim_string");
        lua_newtable(L_);
        lua_pushstring(L_, "format");
        lua_pushlstring(L_, body.data(), std::min<size_t>(3, body.size()));
        lua_settable(L_, -3);
        lua_pushstring(L_, "string");
        const std::string_view text = body.size() > 4 ? body.substr(4) : std::string_view();
        lua_pushlstring(L_, text.data(), text.size());
        lua_settable(L_, -3);
        lua_settable(L_, -3);
        return;
      }
      default:
        lua_pushnil(L_);
    }
  }

 private:
  // The rest of the current line (without CRLF), moving past it. Null-terminated for strtoll
  // because every line is followed by '\r'.
  std::string_view Line() {
    const size_t end = in_.find("\r\n", pos_);
    const size_t stop = end == std::string_view::npos ? in_.size() : end;
    const std::string_view line = in_.substr(pos_, stop - pos_);
    pos_ = stop + 2;
    return line;
  }
  void PushBulk(size_t length) {
    const std::string_view body = in_.substr(std::min(pos_, in_.size()), length);
    lua_pushlstring(L_, body.data(), body.size());
    pos_ += length + 2;
  }
  void PushField(const char* field, std::string_view value) {
    lua_newtable(L_);
    lua_pushstring(L_, field);
    lua_pushlstring(L_, value.data(), value.size());
    lua_settable(L_, -3);
  }
  static double ParseDouble(std::string_view text) {
    if (text == "inf") return std::numeric_limits<double>::infinity();
    if (text == "-inf") return -std::numeric_limits<double>::infinity();
    if (text == "nan") return std::numeric_limits<double>::quiet_NaN();
    return std::strtod(std::string(text).c_str(), nullptr);
  }

  lua_State* L_;
  std::string_view in_;
  size_t pos_ = 0;
};

// Redis's cast of a Lua number to a reply integer ((long long)n), kept defined for values a
// long long cannot hold.
int64_t ToInteger(lua_Number n) {
  if (std::isnan(n)) return std::numeric_limits<int64_t>::min();
  if (n >= 9.2233720368547758e18) return std::numeric_limits<int64_t>::min();
  if (n < -9.2233720368547758e18) return std::numeric_limits<int64_t>::min();
  return static_cast<int64_t>(n);
}

// Pushes t[field] (raw) for the table at the top; returns its type.
int RawField(lua_State* L, const char* field) {
  lua_pushstring(L, field);
  lua_rawget(L, -2);
  return lua_type(L, -1);
}

std::string ReplyLine(std::string_view text) {
  std::string s(text);
  for (char& c : s) {
    if (c == '\r' || c == '\n') c = ' ';
  }
  return s;
}

bool IsBigNumber(std::string_view s) {
  size_t i = (!s.empty() && s[0] == '-') ? 1 : 0;
  if (i == s.size()) return false;
  for (; i < s.size(); ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
  }
  return true;
}

std::string_view ToView(lua_State* L, int index) {
  size_t length = 0;
  const char* s = lua_tolstring(L, index, &length);
  return {s, length};
}

// Writes a table tagged as one value ({err = ...}, {ok = ...}, {double = ...}, {big_number =
// ...}, {verbatim_string = {format = ..., string = ...}}); false (nothing written) for another
// table. Leaves the table on the stack.
bool WriteTaggedValue(lua_State* L, protocol::ReplyWriter& out) {
  if (RawField(L, "err") == LUA_TSTRING) {
    std::string_view error = ToView(L, -1);
    if (!error.empty() && error[0] == '-') error.remove_prefix(1);
    out.Error(error);
    lua_pop(L, 1);
    return true;
  }
  lua_pop(L, 1);
  if (RawField(L, "ok") == LUA_TSTRING) {
    out.SimpleString(ReplyLine(ToView(L, -1)));
    lua_pop(L, 1);
    return true;
  }
  lua_pop(L, 1);
  if (RawField(L, "double") == LUA_TNUMBER) {
    out.Double(lua_tonumber(L, -1));
    lua_pop(L, 1);
    return true;
  }
  lua_pop(L, 1);
  if (RawField(L, "big_number") == LUA_TSTRING) {
    const std::string digits = ReplyLine(ToView(L, -1));
    if (IsBigNumber(digits)) {
      out.BigNumber(digits);
    } else {
      out.Bulk(digits);
    }
    lua_pop(L, 1);
    return true;
  }
  lua_pop(L, 1);
  if (RawField(L, "verbatim_string") == LUA_TTABLE) {
    lua_pushstring(L, "format");
    lua_rawget(L, -2);
    lua_pushstring(L, "string");
    lua_rawget(L, -3);
    if (lua_type(L, -2) == LUA_TSTRING && lua_type(L, -1) == LUA_TSTRING &&
        lua_objlen(L, -2) == 3) {
      out.Verbatim(ToView(L, -2), ToView(L, -1));
      lua_pop(L, 3);
      return true;
    }
    lua_pop(L, 2);
  }
  lua_pop(L, 1);
  return false;
}

// Writes a table tagged as a RESP3 aggregate ({map = {...}}, {set = {...}}) and its elements;
// false (nothing written) for another table. Leaves the table on the stack.
bool WriteTaggedAggregate(lua_State* L, int script_resp, protocol::ReplyWriter& out,
                          ReplyBudget& budget) {
  if (RawField(L, "map") == LUA_TTABLE) {
    size_t pairs = 0;
    lua_pushnil(L);
    while (lua_next(L, -2)) {
      lua_pop(L, 1);
      ++pairs;
    }
    out.MapHeader(pairs);
    lua_pushnil(L);
    while (lua_next(L, -2)) {
      lua_pushvalue(L, -2);
      WriteLuaValue(L, script_resp, out, budget);  // the key
      WriteLuaValue(L, script_resp, out, budget);  // the value
    }
    lua_pop(L, 1);
    return true;
  }
  lua_pop(L, 1);
  if (RawField(L, "set") == LUA_TTABLE) {
    size_t members = 0;
    lua_pushnil(L);
    while (lua_next(L, -2)) {
      lua_pop(L, 1);
      ++members;
    }
    out.SetHeader(members);
    lua_pushnil(L);
    while (lua_next(L, -2)) {
      lua_pop(L, 1);
      lua_pushvalue(L, -1);
      WriteLuaValue(L, script_resp, out, budget);
    }
    lua_pop(L, 1);
    return true;
  }
  lua_pop(L, 1);
  return false;
}

// Writes the table as an array: elements 1..n up to the first nil. Leaves it on the stack.
void WriteArray(lua_State* L, int script_resp, protocol::ReplyWriter& out, ReplyBudget& budget) {
  int n = 0;
  for (;; ++n) {
    lua_rawgeti(L, -1, n + 1);
    const bool end = lua_isnil(L, -1);
    lua_pop(L, 1);
    if (end) break;
  }
  out.ArrayHeader(static_cast<size_t>(n));
  for (int i = 1; i <= n; ++i) {
    lua_rawgeti(L, -1, i);
    WriteLuaValue(L, script_resp, out, budget);
  }
}

void WriteTable(lua_State* L, int script_resp, protocol::ReplyWriter& out, ReplyBudget& budget) {
  if (WriteTaggedValue(L, out)) return;
  if (WriteTaggedAggregate(L, script_resp, out, budget)) return;
  WriteArray(L, script_resp, out, budget);
}

}  // namespace

void PushReply(lua_State* L, std::string_view resp) { ReplyReader(L, resp).PushOne(); }

void WriteLuaValue(lua_State* L, int script_resp, protocol::ReplyWriter& out, ReplyBudget& budget) {
  if (++budget.elements > budget.limits.max_elements ||
      budget.bytes->size() > budget.limits.max_bytes) {
    budget.exceeded = true;
    lua_pushliteral(L, "reply too large");
    lua_error(L);
  }
  if (!lua_checkstack(L, 4)) {
    out.Error(kLuaStackLimit);
    lua_pop(L, 1);
    return;
  }
  switch (lua_type(L, -1)) {
    case LUA_TSTRING:
      out.Bulk(ToView(L, -1));
      break;
    case LUA_TBOOLEAN:
      if (script_resp == 2) {
        if (lua_toboolean(L, -1)) {
          out.Integer(1);
        } else {
          out.Null();
        }
      } else {
        out.Bool(lua_toboolean(L, -1));
      }
      break;
    case LUA_TNUMBER:
      out.Integer(ToInteger(lua_tonumber(L, -1)));
      break;
    case LUA_TTABLE:
      WriteTable(L, script_resp, out, budget);
      break;
    default:
      out.Null();
  }
  lua_pop(L, 1);
}

void PushErrorTable(lua_State* L, std::string_view error) {
  std::string code = "ERR";
  std::string message;
  if (!error.empty() && error[0] == '-') {
    const size_t space = error.find(' ');
    if (space == std::string_view::npos) {
      message = error.substr(1);
    } else {
      code = error.substr(1, space - 1);
      message = error.substr(space + 1);
    }
  } else {
    message = error;
  }
  while (!message.empty() && (message.back() == '\r' || message.back() == '\n')) message.pop_back();
  while (!message.empty() && (message.front() == '\r' || message.front() == '\n')) {
    message.erase(0, 1);
  }
  const std::string full = code + " " + message;
  lua_newtable(L);
  lua_pushstring(L, "err");
  lua_pushlstring(L, full.data(), full.size());
  lua_settable(L, -3);
}

char kRunKey;
char kLoadKey;
char kHandlerKey;
char kScriptsKey;
char kGlobalsKey;
char kFunctionEnvKey;
char kFunctionMetaKey;
char kLoadGlobalsKey;
char kRunGlobalsKey;

int RaiseError(lua_State* L, const char* message) {
  PushErrorTable(L, message);
  return lua_error(L);
}

Result<ScriptCode> CompileChunk(lua_State* L, std::string_view code, const char* chunk_name,
                                ScriptCode failure) {
  // The name stays on the stack while Lua parses: Lua 5.1's parser does not anchor it, and a
  // collection during the parse would free it (CVE-2025-49844).
  lua_pushstring(L, chunk_name);
  const int status = luaL_loadbuffer(L, code.data(), code.size(), chunk_name);
  lua_remove(L, -2);
  if (status == 0) return {};
  Result<ScriptCode> error(failure, lua_tostring(L, -1));
  lua_pop(L, 1);
  return error;
}

void PushArray(lua_State* L, std::span<const std::string_view> values) {
  lua_createtable(L, static_cast<int>(values.size()), 0);
  for (size_t i = 0; i < values.size(); ++i) {
    lua_pushlstring(L, values[i].data(), values[i].size());
    lua_rawseti(L, -2, static_cast<int>(i + 1));
  }
}

}  // namespace ebb::server::scripting
