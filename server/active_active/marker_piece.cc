#include "server/active_active/marker_piece.h"

#include <string_view>

#include "common/strings.h"
#include "server/active_active/peer_delta.h"
#include "types/merge_rule.h"

namespace ebb::server {

bool ParseWholeKeyPiece(std::span<const std::string> args, int64_t* ts, int64_t* expire_at,
                        int64_t* floor, int64_t* register_ts, int64_t* cut_at) {
  if (args.empty()) return false;
  const std::string_view op = args[0];
  const bool known_marker =
      op == kMarkerAt && (args.size() == 4 || args.size() == 7) && ParseInt64(args[3], floor) &&
      *floor >= 0 && *floor <= types::TypePrecedence(types::KeyType::kSeries) &&
      (args.size() == 4 || (ParseInt64(args[4], register_ts) &&
                            (args[5] == kPersist || ParseInt64(args[5], expire_at))));
  const bool known =
      (op == kDelAt && args.size() >= 3) ||
      ((op == kFlushDbAt || op == kFlushAllAt) && args.size() == 2) ||
      (op == kExpiryAt &&
       (args.size() == 4 || args.size() == 5 ||
        (args.size() == 6 && args[4] == kExpiryCut && ParseInt64(args[5], cut_at))) &&
       (args[3] == kPersist || ParseInt64(args[3], expire_at))) ||
      known_marker;
  return known && ParseInt64(args[1], ts);
}

}  // namespace ebb::server
