// What the string-row commands (cmd_kv.cc: GET, GETMETA; cmd_string.cc: the Redis string
// commands) share: the Kv handle of the client's database and the read of one row that counts
// INFO's keyspace hits and misses.
// Thread-safety: the command thread only.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "server/core/command.h"
#include "types/kv.h"

namespace ebb::server {

// A Kv over the client's database; reads use default-retrieval-grace unless given one.
types::Kv KvOf(CommandContext& ctx);

// Reads `key`'s string row with `grace_ms` (nullopt: default-retrieval-grace) into *row (nullopt
// when the key is absent), counting a keyspace hit or miss. Replies WRONGTYPE or the engine's
// error itself and returns false.
bool ReadStringOrReply(CommandContext& ctx, std::string_view key, std::optional<int64_t> grace_ms,
                       std::optional<types::KvRow>* row);
// ReadStringOrReply without a copy of the value (types::Kv::GetPinned): *found says whether the
// key holds a string; its value is then row->payload.
bool ReadPinnedStringOrReply(CommandContext& ctx, std::string_view key,
                             std::optional<int64_t> grace_ms, types::KeyMetaView* row, bool* found);

}  // namespace ebb::server
