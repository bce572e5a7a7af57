#include "server/active_active/merge_gate.h"

#include "server/active_active/peer_delta.h"
#include "types/keyspace.h"
#include "types/merge_rule.h"

namespace ebb::server {

storage::Status JudgeDelta(types::Keyspace& keyspace, int db, std::span<const std::string> args,
                           MergeVerdict* verdict) {
  *verdict = MergeVerdict::kWrite;
  if (IsStringDelta(args[0])) {
    StringDelta incoming;
    if (!ParseStringDelta(args, &incoming)) return storage::Status::InvalidArgument("bad delta");
    return JudgeStringVersion(keyspace, db, incoming.key, &incoming.version, verdict);
  }
  const types::KeyType type = args[0] == "tlog" ? types::KeyType::kTlog : types::KeyType::kTreg;
  const types::OpResult<MergeVerdict> judged =
      types::JudgeWrite(keyspace, db, args[2], type, nullptr);
  if (!judged.ok()) return judged.engine_status();
  *verdict = *judged;
  return storage::Status::OK();
}

storage::Status JudgeStringVersion(types::Keyspace& keyspace, int db, std::string_view key,
                                   types::StringVersion* incoming, MergeVerdict* verdict) {
  *verdict = MergeVerdict::kWrite;
  const types::OpResult<MergeVerdict> judged =
      types::JudgeWrite(keyspace, db, key, types::KeyType::kString, incoming);
  if (!judged.ok()) return judged.engine_status();
  *verdict = *judged;
  return storage::Status::OK();
}

}  // namespace ebb::server
