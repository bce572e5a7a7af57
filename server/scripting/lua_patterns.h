// string.find, string.match, string.gmatch (and its old name gfind) and string.gsub for scripts, by
// ebb's own pattern matcher (docs/security.md, "Scripts"; docs/scripting.md, "Libraries"). They
// answer as Lua 5.1's do — the same patterns, captures, replacements, results and error messages —
// with two bounds that stock Lua 5.1 lacks:
//
//   - depth: the matcher recurses once per nested pattern item (a quantified item, a capture);
//     past kMaxPatternDepth levels the call fails with "pattern too complex", as Lua 5.2 and
//     later refuse it. Stock 5.1 recurses without a bound, so a pattern of 200,000 `a?` items
//     overflowed the C stack and killed the server.
//   - time: backtracking can take exponential time (`string.rep('a?', 40) .. string.rep('a',
//     40)` against 40 `a`s), all of it inside one C call, where Lua's count hook never runs, so
//     a script stuck there could be neither answered for (BUSY) nor killed. Every
//     kPatternCheckSteps steps the matcher calls the `check` it was installed with, which the
//     script engine makes its busy hook: it serves other clients once the script is past
//     busy-reply-threshold and raises the kill error after SCRIPT KILL / FUNCTION KILL.
//
// The matcher's frames hold only trivially destructible values, so `check` and every Lua error
// may unwind through them (Lua 5.1 raises by longjmp).
// Thread-safety: as the Lua state they are installed in.
#pragma once

#include <cstdint>

struct lua_State;

namespace ebb::server::scripting {

inline constexpr int kMaxPatternDepth = 200;
inline constexpr uint32_t kPatternCheckSteps = 1u << 16;

// Called now and then during a long match; may raise a Lua error (and not return).
using PatternCheck = void (*)(lua_State* L);

// Replaces find, match, gmatch and gsub in the `string` table (open) with the functions above,
// and gfind, Lua 5.1's old name of gmatch, where the table has it (Debian's liblua5.1 does).
void InstallPatternFunctions(lua_State* L, PatternCheck check);

}  // namespace ebb::server::scripting
