// ebb's Lua pattern matcher (lua_patterns.h). The pattern language is Lua 5.1's (its reference
// manual, 5.4.1 "Patterns"): a pattern is read up to its first zero byte, as 5.1 reads it; the
// subject is every byte of its string.
#include "server/scripting/lua_patterns.h"

#include <cctype>
#include <cstddef>
#include <cstring>

extern "C" {
#include <lauxlib.h>
#include <lua.h>
}

namespace ebb::server::scripting {
namespace {

constexpr char kEscape = '%';
// A capture's length while it is open, and the length of a position capture `()`.
constexpr ptrdiff_t kCaptureOpen = -1;
constexpr ptrdiff_t kCapturePosition = -2;

struct Capture {
  const char* start;
  ptrdiff_t length;  // or kCaptureOpen, kCapturePosition
};

// One match attempt's state. Plain values only: a Lua error may longjmp through every frame
// that holds one.
struct Matcher {
  lua_State* L;
  PatternCheck check;
  const char* subject;
  const char* subject_end;
  int depth;       // recursion levels left
  uint32_t steps;  // until the next check
  int level;       // captures opened so far
  Capture captures[LUA_MAXCAPTURES];
};

// Counts `n` steps; calls the check once kPatternCheckSteps have gone by.
void Step(Matcher* m, uint32_t n = 1) {
  if (m->steps > n) {
    m->steps -= n;
    return;
  }
  m->steps = kPatternCheckSteps;
  if (m->check != nullptr) m->check(m->L);
}

// The byte at `s`, or 0 at the subject's end (5.1 reads the terminating zero there).
unsigned char ByteAt(const Matcher* m, const char* s) {
  return s < m->subject_end ? static_cast<unsigned char>(*s) : 0;
}

// Whether `c` is in the class `%cls` (letters as the C locale classifies them; an upper-case
// letter is the complement; any other `cls` stands for itself).
bool InClass(int c, int cls) {
  bool in;
  switch (std::tolower(cls)) {
    case 'a':
      in = std::isalpha(c) != 0;
      break;
    case 'c':
      in = std::iscntrl(c) != 0;
      break;
    case 'd':
      in = std::isdigit(c) != 0;
      break;
    case 'l':
      in = std::islower(c) != 0;
      break;
    case 'p':
      in = std::ispunct(c) != 0;
      break;
    case 's':
      in = std::isspace(c) != 0;
      break;
    case 'u':
      in = std::isupper(c) != 0;
      break;
    case 'w':
      in = std::isalnum(c) != 0;
      break;
    case 'x':
      in = std::isxdigit(c) != 0;
      break;
    case 'z':
      in = c == 0;
      break;
    default:
      return cls == c;
  }
  return std::isupper(cls) ? !in : in;
}

// Whether `c` is in the set `[...]` that starts at `p` (its '[') and whose ']' is at `close`.
bool InSet(int c, const char* p, const char* close) {
  bool member = true;
  if (p[1] == '^') {
    member = false;
    p++;
  }
  while (++p < close) {
    if (*p == kEscape) {
      p++;
      if (InClass(c, static_cast<unsigned char>(*p))) return member;
    } else if (p[1] == '-' && p + 2 < close) {
      p += 2;
      if (static_cast<unsigned char>(p[-2]) <= c && c <= static_cast<unsigned char>(*p)) {
        return member;
      }
    } else if (static_cast<unsigned char>(*p) == c) {
      return member;
    }
  }
  return !member;
}

// The end of the single-character class that starts at `p`.
const char* ClassEnd(Matcher* m, const char* p) {
  const char c = *p++;
  if (c == kEscape) {
    if (*p == '\0') luaL_error(m->L, "malformed pattern (ends with '%%')");
    return p + 1;
  }
  if (c == '[') {
    if (*p == '^') p++;
    do {  // the first character, even a ']', belongs to the set
      if (*p == '\0') luaL_error(m->L, "malformed pattern (missing ']')");
      if (*p++ == kEscape && *p != '\0') p++;
    } while (*p != ']');
    return p + 1;
  }
  return p;
}

// Whether the subject byte at `s` matches the class [p, end).
bool SingleMatch(const Matcher* m, const char* s, const char* p, const char* end) {
  if (s >= m->subject_end) return false;
  const int c = static_cast<unsigned char>(*s);
  switch (*p) {
    case '.':
      return true;
    case kEscape:
      return InClass(c, static_cast<unsigned char>(p[1]));
    case '[':
      return InSet(c, p, end - 1);
    default:
      return static_cast<unsigned char>(*p) == c;
  }
}

const char* Match(Matcher* m, const char* s, const char* p);

// %bxy at `p` (after "%b"): the end of the balanced run at `s`, or nullptr.
const char* MatchBalance(Matcher* m, const char* s, const char* p) {
  if (p[0] == '\0' || p[1] == '\0') luaL_error(m->L, "unbalanced pattern");
  if (s >= m->subject_end || *s != p[0]) return nullptr;
  const char open = p[0];
  const char close = p[1];
  int depth = 1;
  while (++s < m->subject_end) {
    Step(m);
    if (*s == close) {
      if (--depth == 0) return s + 1;
    } else if (*s == open) {
      depth++;
    }
  }
  return nullptr;
}

// The item [p, end) repeated as often as it matches, then the rest of the pattern, trying the
// longest run first.
const char* MaxExpand(Matcher* m, const char* s, const char* p, const char* end) {
  ptrdiff_t run = 0;
  while (SingleMatch(m, s + run, p, end)) {
    Step(m);
    run++;
  }
  for (; run >= 0; run--) {
    if (const char* e = Match(m, s + run, end + 1)) return e;
  }
  return nullptr;
}

// The same, shortest run first.
const char* MinExpand(Matcher* m, const char* s, const char* p, const char* end) {
  for (;;) {
    if (const char* e = Match(m, s, end + 1)) return e;
    if (!SingleMatch(m, s, p, end)) return nullptr;
    s++;
  }
}

const char* OpenCapture(Matcher* m, const char* s, const char* p, ptrdiff_t what) {
  if (m->level >= LUA_MAXCAPTURES) luaL_error(m->L, "too many captures");
  m->captures[m->level] = {s, what};
  m->level++;
  const char* e = Match(m, s, p);
  if (e == nullptr) m->level--;
  return e;
}

const char* CloseCapture(Matcher* m, const char* s, const char* p) {
  int open = m->level - 1;
  while (open >= 0 && m->captures[open].length != kCaptureOpen) open--;
  if (open < 0) luaL_error(m->L, "invalid pattern capture");
  m->captures[open].length = s - m->captures[open].start;
  const char* e = Match(m, s, p);
  if (e == nullptr) m->captures[open].length = kCaptureOpen;
  return e;
}

// The index of the closed capture `%digit` names.
int CaptureIndex(Matcher* m, int digit) {
  const int index = digit - '1';
  if (index < 0 || index >= m->level || m->captures[index].length == kCaptureOpen) {
    luaL_error(m->L, "invalid capture index");
  }
  return index;
}

// %1..%9 at `s`: the same bytes as that capture's.
const char* MatchBackReference(Matcher* m, const char* s, int digit) {
  const Capture& c = m->captures[CaptureIndex(m, digit)];
  const size_t length = static_cast<size_t>(c.length);  // a position capture's is huge: no match
  if (static_cast<size_t>(m->subject_end - s) < length) return nullptr;
  Step(m, static_cast<uint32_t>(length / 64));
  return std::memcmp(c.start, s, length) == 0 ? s + length : nullptr;
}

// The end of the match of pattern `p` at `s`, or nullptr.
const char* Match(Matcher* m, const char* s, const char* p) {
  if (m->depth-- == 0) luaL_error(m->L, "pattern too complex");
  Step(m);
  for (;;) {
    switch (*p) {
      case '(':
        s = p[1] == ')' ? OpenCapture(m, s, p + 2, kCapturePosition)
                        : OpenCapture(m, s, p + 1, kCaptureOpen);
        break;
      case ')':
        s = CloseCapture(m, s, p + 1);
        break;
      case '\0':
        break;  // the pattern's end: a match
      case '$':
        if (p[1] == '\0') {
          s = s == m->subject_end ? s : nullptr;
          break;
        }
        [[fallthrough]];
      default: {
        if (*p == kEscape && p[1] == 'b') {
          s = MatchBalance(m, s, p + 2);
          if (s == nullptr) break;
          p += 4;
          continue;
        }
        if (*p == kEscape && p[1] == 'f') {
          p += 2;
          if (*p != '[') luaL_error(m->L, "missing '[' after '%%f' in pattern");
          const char* end = ClassEnd(m, p);
          const int previous = s == m->subject ? 0 : static_cast<unsigned char>(s[-1]);
          if (InSet(previous, p, end - 1) || !InSet(ByteAt(m, s), p, end - 1)) {
            s = nullptr;
            break;
          }
          p = end;
          continue;
        }
        if (*p == kEscape && std::isdigit(static_cast<unsigned char>(p[1]))) {
          s = MatchBackReference(m, s, static_cast<unsigned char>(p[1]));
          if (s == nullptr) break;
          p += 2;
          continue;
        }
        const char* end = ClassEnd(m, p);
        const bool here = SingleMatch(m, s, p, end);
        switch (*end) {
          case '?':
            if (here) {
              if (const char* e = Match(m, s + 1, end + 1)) {
                s = e;
                break;
              }
            }
            p = end + 1;
            continue;
          case '*':
            s = MaxExpand(m, s, p, end);
            break;
          case '+':
            s = here ? MaxExpand(m, s + 1, p, end) : nullptr;
            break;
          case '-':
            s = MinExpand(m, s, p, end);
            break;
          default:
            if (!here) {
              s = nullptr;
              break;
            }
            s++;
            p = end;
            continue;
        }
        break;
      }
    }
    m->depth++;
    return s;
  }
}

// Pushes capture `i` of a match [s, e): the whole match when the pattern has none and i is 0.
void PushCapture(Matcher* m, int i, const char* s, const char* e) {
  if (i >= m->level) {
    if (i != 0) luaL_error(m->L, "invalid capture index");
    lua_pushlstring(m->L, s, static_cast<size_t>(e - s));
    return;
  }
  const Capture& c = m->captures[i];
  if (c.length == kCaptureOpen) luaL_error(m->L, "unfinished capture");
  if (c.length == kCapturePosition) {
    lua_pushinteger(m->L, c.start - m->subject + 1);
  } else {
    lua_pushlstring(m->L, c.start, static_cast<size_t>(c.length));
  }
}

// Pushes every capture (the whole match [s, e) when there is none and s is given); their count.
int PushCaptures(Matcher* m, const char* s, const char* e) {
  const int count = m->level == 0 && s != nullptr ? 1 : m->level;
  luaL_checkstack(m->L, count, "too many captures");
  for (int i = 0; i < count; i++) PushCapture(m, i, s, e);
  return count;
}

// The check, held in a userdata every function has as its first upvalue.
PatternCheck CheckOf(lua_State* L) {
  return *static_cast<PatternCheck*>(lua_touserdata(L, lua_upvalueindex(1)));
}

void StartMatcher(Matcher* m, lua_State* L, PatternCheck check, const char* subject,
                  size_t length) {
  m->L = L;
  m->check = check;
  m->subject = subject;
  m->subject_end = subject + length;
  m->steps = kPatternCheckSteps;
}

// A new attempt at another position.
void Restart(Matcher* m) {
  m->level = 0;
  m->depth = kMaxPatternDepth;
}

// A 1-based position relative to a string of `length` bytes (negative: from its end) as a
// 0-based offset, 0 below the start.
ptrdiff_t Offset(lua_Integer position, size_t length) {
  if (position < 0) position += static_cast<lua_Integer>(length) + 1;
  return position > 0 ? static_cast<ptrdiff_t>(position) - 1 : 0;
}

// Whether the pattern up to its first zero byte has none of the characters that make it more
// than plain text.
bool Plain(const char* p) { return std::strpbrk(p, "^$*+?.([%-") == nullptr; }

// string.find (`find`) and string.match.
int FindOrMatch(lua_State* L, bool find) {
  size_t length = 0;
  size_t pattern_length = 0;
  const char* s = luaL_checklstring(L, 1, &length);
  const char* p = luaL_checklstring(L, 2, &pattern_length);
  ptrdiff_t start = Offset(luaL_optinteger(L, 3, 1), length);
  if (static_cast<size_t>(start) > length) start = static_cast<ptrdiff_t>(length);
  if (find && (lua_toboolean(L, 4) || Plain(p))) {
    const void* at = memmem(s + start, length - static_cast<size_t>(start), p, pattern_length);
    if (at == nullptr) {
      lua_pushnil(L);
      return 1;
    }
    const ptrdiff_t from = static_cast<const char*>(at) - s;
    lua_pushinteger(L, from + 1);
    lua_pushinteger(L, from + static_cast<ptrdiff_t>(pattern_length));
    return 2;
  }
  Matcher m;
  StartMatcher(&m, L, CheckOf(L), s, length);
  const bool anchored = *p == '^';
  if (anchored) p++;
  const char* at = s + start;
  do {
    Restart(&m);
    if (const char* e = Match(&m, at, p)) {
      if (!find) return PushCaptures(&m, at, e);
      lua_pushinteger(L, at - s + 1);
      lua_pushinteger(L, e - s);
      return PushCaptures(&m, nullptr, nullptr) + 2;
    }
  } while (at++ < m.subject_end && !anchored);
  lua_pushnil(L);
  return 1;
}

int Find(lua_State* L) { return FindOrMatch(L, true); }
int MatchFirst(lua_State* L) { return FindOrMatch(L, false); }

// gmatch's iterator: upvalues the check, the subject, the pattern and the offset to go on from.
int NextMatch(lua_State* L) {
  size_t length = 0;
  const char* s = lua_tolstring(L, lua_upvalueindex(2), &length);
  const char* p = lua_tostring(L, lua_upvalueindex(3));
  Matcher m;
  StartMatcher(&m, L, CheckOf(L), s, length);
  for (const char* at = s + lua_tointeger(L, lua_upvalueindex(4)); at <= m.subject_end; at++) {
    Restart(&m);
    if (const char* e = Match(&m, at, p)) {
      // An empty match moves on by one byte, so the next call does not find it again.
      lua_pushinteger(L, (e - s) + (e == at ? 1 : 0));
      lua_replace(L, lua_upvalueindex(4));
      return PushCaptures(&m, at, e);
    }
  }
  return 0;
}

int GMatch(lua_State* L) {
  luaL_checkstring(L, 1);
  luaL_checkstring(L, 2);
  lua_settop(L, 2);
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_insert(L, 1);
  lua_pushinteger(L, 0);
  lua_pushcclosure(L, NextMatch, 4);
  return 1;
}

// gsub's replacement string for the match [s, e): %0 the match, %1..%9 a capture, % before any
// other character that character.
void AddTemplate(Matcher* m, luaL_Buffer* b, const char* s, const char* e) {
  size_t length = 0;
  const char* text = lua_tolstring(m->L, 3, &length);
  for (size_t i = 0; i < length; i++) {
    if (text[i] != kEscape) {
      luaL_addchar(b, text[i]);
      continue;
    }
    i++;
    const char c = i < length ? text[i] : '\0';  // a trailing % adds the zero after it, as 5.1
    if (!std::isdigit(static_cast<unsigned char>(c))) {
      luaL_addchar(b, c);
    } else if (c == '0') {
      luaL_addlstring(b, s, static_cast<size_t>(e - s));
    } else {
      PushCapture(m, c - '1', s, e);
      luaL_addvalue(b);
    }
  }
}

// gsub's replacement of the match [s, e) by argument 3 (a string, a number, a table or a
// function); false or nil keeps the match.
void AddReplacement(Matcher* m, luaL_Buffer* b, const char* s, const char* e) {
  lua_State* L = m->L;
  switch (lua_type(L, 3)) {
    case LUA_TNUMBER:
    case LUA_TSTRING:
      AddTemplate(m, b, s, e);
      return;
    case LUA_TFUNCTION: {
      lua_pushvalue(L, 3);
      const int n = PushCaptures(m, s, e);
      lua_call(L, n, 1);
      break;
    }
    default:  // a table (gsub checked the type)
      PushCapture(m, 0, s, e);
      lua_gettable(L, 3);
      break;
  }
  if (!lua_toboolean(L, -1)) {
    lua_pop(L, 1);
    lua_pushlstring(L, s, static_cast<size_t>(e - s));
  } else if (!lua_isstring(L, -1)) {
    luaL_error(L, "invalid replacement value (a %s)", luaL_typename(L, -1));
  }
  luaL_addvalue(b);
}

int GSub(lua_State* L) {
  size_t length = 0;
  const char* s = luaL_checklstring(L, 1, &length);
  const char* p = luaL_checkstring(L, 2);
  const int type = lua_type(L, 3);
  const int most = luaL_optint(L, 4, static_cast<int>(length + 1));
  luaL_argcheck(
      L, type == LUA_TNUMBER || type == LUA_TSTRING || type == LUA_TFUNCTION || type == LUA_TTABLE,
      3, "string/function/table expected");
  const bool anchored = *p == '^';
  if (anchored) p++;
  luaL_Buffer b;
  luaL_buffinit(L, &b);
  Matcher m;
  StartMatcher(&m, L, CheckOf(L), s, length);
  int replaced = 0;
  while (replaced < most) {
    Restart(&m);
    const char* e = Match(&m, s, p);
    if (e != nullptr) {
      replaced++;
      AddReplacement(&m, &b, s, e);
    }
    if (e != nullptr && e > s) {
      s = e;
    } else if (s < m.subject_end) {
      luaL_addchar(&b, *s++);
    } else {
      break;
    }
    if (anchored) break;
  }
  luaL_addlstring(&b, s, static_cast<size_t>(m.subject_end - s));
  luaL_pushresult(&b);
  lua_pushinteger(L, replaced);
  return 2;
}

}  // namespace

void InstallPatternFunctions(lua_State* L, PatternCheck check) {
  lua_getglobal(L, "string");
  *static_cast<PatternCheck*>(lua_newuserdata(L, sizeof(PatternCheck))) = check;
  const struct {
    const char* name;
    lua_CFunction function;
  } functions[] = {
      {"find", Find}, {"match", MatchFirst}, {"gmatch", GMatch}, {"gsub", GSub}, {"gfind", GMatch}};
  for (const auto& f : functions) {
    lua_getfield(L, -2, f.name);
    const bool held = !lua_isnil(L, -1);
    lua_pop(L, 1);
    if (!held) continue;  // gfind: 5.1's old name of gmatch, where the library keeps it
    lua_pushvalue(L, -1);
    lua_pushcclosure(L, f.function, 1);
    lua_setfield(L, -3, f.name);
  }
  lua_pop(L, 2);
}

}  // namespace ebb::server::scripting
