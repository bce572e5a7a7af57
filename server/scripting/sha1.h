// SHA-1 digests as Redis names scripts by them: 40 lower-case hex digits of the body's SHA-1.
// Thread-safety: safe from any thread.
#pragma once

#include <string>
#include <string_view>

namespace ebb::server::scripting {

// The SHA-1 of `data` as 40 lower-case hex digits (redis.sha1hex, EVAL's script names).
std::string Sha1Hex(std::string_view data);

}  // namespace ebb::server::scripting
