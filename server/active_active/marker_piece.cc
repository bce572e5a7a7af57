#include "server/active_active/marker_piece.h"

#include <string_view>

#include "common/strings.h"
#include "server/active_active/peer_delta.h"
#include "types/merge_rule.h"

namespace ebb::server {

namespace {

// The deletes at args[*at..] (none unless args[*at] is the tag) into *deletes, *at moved past
// them; false unless they are a set in MarkerEntries' order.
bool ParseDeletes(std::span<const std::string> args, size_t* at, MarkerEntries* deletes) {
  *deletes = MarkerEntries();
  if (*at == args.size() || args[*at] != kMarkerDeletesTag) return true;
  size_t i = *at + 1;
  for (; i + 2 < args.size(); i += 3) {
    MarkerEntry del;
    if (!OriginOfNodeId(args[i], &del.dot.origin) || !ParseUint64(args[i + 1], &del.dot.offset) ||
        !ParseInt64(args[i + 2], &del.value)) {
      return false;
    }
    if (!deletes->AppendInOrder(del)) return false;  // not the set's only form
  }
  *at = i;
  return !deletes->empty();
}

// A piece's deletes from args[at] to its end, their greatest T the piece's.
bool ParseDeletesToEnd(std::span<const std::string> args, size_t at, WholeKeyPiece* piece) {
  return ParseDeletes(args, &at, &piece->deletes) && at == args.size() &&
         (piece->deletes.empty() || piece->deletes.Greatest() == piece->ts);
}

// A marker-at's rest from args[4]: [register [offset]] [deletes].
bool ParseMarkerRest(std::span<const std::string> args, WholeKeyPiece* piece) {
  size_t at = 4;
  if (args.size() >= 7 && args[4] != kMarkerDeletesTag) {
    if (!ParseInt64(args[4], &piece->register_ts) ||
        (args[5] != kPersist && !ParseInt64(args[5], &piece->expire_at))) {
      return false;
    }
    piece->has_register = true;
    at = 7;
    if (at < args.size() && args[at] != kMarkerDeletesTag) {
      if (!ParseUint64(args[at], &piece->register_offset)) return false;
      at++;
    }
  }
  return ParseDeletesToEnd(args, at, piece);
}

}  // namespace

bool ParseWholeKeyPiece(std::span<const std::string> args, WholeKeyPiece* piece) {
  *piece = WholeKeyPiece();
  if (args.size() < 2) return false;
  const std::string_view op = args[0];
  if (!ParseInt64(args[1], &piece->ts)) return false;
  if (op == kMarkerAt) {
    return args.size() >= 4 && ParseInt64(args[3], &piece->floor) && piece->floor >= 0 &&
           piece->floor <= types::TypePrecedence(types::KeyType::kSeries) &&
           ParseMarkerRest(args, piece);
  }
  if (op == kFlushDbAt) return ParseDeletesToEnd(args, 2, piece);
  return (op == kDelAt && args.size() >= 3) || (op == kFlushAllAt && args.size() == 2) ||
         (op == kExpiryAt &&
          (args.size() == 4 || args.size() == 5 ||
           (args.size() == 6 && args[4] == kExpiryCut && ParseInt64(args[5], &piece->cut_at))) &&
          (args[3] == kPersist || ParseInt64(args[3], &piece->expire_at)));
}

std::vector<std::string> MarkerDeletesArgs(const MarkerEntries& deletes) {
  std::vector<std::string> args;
  if (deletes.empty()) return args;
  args.emplace_back(kMarkerDeletesTag);
  for (const MarkerEntry& del : deletes.entries()) {
    args.push_back(NodeIdOfOrigin(del.dot.origin));
    args.push_back(std::to_string(del.dot.offset));
    args.push_back(std::to_string(del.value));
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
