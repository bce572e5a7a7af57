// The merge gate: how one canonical delta (server/active_active/peer_delta.h) meets what a node
// already holds, so that every node ends in the same state whatever order deltas arrive in
// (docs/active-active.md, "Merge rules"). The rules are the data types' (types/merge_rule.h);
// the gate reads the delta's key, type and string version and asks them.
// Thread-safety: the command (io) thread, as every keyspace operation.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "storage/status.h"
#include "types/key_meta.h"
#include "types/merge_rule.h"

namespace ebb::types {
class Keyspace;
}

namespace ebb::server {

using types::HeldType;
using types::MergeVerdict;
using types::TypePrecedence;

// Judges canonical delta `args` (args[0] lower-case) against database `db`.
storage::Status JudgeDelta(types::Keyspace& keyspace, int db, std::span<const std::string> args,
                           MergeVerdict* verdict);
// Judges the version a string delta to `key` brings (ParseStringDelta's, already parsed) against
// database `db`: what JudgeDelta does with that delta.
storage::Status JudgeStringVersion(types::Keyspace& keyspace, int db, std::string_view key,
                                   types::StringVersion* incoming, MergeVerdict* verdict);

}  // namespace ebb::server
