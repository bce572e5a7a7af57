// The `collect` delta between active-active peers: a point in each origin's log that every node
// agrees on, which marker collection goes by (docs/active-active.md, "Status", marker collection,
// step 2; "Collects").
//
// Now and then a node appends to its own origin log `collect <C>`, C the mesh's stable vector as
// it sees it (stable_vector.h) joined with its previous C: every delta of every origin at or below
// C has been applied, durably, on every node. Every delta the node logs after it follows it in its
// log, so every node applies the collect before them. Each node keeps each origin P's last C in
// the system row `aa-collect:<P's id>` (docs/key-encoding.md), joined (pointwise max) with what
// it held: P's last collect before this node's place in P's stream, which is what the judges of
// steps 3 and 4 need. Only what moves that place moves the row: P's stream, and a snapshot P
// itself sends, which carries P's own last C right after its vector. Another node's snapshot
// may carry a collect of P made after deltas of P this node has still to apply: a piece naming
// an origin other than its sender is passed over. Once a node has applied P's whole log, its row
// for P is P's own. A data write of P is judged by the deletes P's row does not cover, a
// snapshot's by the join of its sender's rows (`collects-known`; step 3); compaction does not go
// by them yet (step 4).
//
// Wire forms (C is a context, types/or_context.h's form, the collect's origin as its own):
//   delta  `collect <C>`                        C of the delta's origin, in database 0
//   piece  `collect-of <origin id> <C>`         a snapshot sender's own last collect
//   piece  `collects-known <K>`                 the join of every collect row the sender
//                                               holds (K a context, the sender as its own)
// Anything else is malformed.
// Thread-safety: pure functions and plain values.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "types/or_context.h"

namespace ebb::server {

inline constexpr std::string_view kCollectDelta = "collect";
inline constexpr std::string_view kCollectPiece = "collect-of";
inline constexpr std::string_view kKnownCollectsPiece = "collects-known";
inline constexpr std::string_view kCollectRowPrefix = "aa-collect:";

// `aa-collect:<origin's node id>` (40 lower-case hex digits), and its parse (false for any other
// name).
std::string CollectRowName(const types::OriginId& origin);
bool ParseCollectRowName(std::string_view name, types::OriginId* origin);

// The row's value: C in the context form, `origin` as its own.
std::string EncodeCollectRow(const types::OrContext& collect, const types::OriginId& origin);
bool DecodeCollectRow(std::string_view value, const types::OriginId& origin,
                      types::OrContext* collect);

// The delta `collect <C>` of `origin`.
std::vector<std::string> CollectDeltaArgs(const types::OrContext& collect,
                                          const types::OriginId& origin);
// The piece `collect-of <origin id> <C>`.
std::vector<std::string> CollectPieceArgs(const types::OrContext& collect,
                                          const types::OriginId& origin);

// A collect delta (args[0] `collect`, from `sender`) or piece (args[0] `collect-of`, any sender),
// parsed: the origin whose row it joins and its C; nullopt unless it is exactly a form above
// with a C of at most kMaxVectorOrigins origins (as many as a vector S is made of may name).
struct CollectOf {
  types::OriginId origin;
  types::OrContext collect;
};
std::optional<CollectOf> ParseCollect(std::span<const std::string> args,
                                      const types::OriginId& sender);

// The piece `collects-known <K>` a snapshot's sender sends after its own collect: K, the join of
// every collect row it holds, judges that snapshot's data pieces on the receiver
// (docs/active-active.md, "Status", marker collection's step 3) and joins no row.
std::vector<std::string> KnownCollectsPieceArgs(const types::OrContext& known,
                                                const types::OriginId& sender);
// That piece's K; nullopt unless it is exactly that form with at most kMaxVectorOrigins origins.
std::optional<types::OrContext> ParseKnownCollects(std::span<const std::string> args,
                                                   const types::OriginId& sender);

// True when `collect` is due: some origin's greatest entry offset held (`tops`), as far as the
// stable vector covers it, lies beyond that origin's entry in `last`, the node's last C.
// Example: tops {A:7}, stable {A:5, B:9}, last {A:3} -> due (min(7, 5) = 5 > 3); last {A:5} -> not.
bool CollectDue(const types::OrContext& tops, const types::OrContext& stable,
                const types::OrContext& last);

// True when `observed`, a node's observed vector, covers `collect`'s C: each origin's offset in C
// at or below observed's. A collect's C was applied durably on every node before it was made, so
// a node whose observed vector falls short has gone back (its data directory restored from a
// copy): it takes a snapshot of the collect's origin instead of the stream past it (a barrier,
// docs/active-active.md, "Collects").
// Example: observed {A:5, B:2}, C {A:5} -> covered; C {A:5, B:3} -> not.
bool ObservedCovers(const types::OrContext& observed, const types::OrContext& collect);

}  // namespace ebb::server
