// PeerDelta: one write that originated on this node, as active-active peers exchange it
// (docs/active-active.md, "Deltas").
//
// A delta is a logical operation, not an engine row: a command in its canonical, fully resolved
// form (explicit timestamps, absolute expiry), which every node applies through the same type
// code a client's command runs — `TLOG INS key value ts`, `TLOG TRIMAT key ts`, `TREG SET key
// value ts`, `PUT key value TS ts PXAT ms|NOTTL`, `DELETE key TS ts`, and `PUT-EXPIRED key
// DIGEST hex TS ts PXAT ms|NOTTL`: a string version that has expired, without its bytes
// (types/string_rank.h), applied as the dead version compaction reduces it to (each of the three
// may end with `CTX <context>`, below: StringDelta); `TLOG INS-EXPIRED
// key DIGEST hex ts` and `TREG SET-EXPIRED key DIGEST hex ts` the same for an entry and a pair
// (below). The origin log rewrites a delta into its reduced form once its value has expired
// (docs/active-active.md, "The origin log"). Each carries the
// origin node's offset (1, 2, 3, ... in the order the origin committed them), the origin's clock
// when it made it and the database.
//
// Two encodings:
//  - the origin's log row (a system row, docs/key-encoding.md): EncodePeerDelta /
//    DecodePeerDelta, fixed64 offset, fixed64 origin_ms, fixed32 db, fixed32 argc, then each
//    argument length-prefixed (varint32 length, bytes);
//  - the wire (PEER SYNC's stream): a RESP array of two bulk strings, ["delta", <the log row's
//    encoding of the delta>] (AppendDeltaFrame: the origin frames the bytes it writes to its log
//    row, and a peer decodes them as the log row is decoded), and the origin's heartbeat
//    ["tick", now_ms, end_offset, end_bytes] (AppendTickResp), end_bytes the origin's byte
//    position: the wire bytes of every delta it has logged (docs/active-active.md, "INFO peers":
//    lag in bytes).
// Thread-safety: pure functions and plain values.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/strings.h"
#include "storage/clock.h"
#include "types/merge_rule.h"
#include "types/or_context.h"

