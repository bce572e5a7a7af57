#include "server/active_active/collect.h"

#include <algorithm>

#include "server/active_active/peer_delta.h"
#include "server/active_active/stable_vector.h"

namespace ebb::server {

std::string CollectRowName(const types::OriginId& origin) {
  return std::string(kCollectRowPrefix) + NodeIdOfOrigin(origin.view());
}

bool ParseCollectRowName(std::string_view name, types::OriginId* origin) {
  if (!name.starts_with(kCollectRowPrefix)) return false;
  name.remove_prefix(kCollectRowPrefix.size());
  // The one spelling CollectRowName writes: lower-case hex.
  return OriginOfNodeId(name, origin) && NodeIdOfOrigin(origin->view()) == name;
}

std::string EncodeCollectRow(const types::OrContext& collect, const types::OriginId& origin) {
  return types::EncodeOrContext(collect, origin);
}

bool DecodeCollectRow(std::string_view value, const types::OriginId& origin,
                      types::OrContext* collect) {
  return types::DecodeOrContext(value, origin, collect);
}

std::vector<std::string> CollectDeltaArgs(const types::OrContext& collect,
                                          const types::OriginId& origin) {
  return {std::string(kCollectDelta), EncodeCollectRow(collect, origin)};
}

std::vector<std::string> CollectPieceArgs(const types::OrContext& collect,
                                          const types::OriginId& origin) {
  return {std::string(kCollectPiece), NodeIdOfOrigin(origin.view()),
          EncodeCollectRow(collect, origin)};
}

std::optional<CollectOf> ParseCollect(std::span<const std::string> args,
                                      const types::OriginId& sender) {
  CollectOf out;
  if (args.size() == 2 && args[0] == kCollectDelta) {
    out.origin = sender;
  } else if (args.size() == 3 && args[0] == kCollectPiece) {
    if (!OriginOfNodeId(args[1], &out.origin) || NodeIdOfOrigin(out.origin.view()) != args[1]) {
      return std::nullopt;
    }
  } else {
    return std::nullopt;
  }
  if (!DecodeCollectRow(args.back(), out.origin, &out.collect) ||
      out.collect.entries().size() > kMaxVectorOrigins) {
    return std::nullopt;
  }
  return out;
}

std::vector<std::string> KnownCollectsPieceArgs(const types::OrContext& known,
                                                const types::OriginId& sender) {
  return {std::string(kKnownCollectsPiece), EncodeCollectRow(known, sender)};
}

std::optional<types::OrContext> ParseKnownCollects(std::span<const std::string> args,
                                                   const types::OriginId& sender) {
  types::OrContext known;
  if (args.size() != 2 || args[0] != kKnownCollectsPiece ||
      !DecodeCollectRow(args[1], sender, &known) || known.entries().size() > kMaxVectorOrigins) {
    return std::nullopt;
  }
  return known;
}

bool CollectDue(const types::OrContext& tops, const types::OrContext& stable,
                const types::OrContext& last) {
  return std::ranges::any_of(tops.entries(), [&](const types::Dot& top) {
    return std::min(top.offset, stable.At(top.origin)) > last.At(top.origin);
  });
}

bool ObservedCovers(const types::OrContext& observed, const types::OrContext& collect) {
  return std::ranges::all_of(collect.entries(), [&](const types::Dot& entry) {
    return entry.offset <= observed.At(entry.origin);
  });
}

}  // namespace ebb::server
