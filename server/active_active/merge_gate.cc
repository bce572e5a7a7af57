#include "server/active_active/merge_gate.h"

#include <optional>

#include "common/strings.h"
#include "server/active_active/peer_delta.h"
#include "types/keyspace.h"
#include "types/merge_rule.h"

namespace ebb::server {
namespace {

// The incoming version of canonical `PUT key value TS ts PXAT ms|NOTTL`, `DELETE key TS ts` or
// `PUT-EXPIRED key DIGEST hex TS ts PXAT ms|NOTTL`.
bool IncomingVersion(std::span<const std::string> args, types::StringVersion* v) {
  if (args[0] == "put" && args.size() >= 6) {
    if (!ParseInt64(args[4], &v->ts)) return false;
    v->value = args[2];
    if (args.size() == 7 && !ParseInt64(args[6], &v->expire_at)) return false;
    return true;
  }
  if (args[0] == "delete" && args.size() == 4) {
    v->tombstone = true;
    return ParseInt64(args[3], &v->ts);
  }
  if (args[0] == kPutExpired) {
    ReducedPut reduced;
    if (!ParseReducedPut(args, &reduced)) return false;
    v->ts = reduced.ts;
    v->digest = std::move(reduced.digest);
    v->expire_at = reduced.expire_at;
    return true;
  }
  return false;
}

}  // namespace

storage::Status JudgeDelta(types::Keyspace& keyspace, int db, std::span<const std::string> args,
                           MergeVerdict* verdict) {
  *verdict = MergeVerdict::kWrite;
  types::StringVersion incoming;
  const bool string_write = IsStringDelta(args[0]);
  if (string_write && !IncomingVersion(args, &incoming)) {
    return storage::Status::InvalidArgument("bad delta");
  }
  const types::KeyType type = string_write        ? types::KeyType::kString
                              : args[0] == "tlog" ? types::KeyType::kTlog
                                                  : types::KeyType::kTreg;
  const types::OpResult<MergeVerdict> judged =
      types::JudgeWrite(keyspace, db, string_write ? args[1] : args[2], type, &incoming);
  if (!judged.ok()) return judged.engine_status();
  *verdict = *judged;
  return storage::Status::OK();
}

}  // namespace ebb::server
