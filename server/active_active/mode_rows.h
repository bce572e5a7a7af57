// The system rows of active-active mode, by name (docs/key-encoding.md; ActiveActive reads and
// writes them, server/keyspace_setup.cc keeps the log's rows in table files of their own). Other
// rows of the mode are named beside their job: `aa-collect:` (collect.h), the markers
// (whole_key.h), the sibling rows (types/or_string_rows.h).
// Thread-safety: constants.
#pragma once

#include <cstdint>
#include <string_view>

namespace ebb::server {

inline constexpr std::string_view kNodeIdRow = "aa-node-id";
inline constexpr std::string_view kModeRow = "aa-mode";
inline constexpr std::string_view kLogRowPrefix = "aa-log:";
inline constexpr std::string_view kAppliedRowPrefix = "aa-applied:";
// aa-known:<origin id> = <offset>: how far this node has observed that origin's deltas beyond
// its applied vector — the vector of a snapshot it joined, or its applied vector when a new
// incarnation forgot it (docs/active-active.md, "Collection of observed-remove deletes").
inline constexpr std::string_view kKnownRowPrefix = "aa-known:";
// Written when a node with data enters the mode (kEntryContentOffset) or takes a new
// incarnation (its end offset then, kEntryContentOffset if that was 0): the origin offset that
// stands for content no delta row carries, so peers receive it as a snapshot.
inline constexpr std::string_view kEntryContentRow = "aa-entry-content";
inline constexpr uint64_t kEntryContentOffset = 1;
// Written when the node took a new incarnation (TakeNewIncarnation): from then on a peer with
// no entry in its applied vector is asked for a snapshot (PEER SYNC from offset 0), so every
// peer sends back what this node lost.
inline constexpr std::string_view kResyncRow = "aa-resync";
// The ids this node gave up, each when it took a new incarnation: space-separated, oldest
// first, the newest kMaxVectorOrigins (stable_vector.h, "retires"). Its ticks list them.
inline constexpr std::string_view kRetiredRow = "aa-retired";

}  // namespace ebb::server
