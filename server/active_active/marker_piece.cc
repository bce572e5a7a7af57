#include "server/active_active/marker_piece.h"

#include <string_view>

#include "common/strings.h"
#include "server/active_active/peer_delta.h"
#include "types/merge_rule.h"

namespace ebb::server {

namespace {

constexpr std::string_view kDeletesTag = "deletes";

// The `deletes` that args[from..] are (nothing when from is the end) into *deletes; false unless
// they are a set in MarkerDeletes' order whose greatest ts is `ts`.
bool ParseDeletes(std::span<const std::string> args, size_t from, int64_t ts,
                  MarkerDeletes* deletes) {
  *deletes = MarkerDeletes();
  if (from == args.size()) return true;
  if (args[from] != kDeletesTag || (args.size() - from - 1) % 3 != 0 || args.size() - from == 1) {
    return false;
  }
  for (size_t i = from + 1; i < args.size(); i += 3) {
    MarkerDelete del;
    const auto& held = deletes->entries();
    if (!OriginOfNodeId(args[i], &del.dot.origin) || !ParseUint64(args[i + 1], &del.dot.offset) ||
        !ParseInt64(args[i + 2], &del.ts) || !deletes->Add(del) || held.back() != del) {
      return false;  // out of order, or dominated, or dominating one before it
    }
    if (held.size() != (i - from + 2) / 3) return false;
  }
  return deletes->UpTo() == ts;
}

}  // namespace

bool ParseWholeKeyPiece(std::span<const std::string> args, int64_t* ts, int64_t* expire_at,
                        int64_t* floor, int64_t* register_ts, int64_t* cut_at,
                        MarkerDeletes* deletes) {
  *deletes = MarkerDeletes();
  if (args.size() < 2) return false;
  const std::string_view op = args[0];
  if (!ParseInt64(args[1], ts)) return false;
  if (op == kMarkerAt) {
    if (args.size() < 4 || !ParseInt64(args[3], floor) || *floor < 0 ||
        *floor > types::TypePrecedence(types::KeyType::kSeries)) {
      return false;
    }
    size_t rest = 4;
    if (args.size() >= 7 && args[4] != kDeletesTag) {
      if (!ParseInt64(args[4], register_ts) ||
          (args[5] != kPersist && !ParseInt64(args[5], expire_at))) {
        return false;
      }
      rest = 7;
    }
    return ParseDeletes(args, rest, *ts, deletes);
  }
  if (op == kFlushDbAt) return ParseDeletes(args, 2, *ts, deletes);
  return (op == kDelAt && args.size() >= 3) || (op == kFlushAllAt && args.size() == 2) ||
         (op == kExpiryAt &&
          (args.size() == 4 || args.size() == 5 ||
           (args.size() == 6 && args[4] == kExpiryCut && ParseInt64(args[5], cut_at))) &&
          (args[3] == kPersist || ParseInt64(args[3], expire_at)));
}

std::vector<std::string> MarkerDeletesArgs(const MarkerDeletes& deletes) {
  std::vector<std::string> args;
  if (deletes.empty()) return args;
  args.emplace_back(kDeletesTag);
  for (const MarkerDelete& del : deletes.entries()) {
    args.push_back(NodeIdOfOrigin(del.dot.origin));
    args.push_back(std::to_string(del.dot.offset));
    args.push_back(std::to_string(del.ts));
  }
  return args;
}

bool ParseDelOr(std::span<const std::string> args, std::string_view origin_node_id, DelOr* del) {
  *del = DelOr();
  uint64_t n = 0;
  if (args.size() < 3 || args[0] != kDelOr || !ParseInt64(args[1], &del->ts) ||
      !ParseUint64(args[2], &n) || n > args.size() - 3 || (args.size() - 3 - n) % 2 != 0 ||
      args.size() == 3) {
    return false;
  }
  const size_t first_string = 3 + static_cast<size_t>(n);
  del->keys.assign(args.begin() + 3, args.begin() + static_cast<std::ptrdiff_t>(first_string));
  types::OriginId origin;
  if (first_string < args.size() && !OriginOfNodeId(origin_node_id, &origin)) return false;
  for (size_t i = first_string; i < args.size(); i += 2) {
    DelOr::StringKey& string_key = del->string_keys.emplace_back();
    string_key.key = args[i];
    if (!types::DecodeOrContext(args[i + 1], origin, &string_key.context)) return false;
  }
  return true;
}

std::vector<std::string> DelOrArgs(const DelOr& del, std::string_view origin_node_id) {
  types::OriginId origin;
  if (!del.string_keys.empty()) OriginOfNodeId(origin_node_id, &origin);
  std::vector<std::string> args = {std::string(kDelOr), std::to_string(del.ts),
                                   std::to_string(del.keys.size())};
  args.insert(args.end(), del.keys.begin(), del.keys.end());
  for (const DelOr::StringKey& string_key : del.string_keys) {
    args.push_back(string_key.key);
    args.push_back(types::EncodeOrContext(string_key.context, origin));
  }
  return args;
}

}  // namespace ebb::server
