// Causal stability between active-active peers (docs/active-active.md, "Links", "INFO peers").
//
// Each node's **applied vector** says, per origin node id, the last origin offset of it this node
// has applied (its own entry: the last offset of its own log). The vector a node **reports**
// counts only what its engine has synced (SyncedVector below): an applied delta or a write of its
// own that a power cut can still take back is not in it. Every node sends its reported vector to
// the peers pulling from it, in its ticks, with the ids it has retired:
//
//   ["tick", now_ms, end_offset, end_bytes, "vector", <id>, <offset>, <id>, <offset>, ...
//    [, "retired", <id>, <id>, ...]]
//
// (an older receiver ignores what follows end_bytes). A node **retires** its id when it takes a
// new incarnation (docs/active-active.md, "A node behind what it streamed"): the id streams
// nothing from then on. It keeps its past ids (the newest kMaxVectorOrigins) and lists them in
// every tick; a node that hears them leaves them out of the vector it reports, unless the id is
// that of a node it links to now (a copy of the data directory started as a second node keeps
// the id alive). A receiver keeps the latest vector and retired list each peer reported, in
// memory only. The mesh's **stable vector** S is the pointwise minimum of this node's reported
// vector and the latest vector of every configured peer, over every origin any of them names: an
// origin a vector does not name counts 0 there (that node may have applied none of it), and a
// peer never heard from holds every entry of S at 0. Every delta of origin o at or below S[o] has
// been applied, durably, on every node of the mesh — what a delete's markers need before they can
// be collected. A retired id leaves S once no node names it any more; no delta of it travels
// after its retirement, so a delete that observed one of its writes is not waiting for it.
//
// Example: self {a:5, b:3}, peer b reported {a:4, b:3}, peer c reported {a:5, b:2, c:7}:
// S = {a:4, b:2, c:0} (self names no c). Were c never heard from, S = {a:0, b:0}. Had b once
// been b0, and every node heard b retire it, no vector names b0 and neither does S.
//
// A peer's vector is hostile input: ParseOriginVector refuses a malformed or oversized one (the
// tick itself still counts), and the link logs why.
// Thread-safety: pure functions and plain values.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "types/or_context.h"

namespace ebb::server {

// Origin node id -> the last origin offset of it applied.
using OriginVector = std::map<std::string, uint64_t, std::less<>>;

// The tick's field that starts the vector, and the one that starts the retired ids after it.
inline constexpr std::string_view kTickVectorTag = "vector";
inline constexpr std::string_view kTickRetiredTag = "retired";
// A node's retired ids, oldest first.
using RetiredIds = std::vector<std::string>;
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
  kRepeatedOrigin,  // an id named twice (in the vector, or in the retired ids)
};
// A few words saying why, for the log.
std::string_view VectorParseText(VectorParse outcome);

// `fields`: what follows the tick's "vector" field, <id> <offset> pairs. *out holds the vector
// only on kOk (it is cleared first).
VectorParse ParseOriginVector(std::span<const std::string_view> fields, OriginVector* out);

// `fields`: what follows the tick's "retired" field, node ids (at most kMaxVectorOrigins, each
// 40 hex digits, none twice). *out holds them only on kOk (it is cleared first).
VectorParse ParseRetiredIds(std::span<const std::string_view> fields, RetiredIds* out);

// The vector a whole tick message carries (`tick` = ["tick", now_ms, end_offset, end_bytes, ...]),
// and its retired ids: *vector is nullopt for a tick without one (an older peer; a field other
// than "vector" after end_bytes is a later addition, ignored) and on any outcome but kOk (a
// malformed retired list refuses the vector with it); *retired (when given) is empty then.
VectorParse ParseTickVector(std::span<const std::string_view> tick,
                            std::optional<OriginVector>* vector, RetiredIds* retired = nullptr);

// A tick carrying `vector` and, when there are any, `retired` (the format above), appended to
// *out.
void AppendVectorTickResp(std::string* out, int64_t now_ms, uint64_t end_offset, uint64_t end_bytes,
                          const OriginVector& vector, std::span<const std::string> retired = {});

// The vector a node reports: the newest applied vector whose every write the engine has synced.
// The io thread notes its applied vector with the engine's last sequence number (every write the
// vector counts is at or below it, as they are made on that thread), and promotes a noted vector
// once the engine's synced sequence (storage::DB::SyncedSequence) reaches its sequence. Under
// wal-fsync always that is at once (the next note); under everysec within about a second.
// Entries only move forward (a promoted vector is never older than the last one); Reset (a new
// incarnation, whose vector starts empty) forgets both. At most kMaxPending vectors wait: past
// that the newest waiting one is replaced, so promotion only comes later, never earlier.
// Example: Note(10, {a:3}); Note(12, {a:5}); Synced(11) -> reported {a:3}; Synced(12) -> {a:5}.
// Thread-safety: none (the io thread).
class SyncedVector {
 public:
  static constexpr size_t kMaxPending = 64;
  void Note(uint64_t sequence, OriginVector vector);
  void Synced(uint64_t synced_sequence);
  void Reset();
  const OriginVector& reported() const { return reported_; }

 private:
  struct Pending {
    uint64_t sequence = 0;
    OriginVector vector;
  };
  std::deque<Pending> pending_;  // oldest first, sequences increasing
  OriginVector reported_;
};

// `vector` less the ids in `retired` that are not in `live` (the ids of this node and of the
// peers it links to now).
OriginVector WithoutRetired(const OriginVector& vector,
                            const std::set<std::string, std::less<>>& retired,
                            const std::set<std::string, std::less<>>& live);

// The pointwise minimum of `self` and each of `peers` over every origin any of them names; a null
// peer (never heard from) makes every entry 0.
OriginVector StableVector(const OriginVector& self, std::span<const OriginVector* const> peers);

// How far the peer furthest behind this node's own log is: end_offset less the least entry for
// `self_id` in `peers` (a null peer or one not naming self_id: 0 applied). 0 without peers.
uint64_t LargestLag(std::string_view self_id, uint64_t end_offset,
                    std::span<const OriginVector* const> peers);

// "<id>=<offset>,<id>=<offset>" in id order ("" for an empty vector), as INFO peers prints it.
std::string FormatOriginVector(const OriginVector& vector);

// `vector` with each origin as the raw id of the observed-remove rule's dots (types/or_context.h);
// an id that is not 40 hex digits names no dot and is left out.
types::OrContext OrContextOf(const OriginVector& vector);
// `context` with each origin as its node id (40 lower-case hex digits): OrContextOf's inverse.
OriginVector OriginVectorOf(const types::OrContext& context);

}  // namespace ebb::server
