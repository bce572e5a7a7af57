#include "server/active_active/merge_gate.h"

#include "server/active_active/peer_delta.h"
#include "types/keyspace.h"
#include "types/merge_rule.h"

namespace ebb::server {

storage::Status JudgeDelta(types::Keyspace& keyspace, int db, std::span<const std::string> args,
                           MergeVerdict* verdict) {
  *verdict = MergeVerdict::kWrite;
  StringDelta incoming;  // a string delta's version
  const bool string_write = IsStringDelta(args[0]);
  if (string_write && !ParseStringDelta(args, &incoming)) {
    return storage::Status::InvalidArgument("bad delta");
  }
  const types::KeyType type = string_write        ? types::KeyType::kString
                              : args[0] == "tlog" ? types::KeyType::kTlog
                                                  : types::KeyType::kTreg;
  const types::OpResult<MergeVerdict> judged =
      types::JudgeWrite(keyspace, db, string_write ? args[1] : args[2], type, &incoming.version);
  if (!judged.ok()) return judged.engine_status();
  *verdict = *judged;
  return storage::Status::OK();
}

}  // namespace ebb::server