namespace ebb::server {

// The whole-key operations (docs/active-active.md, "Whole-key deletes", "Expiry changes"):
// `del-at T key [key ...]`, `flushdb-at T`, `flushall-at T`, `expiry-at T key <expire_at ms |
// persist> [cutoff | del <cut_at>]`, and a snapshot's `marker-at T key <floor> [...]`
// (marker_piece.h has every shape). A client's DEL, FLUSHDB, FLUSHALL, EXPIRE family or PERSIST has
// the form with T empty (its row's write form); the origin fills T from what the key holds.
inline constexpr std::string_view kDelAt = "del-at";
// A DEL in the observed-remove form: `del-or <T> <n> key{n} (key <context>)*`, the n keys of
// other types under T, then each string key with its context (marker_piece.h); a DEL that names
// a string key makes it (ActiveActive::PlanWholeKeyDelete).
inline constexpr std::string_view kDelOr = "del-or";
inline constexpr std::string_view kFlushDbAt = "flushdb-at";
inline constexpr std::string_view kFlushAllAt = "flushall-at";
inline constexpr std::string_view kExpiryAt = "expiry-at";
inline constexpr std::string_view kPersist = "persist";
inline constexpr std::string_view kMarkerAt = "marker-at";
inline constexpr std::string_view kExpiryCut = "del";  // expiry-at's `del <cut_at>` of a series

struct PeerDelta {
  uint64_t offset = 0;    // the origin's offset: 1 for its first delta
  int64_t origin_ms = 0;  // the origin's clock when it committed the write
  int db = 0;
  std::vector<std::string> args;  // the canonical command, args[0] its name
};

// The name of the value-less form of an expired string version (lower-case, as deltas are
// judged).
inline constexpr std::string_view kPutExpired = "put-expired";

// True for the deltas of string versions: put, delete, put-expired (lower-case).
inline bool IsStringDelta(std::string_view name) {
  return SameBytes(name, "put") || SameBytes(name, "delete") || SameBytes(name, kPutExpired);
}

// `tlog trimat <key> 0` (lower-case names): a cutoff of 0 changes no log and replaces no other
// type on the key (docs/active-active.md, "Merge rules"), so the origin logs none and a
// receiver skips one.
bool IsTrimAtZero(std::span<const std::string> args);

// The key a string, TLOG or TREG delta writes, as its origin sends it (lower-case names: `put`,
// `delete`, `put-expired`, `tlog ins|trimat|...`, `treg set`); nullopt for any other delta or
// one too short. Only a hint rides on it (ActiveActive::HintDeltaKeys): the delta is judged
// whole when it is applied.
std::optional<std::string_view> WrittenKeyOf(std::span<const std::string> args);

// A string delta, parsed (args[0] lower-case; the other words in any case):
//   put key value TS ts PXAT ms|NOTTL [CTX context]
//   delete key TS ts [CTX context]
//   put-expired key DIGEST hex TS ts PXAT ms|NOTTL [CTX context]
// ts is a signed 64-bit decimal and ms a positive one (an expiry at or before the epoch has no
// form: StringPutForm), hex the value's SHA-256 as 64 hex digits. `context` is
// binary, the wire form of types/or_context.h read against the delta's origin (its own entry is
// `0 offset`): the dots the write's origin held for the key (docs/active-active.md, "Status",
// "observed-remove deletes of string keys"). The origin's string writes carry one
// (ActiveActive::RunOrString); a peer applies a delta
// that carries one by that rule (ActiveActive::ApplyOrString), but on a key that holds a counter
// as the same delta without it (StripDeltaContext); a CTX that does not decode makes the delta
// malformed.
//
//   StringDelta d;
//   std::optional<types::OrContext> context;
//   if (!ParseStringDelta(args, &d) || !DecodeDeltaContext(d, origin_id, &context)) ...malformed
inline constexpr std::string_view kContextTag = "CTX";
struct StringDelta {
  enum class Kind : uint8_t { kPut, kDelete, kPutExpired };
  // Provided, not implicit: GCC 12 zero-fills the whole implicit-constructed delta (136 bytes)
  // with `rep stosq`, at every string delta a node reads; this one stores the initializers only.
  StringDelta() {}  // NOLINT(modernize-use-equals-default)
  Kind kind = Kind::kPut;
  std::string_view key;  // views the arguments
  // ts; expire_at (INT64_MAX: NOTTL, and a delete); a put's value (views the arguments), a
  // put-expired's digest (raw), a delete's tombstone.
  types::StringVersion version;
  bool nottl = false;                       // a put or put-expired said NOTTL, not PXAT
  std::optional<std::string_view> context;  // CTX's bytes as carried (views the arguments)
};
// False unless `args` has one of the shapes above. CTX's bytes are judged by DecodeDeltaContext,
// which needs the origin.
bool ParseStringDelta(std::span<const std::string> args, StringDelta* delta);
// What ParseStringDelta gives for the form of a string version a command row made
// (StringPutForm: `put key value TS ts PXAT expire_at`, NOTTL for a nullopt expire_at), from the
// numbers the row carries beside it (WriteForm::string_put): the origin's read of its own write,
// without parsing the form back. REQUIRES: `args` is that form.
StringDelta StringPutDelta(std::span<const std::string> args, int64_t ts,
                           std::optional<int64_t> expire_at);
// The arguments of `delta` in the shape above, CTX last when it carries one (the same words a
// canonical delta has: ParseStringDelta of a canonical delta gives it back).
std::vector<std::string> StringDeltaArgs(const StringDelta& delta);
// True for a put that carries an expiry (PXAT), the only delta that can arrive dead.
inline bool IsPutWithExpiry(const StringDelta& delta) {
  return delta.kind == StringDelta::Kind::kPut && !delta.nottl;
}
// True for a put whose expiry had passed at `now_ms` (INFO stats dead_on_arrival_own_expiry
// counts the ones written, on the origin and on peers alike, as the PUT handler counts its own).
inline bool ArrivesDead(const StringDelta& delta, int64_t now_ms) {
  return IsPutWithExpiry(delta) && delta.version.expire_at <= now_ms;
}
// The same by `clock`, read only for a put with an expiry: a peer applies most deltas with none,
// and a clock read was 5% of its command thread's CPU per applied delta.
inline bool ArrivesDead(const StringDelta& delta, const storage::Clock& clock) {
  return IsPutWithExpiry(delta) && delta.version.expire_at <= clock.NowMs();
}

// The raw origin id (types::kOriginIdSize bytes) of node id `node_id` (40 hex digits, as PEER ID
// answers); false when it is not one.
bool OriginOfNodeId(std::string_view node_id, types::OriginId* origin);
// The node id (40 lower-case hex digits) of raw origin id `origin`.
std::string NodeIdOfOrigin(std::string_view origin);

// `delta`'s CTX as the context of a delta from node `origin_node_id`; *context is nullopt when
// the delta carries none. False when it carries one that is not exactly a context's form
// (types/or_context.h: DecodeOrContext), or when origin_node_id is not a node id.
bool DecodeDeltaContext(const StringDelta& delta, std::string_view origin_node_id,
                        std::optional<types::OrContext>* context);
// A received string delta (args[0] lower-case) from node `origin_node_id`, judged whole (its
// shape and its CTX) and put in the form the merge gate and the command handlers take: without
// its CTX, so it is applied exactly as the same delta without one. False (args unchanged) when it
// is malformed.
bool StripDeltaContext(std::string_view origin_node_id, std::vector<std::string>* args);

// `PUT-EXPIRED key DIGEST hex TS ts PXAT ms|NOTTL [CTX context]`, parsed.
struct ReducedPut {
  std::string key;
  std::string digest;  // raw, types::kStringDigestSize bytes
  int64_t ts = 0;
  int64_t expire_at = 0;               // INT64_MAX: NOTTL
  std::optional<std::string> context;  // CTX's bytes, kept as carried
};
// The canonical arguments of `reduced`.
std::vector<std::string> ReducedPutArgs(const ReducedPut& reduced);
// `args` (args[0] lower-case) as a ReducedPut; false if out of shape (ParseStringDelta).
bool ParseReducedPut(std::span<const std::string> args, ReducedPut* reduced);

std::string EncodePeerDelta(const PeerDelta& delta);
// The same into *out (replacing what it held, keeping its room).
void EncodePeerDelta(const PeerDelta& delta, std::string* out);
// False if `encoded` is malformed (hostile input: a peer's frame, a row on disk; no argument, a
// count past the bytes, trailing bytes). The arguments are assigned into the strings *delta
// holds, so a caller that decodes into one delta again and again keeps their room.
bool DecodePeerDelta(std::string_view encoded, PeerDelta* delta);

// The origin log's row (docs/key-encoding.md): the encoded delta, then, for a delta rewritten
// into its reduced form once its value expired, the DeltaDigest of the delta as first logged
// (16 hex digits): what a peer that applied that one names it by — and for a `ts-merge` rewritten
// again as more of its samples were purged, the digest of each earlier form after it (16 hex
// digits each, oldest first). `first_digest` "" for a delta as first logged, else those digests
// concatenated. DecodeLogRow: false if malformed.
std::string EncodeLogRow(const PeerDelta& delta, std::string_view first_digest);
bool DecodeLogRow(std::string_view row, PeerDelta* delta, std::string* first_digest);
// Whether `digests` (a row's first_digest: digests of 16 hex digits, concatenated) names
// `digest`.
bool NamesDigest(std::string_view digests, std::string_view digest);

// The expiry of a logged `put key value TS ts PXAT ms [CTX context]` (the only delta that carries
// a value with an expiry of its own); nullopt for every other delta, a NOTTL put included.
std::optional<int64_t> PutExpiry(const PeerDelta& delta);
// The reduced form of a logged put (PXAT or NOTTL): `put-expired key DIGEST <SHA-256 of value>
// TS ts PXAT ms|NOTTL`, the same rank without the value's bytes, and the put's CTX when it has one
// (the write keeps its dot and what it observed).
// REQUIRES: LoggedValueOf(delta) is a kPut.
PeerDelta ReducedPutDelta(const PeerDelta& delta);

// The value-less forms of a TLOG entry and a TREG pair that have expired (subcommands, lower
// case): `tlog ins-expired key DIGEST hex ts` and `treg set-expired key DIGEST hex ts`, `hex` the
// SHA-256 of the value (types/string_rank.h). A receiver judges each as its whole form through
// the key's markers and the merge gate, and then writes no entry or pair: it keeps what a node
// that applied the whole one keeps once it has expired and compaction has reduced it — the
// key's type floor (docs/active-active.md, "The origin log").
inline constexpr std::string_view kInsExpired = "ins-expired";
inline constexpr std::string_view kSetExpired = "set-expired";
struct ReducedEntry {
  bool tlog = false;  // `tlog ins-expired`, else `treg set-expired`
  std::string key;
  std::string digest;  // raw, types::kStringDigestSize bytes
  uint64_t ts = 0;
};
std::vector<std::string> ReducedEntryArgs(const ReducedEntry& reduced);
// `args` (args[0] and args[1] lower-case) as a ReducedEntry; false if out of shape.
bool ParseReducedEntry(std::span<const std::string> args, ReducedEntry* reduced);
// The whole form the markers and the merge gate judge a reduced entry as: `tlog ins key "" ts`
// or `treg set key "" ts` (the empty value is never written).
std::vector<std::string> JudgedFormOf(const ReducedEntry& reduced);

// A logged delta that carries a value: `put key value TS ts PXAT ms|NOTTL [CTX context]`,
// `treg set key value ts`, `tlog ins key value ts`, and a counter's base (`counter key BASE value
// ts ms|NOTTL value ...`, counters.h), which expires as a put does (as the origin logs them:
// lower-case).
struct LoggedValue {
  enum class Kind { kPut, kTregSet, kTlogIns, kCounterBase };
  Kind kind = Kind::kPut;
  std::string_view key;    // views the delta's arguments
  std::string_view value;  // likewise
  __int128 ts = 0;         // the version's timestamp (a put's TS; an entry's or pair's ts)
  std::optional<int64_t> own_expiry;  // a put's PXAT (nullopt: NOTTL, or not a put)
};
// nullopt for every other delta (reduced forms included) and for one out of shape.
std::optional<LoggedValue> LoggedValueOf(const PeerDelta& delta);
// The same for string delta `args`, already parsed as `parsed` (whose views may have gone stale:
// the key and value are taken from `args`): nullopt unless it is a put.
std::optional<LoggedValue> LoggedPutOf(std::span<const std::string> args,
                                       const StringDelta& parsed);
// The value-less form of such a delta (put-expired, tlog ins-expired, treg set-expired; a
// counter's base as `reduced`, its digest without the bytes, the records kept), with the delta's
// offset, clock and database. REQUIRES: LoggedValueOf(delta).
PeerDelta ReducedValueDelta(const PeerDelta& delta);

// The start of every delta's frame: a two-element array, then "delta".
inline constexpr std::string_view kDeltaFrameHead = "*2\r\n$5\r\ndelta\r\n";
// Appends the wire form of the delta whose EncodePeerDelta bytes are `encoded` to *out.
void AppendDeltaFrame(std::string* out, std::string_view encoded);
// Appends the wire form of a heartbeat to *out.
void AppendTickResp(std::string* out, int64_t now_ms, uint64_t end_offset, uint64_t end_bytes);
// Appends one RESP bulk string.
void AppendRespBulk(std::string* out, std::string_view s);

// What names one delta of an origin's log: 16 hex digits of the SHA-1 of its wire form (offset,
// origin clock, database and arguments), so two deltas an origin gave the same offset in two
// incarnations differ (docs/active-active.md, "A node behind what it streamed").
std::string DeltaDigest(const PeerDelta& delta);
// The same from the wire form AppendDeltaFrame wrote.
std::string WireDigest(std::string_view wire);
inline constexpr size_t kDeltaDigestSize = 16;  // DeltaDigest's hex digits

}  // namespace ebb::server
