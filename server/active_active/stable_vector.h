// Causal stability between active-active peers (docs/active-active.md, "Links", "INFO peers").
//
// Each node's **applied vector** says, per origin node id, the last origin offset of it this node
// has applied (its own entry: the last offset of its own log). Every node sends its vector to the
// peers pulling from it, in its ticks:
//
//   ["tick", now_ms, end_offset, end_bytes, "vector", <id>, <offset>, <id>, <offset>, ...]
//
// (an older receiver ignores what follows end_bytes). A receiver keeps the latest vector each
// peer reported, in memory only. The mesh's **stable vector** S is the pointwise minimum of this
// node's vector and the latest vector of every configured peer, over every origin any of them
// names: an origin a vector does not name counts 0 there, and a peer never heard from holds every
// entry of S at 0. Every delta of origin o at or below S[o] has been applied on every node of the
// mesh — what a delete's markers need before they can be collected.
//
// Example: self {a:5, b:3}, peer b reported {a:4, b:3}, peer c reported {a:5, b:2, c:7}:
// S = {a:4, b:2, c:0} (self names no c). Were c never heard from, S = {a:0, b:0}.
//
// A peer's vector is hostile input: ParseOriginVector refuses a malformed or oversized one (the
// tick itself still counts), and the link logs why.
// Thread-safety: pure functions and plain values.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace ebb::server {

// Origin node id -> the last origin offset of it applied.
using OriginVector = std::map<std::string, uint64_t, std::less<>>;

// The tick's field that starts the vector.
inline constexpr std::string_view kTickVectorTag = "vector";
// The most origins a vector may name (a mesh has a handful; past incarnations add one each).
inline constexpr size_t kMaxVectorOrigins = 1024;
// The length of a node id (40 hex digits, as PEER ID answers).
inline constexpr size_t kNodeIdLength = 40;

// What ParseOriginVector made of a peer's vector.
enum class VectorParse {
  kOk,
  kOddFields,       // an id without its offset
  kTooManyOrigins,  // more than kMaxVectorOrigins
  kBadOriginId,     // not 40 hex digits
  kBadOffset,       // not an unsigned 64-bit decimal
  kRepeatedOrigin,  // an id named twice
};
// A few words saying why, for the log.
std::string_view VectorParseText(VectorParse outcome);

// `fields`: what follows the tick's "vector" field, <id> <offset> pairs. *out holds the vector
// only on kOk (it is cleared first).
VectorParse ParseOriginVector(std::span<const std::string_view> fields, OriginVector* out);

// The vector a whole tick message carries (`tick` = ["tick", now_ms, end_offset, end_bytes, ...]):
// *vector is nullopt for a tick without one (an older peer; a field other than "vector" after
// end_bytes is a later addition, ignored) and on any outcome but kOk.
VectorParse ParseTickVector(std::span<const std::string_view> tick,
                            std::optional<OriginVector>* vector);

// A tick carrying `vector` (the format above), appended to *out.
void AppendVectorTickResp(std::string* out, int64_t now_ms, uint64_t end_offset, uint64_t end_bytes,
                          const OriginVector& vector);

// The pointwise minimum of `self` and each of `peers` over every origin any of them names; a null
// peer (never heard from) makes every entry 0.
OriginVector StableVector(const OriginVector& self, std::span<const OriginVector* const> peers);

// How far the peer furthest behind this node's own log is: end_offset less the least entry for
// `self_id` in `peers` (a null peer or one not naming self_id: 0 applied). 0 without peers.
uint64_t LargestLag(std::string_view self_id, uint64_t end_offset,
                    std::span<const OriginVector* const> peers);

// "<id>=<offset>,<id>=<offset>" in id order ("" for an empty vector), as INFO peers prints it.
std::string FormatOriginVector(const OriginVector& vector);

}  // namespace ebb::server
