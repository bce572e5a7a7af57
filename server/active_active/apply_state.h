// The applying side's working types (ActiveActive: apply_deltas.cc, or_string_ops.cc): how a
// peer's delta reached this node, a data delta as resolved for its write, what a node keeps
// while it takes a peer's snapshot, and the view a stream batch is judged by.
// Thread-safety: plain values, used on the io thread.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "server/active_active/peer_delta.h"
#include "server/active_active/stable_vector.h"
#include "server/core/command.h"
#include "types/or_context.h"

namespace ebb::server {

// How a delta reached this node, which decides the deletes that judge a data write
// (ActiveActive::JudgingView; docs/active-active.md, "Status", marker collection's step 3): over
// its origin's stream, or as a snapshot's piece.
enum class ActiveActiveArrival { kStream, kSnapshot };

// A peer's data delta (a string write, TLOG or TREG) and what runs it.
struct ActiveActivePeerWrite {
  std::vector<std::string> args;  // the command, its name (and subcommand) in lower case
  ResolvedCommand row;            // its handler's (spec null for a reduced form)
  bool reduced_put = false;       // an expired string version without its bytes (kPutExpired)
  // An expired TLOG entry or TREG pair without its bytes (kInsExpired, kSetExpired): `args`
  // holds the whole form it is judged as (JudgedFormOf).
  bool reduced_entry = false;
  bool string_write = false;
  // A string delta as ApplyOne parsed it (it views `args`): the gate judges it and
  // WriteStringVersion writes it without parsing `args` again, unless the key's markers
  // rewrote its expiry (WholeKeyMarkers::Judge), which parses them once more.
  std::optional<StringDelta> string_delta;
};

// A snapshot being received from a peer that sent its vector first: that vector, and per
// database the first keyspace position (types::Keyspace::KeyPosition) the sweep has not passed
// (past the last piece's key, or where the tail's sweep stopped; absent: the database's first key).
struct ActiveActiveSnapshotReceipt {
  OriginVector sender_ids;  // as sent, for the kKnownRowPrefix rows (mode_rows.h) at the end
  // The same as dots' origins when string slots are judged by it (the observed-remove rule);
  // empty otherwise, and a receipt with an empty vector sweeps nothing.
  types::OrContext sender_vector;
  bool Sweeps() const { return !sender_vector.empty(); }
  std::map<int, std::string> sweep_from;
  // The sender's `collects-known` piece (collect.h): what judges the snapshot's data pieces
  // (ActiveActive::JudgingView).
  std::optional<types::OrContext> sender_collects;
  // The sender's own last collect (its `collect-of` piece), joined into its row only once the
  // snapshot has ended: a snapshot cut short leaves this node at its old place in the sender's
  // stream, which the row must not pass (collect.h).
  std::optional<types::OrContext> sender_collect;
};

// The view one peer's delta is judged by (ActiveActive::JudgingView): the collects it goes by
// (nullptr: every delete), which may point at `held`, the row read for this delta alone.
struct ActiveActiveDeltaView {
  types::OrContext held;
  const types::OrContext* collects = nullptr;
};

// The collect row of the origin whose stream batch ApplyDeltas has open, read once per batch by
// ActiveActive::JudgingView and kept joined as the batch's collects join the row
// (ActiveActive::JoinCollectRow).
struct ActiveActiveStreamCollect {
  std::optional<types::OriginId> origin;  // set once read
  types::OrContext collect;
};

}  // namespace ebb::server
