// The content a node holds when it enters active-active mode (docs/active-active.md, "The mode").
//
// A node may enter the mode holding data. That content is in no origin log: the node reserves
// origin offset 1 for it (ActiveActive::EnterMode), so every peer asks for offset 1, finds it
// older than the log, and receives the content through a snapshot (peer_snapshot.h). A snapshot
// carries what the merge gate keeps — one version per string key, a TREG's pair, a TLOG's
// cutoff and entries, and the key markers — so before the mode is entered the content is put in
// the form in which the node's own reads answer exactly what a receiver of that snapshot will
// answer (PrepareEntryContent):
//   - a string key whose versions were written out of timestamp order (a read at grace 0 and a
//     read at full grace take different versions) gets the full-grace version written again as
//     its newest, so the most recently written version is the greatest, as the merge gate keeps
//     every key in the mode, and reads at every grace agree with the receivers' single version;
//   - a TREG with an expiry (EXPIRE, a TTL policy, live or already expired) gets an expiry
//     register in its key marker (whole_key.h) with T = its pair's timestamp and this node's id
//     as origin: the snapshot's marker then gives the receivers the same expiry, and a later
//     TREG SET with a greater timestamp drops it on every node alike.
//   - a live TLOG whose expiry is not the one its own writes give it (EXPIRE or PERSIST before
//     the mode) gets the register of that expiry with T = its newest timestamp (max(newest
//     entry, cutoff - 1)), so it covers every entry the log holds and the receivers hide them
//     at the same time (a register never extends a retention window: a windowed log PERSISTed
//     before the mode takes its window's end again).
//   - a TLOG under a retention window, live or already expired, gets TLOG as its key's type
//     floor (whole_key.h), as every log write under a window in the mode does.
// String versions carry no origin in the merge order (it is the tuple of timestamp, tombstone,
// value digest and expiry), so no version of this content needs one; the register is the one
// ordered by (T, origin).
//
// Thread-safety: the io thread.
#pragma once

#include <cstdint>
#include <string>

#include "storage/status.h"

namespace ebb::types {
class Keyspace;
}

namespace ebb::server {

class WholeKeyMarkers;

// Prepares databases 0..databases-1 as above: reads them first, then opens a keyspace batch and
// writes into it only the rows that change (out-of-order string keys, TREGs with an expiry,
// windowed logs' floors). On OK the batch stays open for the caller, who adds the mode's own rows
// and commits it: entering the mode is one atomic write. *keys: the keys seen, deleted and
// expired ones included — 0 when the node holds nothing a peer needs. Not OK (the engine's
// error): nothing written and no batch open. Each key costs one read at full grace beside the
// walk (two when its newest version is dead). REQUIRES: no keyspace batch is open.
storage::Status PrepareEntryContent(types::Keyspace& keyspace, WholeKeyMarkers& markers,
                                    int databases, const std::string& node_id, uint64_t* keys);

}  // namespace ebb::server
