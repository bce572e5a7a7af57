// The libraries Redis bundles with its Lua that Debian does not package, as scripts see them
// (docs/scripting.md, "Libraries"): each opener returns the library's table, which ScriptEngine
// sets as a global before the sandbox makes it read-only.
//
// cmsgpack (lua_cmsgpack.cc), MessagePack as Redis's lua-cmsgpack 0.4.0 writes and reads it:
//   cmsgpack.pack(v1, v2, ...)           -> the encodings of the values, concatenated
//   cmsgpack.unpack(s)                   -> every value encoded in s
//   cmsgpack.unpack_one(s [, offset])    -> next offset (-1 at the end), the value at offset
//   cmsgpack.unpack_limit(s, n [, off])  -> next offset (-1 at the end), up to n values
// Numbers equal to an int64 are integers (the smallest encoding), others a float when that is
// exact, else a double; a table whose keys are exactly 1..n is an array, any other a map;
// tables nest to a depth of 16 (deeper ones, and cycles, encode as nil); nil, functions and
// userdata encode as nil.
//
// struct (lua_struct.cc), Roberto Ierusalimschy's struct library as Redis bundles it:
//   struct.pack(fmt, v1, ...)     -> the binary string
//   struct.unpack(fmt, s [, pos]) -> the values, then the position after them (1-based)
//   struct.size(fmt)              -> the bytes fmt packs to
// Format letters: b/B (signed/unsigned char), h/H (short), l/L (long), T (size_t), i/I[n]
// (int of n bytes, at most 32), f (float), d (double), s (zero-terminated string), c[n] (n
// bytes; c0: the whole string when packing, the length from the previous value when
// unpacking), x (a zero byte of padding); controls: > (big endian), < (little endian), ![n]
// (alignment n, default the largest natural one), space (ignored).
//
// Thread-safety: as the Lua state they are opened in.
#pragma once

struct lua_State;

namespace ebb::server::scripting {

int OpenCmsgpack(lua_State* L);
int OpenStruct(lua_State* L);

}  // namespace ebb::server::scripting
