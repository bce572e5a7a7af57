// The rows of an observed-remove string key (docs/active-active.md, "Status", "observed-remove
// deletes of string keys", Rows; docs/key-encoding.md, "String rows" and "Active-active
// siblings"): load one key's OrStringState (types/or_string.h) from its rows and store it back,
// inside the keyspace's current batch when one is open.
//
// Rows. The data row (0x01 | db | key) holds the winner (OrWinner) as `0x05 ext inner`
// (types/or_string_ext.h): ext its dot and R, inner its row value without the extension; a value
// (live or expired) is a value row with the version's timestamp and expiry in the row meta, a
// tombstone (a `delete` delta's, or a version compaction reduced to its rank) a tombstone row
// carrying the same bytes. Every other slot (a sibling: writes that did not observe each other)
// is a system row `aa-sib:<db>:<key length>:<key>` + origin id (20 bytes) in the same form with
// its own dot and no R; ext's bit 0 says siblings exist, so a key with one slot reads one row. A
// state with no slot and a non-empty R (a DEL removed every slot) is a tombstone carrying `0x05
// ext` with no dot and no inner, at the greatest timestamp the DEL removed (0 when it removed
// nothing this node held).
//
// A data row in today's forms (tag 0x00 or 0x03, an expired one, a reduced or plain tombstone:
// held from before the mode, received without a context, or a counter's) loads as one slot with
// the pre-mode dot (kPreModeOrigin, 1) and an empty R: every node names such a version by the same
// dot, so a delete made on one removes it on all. No row, a wipe, or a row of another type loads as
// the empty state: the caller's type checks are its own.
//
//   OrStringRows rows;
//   storage::Status s = LoadOrString(keyspace, db, key, &rows);
//   OrApplied applied = ApplyOrWrite(&rows, context, dot, OrSlotRow::Value(tagged, meta));
//   if (s.ok()) s = StoreOrString(keyspace, db, key, rows, applied);
//
// Thread-safety: the keyspace's command thread, as every keyspace operation.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>

#include "storage/row.h"
#include "storage/status.h"
#include "types/key_meta.h"
#include "types/keyspace.h"
#include "types/or_string.h"
#include "types/or_string_ext.h"

namespace ebb::types {

// What a slot's row holds besides its rank.
struct OrSlotRow {
  // kValue: `inner` is the value's tag (0x00 or 0x03) and bytes, live or expired by meta.
  // kTombstone: `inner` is empty (a `delete` delta's tombstone) or a reduced version's rank
  // (types/string_rank.h, EncodeReducedString).
  storage::RowKind kind = storage::RowKind::kValue;
  std::string inner;
  storage::RowMeta meta;  // the version's timestamp; a value's expiry

  static OrSlotRow Value(std::string tagged_value, storage::RowMeta meta) {
    return {storage::RowKind::kValue, std::move(tagged_value), meta};
  }
  static OrSlotRow Tombstone(int64_t ts) { return {storage::RowKind::kTombstone, {}, {ts, {}}}; }
};

// The slot of `row` written at `dot`; false when the row is none of the forms above.
bool OrSlotOfRow(Dot dot, const OrSlotRow& row, OrSlot* slot);

// One key's state and the rows of its slots, as loaded and to store.
struct OrStringRows {
  OrStringState state;
  std::map<OriginId, OrSlotRow> slot_rows;  // by origin; every slot's row
  // What the key's rows held when loaded: the data row's timestamp (none: no version), and
  // the dot each sibling row held, by origin.
  std::optional<int64_t> data_ts;
  std::map<OriginId, Dot> held_siblings;
  // The data row carries the extension (kOrStringTag): the key is under the rule.
  bool extended = false;
  // The data row is a value of another type, live or expired (an expired log or register still
  // holds its key between peers: types/merge_rule.h); the state is then empty.
  std::optional<KeyType> other_type;
  // The slots whose row changed with their dot kept (ApplyOrExpiry), by origin.
  std::set<OriginId> rewritten;
};

// The origin of the pre-mode dot (kPreModeOrigin, 1): 20 zero bytes, no node's id.
inline constexpr OriginId kPreModeOrigin{};

// Loads the key's rows (the data row at retrieval grace 0, the most recently written version;
// the sibling rows only when its ext says they exist). Corruption when a tag-5 row or a sibling
// row does not decode.
storage::Status LoadOrString(Keyspace& keyspace, int db, std::string_view key, OrStringRows* rows);

// Applies a write's delta to rows->state (ApplyOrDelta); when the write becomes its origin's
// slot, `row` becomes that slot's row. REQUIRES: OrSlotOfRow(dot, row) holds.
OrApplied ApplyOrWrite(OrStringRows* rows, const OrContext& context, Dot dot, OrSlotRow row);
// Applies a DEL's delta (its context, no write).
OrApplied ApplyOrDelete(OrStringRows* rows, const OrContext& context);
// A whole-key delete at `ts` (server/active_active/whole_key.h): every slot written at or before
// ts goes as a DEL whose context names it would remove it, so R keeps its dot and the state is
// the one a node holds that dropped those writes on arrival (each a DEL of its own dot).
OrApplied ApplyOrDeleteUpTo(OrStringRows* rows, int64_t ts);
// An expiry register (whole_key.h): every value slot (live or expired) written at or before
// `up_to` takes `expire_at` (nullopt: none), its dot kept; the winner is the greatest slot again.
// `written` says whether a slot changed.
OrApplied ApplyOrExpiry(OrStringRows* rows, int64_t up_to, std::optional<int64_t> expire_at);

// Writes the rows of `rows.state` in one engine write (into the open batch, if any): nothing
// when !applied.changed(); else the data row as above — after a wipe when the new winner's
// timestamp is below the held data row's (a promoted sibling), so every retrieval grace reads it
// — the sibling rows whose slot is new, changed or rewritten, and a wipe of each sibling row whose
// slot went or became the winner. REQUIRES: rows as LoadOrString made them, then changed only by
// ApplyOrWrite, ApplyOrDelete, ApplyOrDeleteUpTo and ApplyOrExpiry (every slot has its row).
storage::Status StoreOrString(Keyspace& keyspace, int db, std::string_view key,
                              const OrStringRows& rows, const OrApplied& applied);

}  // namespace ebb::types
