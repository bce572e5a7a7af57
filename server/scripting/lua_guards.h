// The base and bit library functions whose stock Lua 5.1 (Debian's liblua5.1, lua-bitop) versions
// are unsafe in a sandbox, replaced by ebb's own (docs/security.md, "Scripts"), and the allocator
// that bounds the Lua heap.
//
//   unpack(t [, i [, j]])    as Lua's, but a range too wide for the stack is the error "too many
//                            results to unpack" (Lua's own overflows on i = -2^31, j = 2^31-1:
//                            CVE-2025-46817).
//   bit.tohex(x [, n])       as lua-bitop's, but n = -2^31 is clamped to 8 upper-case digits
//                            (lua-bitop negates it and writes past its buffer: CVE-2024-31449).
//   loadstring(s [, name])   refuse binary chunks (first byte "\27"): nil and the message
//   load(f [, name])         "binary chunks are not allowed" (CVE-2015-4335). load reads every
//                            piece f returns first, so no piece reaches Lua's undump.
//   getfenv(f)               a C function's environment (Lua's real globals) is answered as
//                            the read-only globals scripts see.
//   setfenv(f, t)            refuses level 0 (the globals every later script compiles against)
//                            and the sandbox's own functions: "'setfenv' cannot change
//                            environment of given object" (CVE-2025-46818 class).
//   cjson.encode(v)          lua-cjson's, refused ("cjson.encode: the value may encode to more
//                            than ... bytes") when the output could pass 128 MiB: lua-cjson
//                            2.1's int buffer sizes overflow on large outputs (CVE-2022-24834).
//   collectgarbage([opt])    only "collect" (the default), "count" and "step": a script cannot
//                            stop the collector or retune it for every later script.
//
// Thread-safety: as the Lua state they are installed in.
#pragma once

#include <cstddef>

struct lua_State;

namespace ebb::server::scripting {

// Sets the functions above in the base library's globals, `bit` and `cjson` (all open).
// getfenv answers the table under kRunGlobalsKey for C functions.
void InstallGuards(lua_State* L);

// The heap bound of one Lua state: an allocation that would take `used` past `limit` fails
// while `enforce` is set (Lua then raises "not enough memory"); 0 is no bound.
struct HeapLimit {
  size_t used = 0;
  size_t limit = 0;
  bool enforce = false;
};
// The lua_Alloc that keeps a HeapLimit (its `ud`).
void* LimitedAlloc(void* ud, void* ptr, size_t old_size, size_t new_size);

}  // namespace ebb::server::scripting
