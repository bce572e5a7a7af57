// GlobMatch: Redis's stringmatch glob (util.c stringmatchlen), binary safe.
//
//   *        any run of bytes (also empty)
//   ?        any one byte
//   [abc]    one of the listed bytes; [a-z] a range (either order); [^...] negates;
//            a backslash inside brackets escapes the next byte; an unclosed '[' matches
//            the rest of the set up to the end of the pattern, as Redis does
//   \x       the byte x literally
// Stars also match an empty text (Redis's matcher does not; it special-cases "*" in KEYS/SCAN).
//
// Used by KEYS, SCAN MATCH, CONFIG GET and ttl-rule matching. Pure function; thread-safe.
#pragma once

#include <string_view>

namespace ebb {

// True if `text` matches `pattern` as a whole. nocase folds ASCII letters on both sides.
bool GlobMatch(std::string_view pattern, std::string_view text, bool nocase = false);

}  // namespace ebb
