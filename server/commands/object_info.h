// What OBJECT and DEBUG OBJECT say about a key, from its metadata row (types/key_meta.h): one
// reading of it for both commands.
// Thread-safety: the command (io) thread only.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "types/key_meta.h"

namespace ebb::server {

struct CommandContext;

// `key`'s metadata row into *meta (nullopt when absent), counting a keyspace hit or miss.
// Replies the engine's error itself and returns false.
bool ReadMetaOrReply(CommandContext& ctx, std::string_view key,
                     std::optional<types::KeyMetaRow>* meta);

// OBJECT ENCODING's answer: a string as Redis would encode the value SET writes — "int" (a
// 64-bit integer in canonical form), "embstr" (up to 44 bytes), "raw" (longer, or after the
// writes Redis leaves raw); a TLOG "tlog", a TREG "treg".
std::string_view ObjectEncoding(const types::KeyMetaRow& meta);

// OBJECT IDLETIME's answer: whole seconds from the key's newest write to `now_ms` (ebb keeps no
// access times), never negative.
int64_t IdleSeconds(const types::KeyMetaRow& meta, int64_t now_ms);

}  // namespace ebb::server
