// The observed-remove rule of a string key between active-active peers (docs/active-active.md,
// "Status", "observed-remove deletes of string keys"): a delete removes what its origin had
// observed, so a write it did not see survives it and a later write always does. Pure: the
// functions say what to do; the server keeps the state in the key's rows.
//
// State: the key's slots, at most one per origin, each that origin's latest version of the key not
// yet removed, named by its dot (origin, offset); and the removed context R: origin -> the
// greatest offset removed. A delta carries the context C of its origin (the dots of the slots it
// held for the key) and, for a write (`put`, `delete`, `put-expired`), its version and dot (O, n);
// a DEL adds no slot. Applying it: R := R join C; every slot at or below R[its origin] goes; the
// write becomes O's slot unless n <= R[O] or O's slot is at a greater offset (at the same offset,
// the greater version stays: a dot named twice, as the pre-mode dot of types/or_string_rows.h).
// Each step is a join, so the state is a function of the set of deltas applied, whatever their
// order or repetition; a snapshot's state joins the same way (JoinOrState).
//
// Canonical form: R keeps no entry for an origin that holds a slot (the slot's offset is above it,
// and no later delta can tell it from 0), so two nodes that applied the same deltas hold equal
// states, and the row extension stores R without those entries (types/or_string_ext.h).
//
// Versions rank by the string order of types/merge_rule.h (ts, tombstone, digest, expire_at):
// the read answers the greatest slot, absent when it is a tombstone or expired.
// Thread-safety: plain values and pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "types/merge_rule.h"
#include "types/or_context.h"

namespace ebb::types {

// One origin's version of the key: `version` its rank without the value view (its digest set
// only for a reduced version), `value` its bytes (empty for a tombstone or a reduced version).
// The digest of the bytes is computed only when a rank needs it: two versions at one timestamp
// whose bytes differ (types/merge_rule.h), or DEBUG DIGEST-LOGICAL.
struct OrSlot {
  Dot dot;
  StringVersion version;
  std::string value;

  // The version with its value in view; valid while the slot lives unchanged.
  StringVersion Ranked() const;
};

// The slot of `version` written at `dot`: its value's bytes copied into the slot.
OrSlot MakeOrSlot(Dot dot, StringVersion version);

// Same dot and same rank (ts, tombstone, the bytes' digest unless a tombstone, expire_at).
bool SameOrSlot(const OrSlot& a, const OrSlot& b);

struct OrStringState {
  std::vector<OrSlot> slots;  // ascending by origin, at most one per origin
  OrContext removed;          // R, canonical (above)
};

bool SameOrState(const OrStringState& a, const OrStringState& b);

// A delta of the key: its origin's context and, unless it is a DEL, the write as a slot.
struct OrStringDelta {
  OrContext context;
  std::optional<OrSlot> write;  // REQUIRES: made by MakeOrSlot
};

// What applying changed, for the server to turn into rows.
struct OrApplied {
  std::vector<Dot> dropped;   // slots that went: removed by R, or replaced by their origin's write
  bool written = false;       // the write became its origin's slot
  bool removed_grew = false;  // R holds more than before (canonical entries)
  bool changed() const { return written || removed_grew || !dropped.empty(); }
};

// Applies `delta` to `state` (on the origin and on every peer). Taken by value: a write passed
// as a temporary moves into the state, its value not copied.
//
//   OrApplied applied = ApplyOrDelta(&state, {.context = c, .write = MakeOrSlot(dot, v)});
//   if (!applied.changed()) ...  // already applied, or the write was removed before it arrived
OrApplied ApplyOrDelta(OrStringState* state, OrStringDelta delta);

// Joins another node's state of the key into `state` (a snapshot): as a DEL with its R, then each
// of its slots as a write.
OrApplied JoinOrState(OrStringState* state, const OrStringState& other);

// The slot ranked greatest (live, tombstone or expired); nullptr when there is none.
const OrSlot* OrWinner(const OrStringState& state);
// The slot a read at `now_ms` answers: the winner, nullptr when there is none or it is a
// tombstone or has expired (expire_at <= now_ms).
const OrSlot* OrRead(const OrStringState& state, int64_t now_ms);

// On the write's origin, before it is applied: the context a client write carries, or nullopt
// when it does not rank above the winner held here (it answers +OK, writes nothing and is not
// logged, as on a lone node). A write that wins observed every slot held: its context names them
// all, so it replaces them on every node.
std::optional<OrContext> OrLocalWriteContext(const OrStringState& state, StringVersion write);
// The context a DEL of the key made here carries: every slot held.
OrContext OrLocalDeleteContext(const OrStringState& state);

// Collection (docs/active-active.md, "Collection of observed-remove deletes"). A node's applied
// vector V (origin -> the last offset of it applied here; deltas of one origin arrive in offset
// order) says which deltas no stream will bring it again. A key that holds no slot and whose R
// lies at or below V holds nothing V does not: its row may go, as an ORSWOT keeps no tombstones.
// Once such rows go, a snapshot must be joined with both nodes' vectors, or a version one of them
// removed comes back from the other: the two functions after OrCollectable.

// Every entry of the key's R is at or below `applied` (the pre-mode origin is in no vector, so R
// naming it is never at or below one): R then says nothing the node's vector does not. A key that
// holds slots may drop it (its slots stay); one that holds none may go whole (OrCollectable).
bool OrRemovedCovered(const OrStringState& state, const OrContext& applied);
// The key holds no slot and OrRemovedCovered.
bool OrCollectable(const OrStringState& state, const OrContext& applied);

// The sender's half: the dots of `held` slots that the sender of a snapshot had applied (at or
// below `sender_vector`) and does not hold in `sent` (its state of the key; empty when its
// snapshot carried none) — it removed them, so the receiver applies them as a DEL naming them.
OrContext OrRemovedBySender(const OrStringState& held, const OrStringState& sent,
                            const OrContext& sender_vector);

// The receiver's half: a snapshot's slot at `dot` that this node had applied (at or below
// `applied`, its own vector) and does not hold: it removed it, perhaps collecting the R that
// said so, so the slot must not be taken again.
bool OrRemovedHere(const OrStringState& held, const Dot& dot, const OrContext& applied);

}  // namespace ebb::types
