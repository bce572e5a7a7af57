// The logical digest (DEBUG DIGEST-LOGICAL): a SHA-1 over everything a read can see, in the
// terms every active-active node shares — unlike DEBUG DIGEST, which hashes engine rows, whose
// TLOG incarnation versions, metadata timestamps and system rows differ from node to node.
//
// For every database (0 .. databases-1) and every live key in byte order, the chain hashes
// "db:key=type;" followed by:
//   string: value, timestamp and expire_at read at retrieval grace 0, then the same at full
//           grace ("v<len>:<value>@<ts>/<expire_at or -1>" each), then the observed-remove
//           state when its rows carry one (AppendOrStringDigestText);
//   treg:   "v<len>:<value>@<ts>" and the key's expire_at;
//   tlog:   "c<cutoff>", each entry newest first "e<len>:<value>@<ts>", and the key's expire_at.
// The answer is 40 hex digits; 40 zeros when no key is live. Two nodes with the same digest
// answer every read of every key alike (given the same clock: expiry is part of what is read).
// Reads wait for the disk on the calling thread: a test's tool.
// Thread-safety: the command (io) thread.
#pragma once

#include <string>

#include "storage/status.h"

namespace ebb::types {
class Keyspace;
struct OrStringState;
}  // namespace ebb::types

namespace ebb::server {

storage::Status LogicalDigest(types::Keyspace& keyspace, int databases, std::string* hex);

// Appends to *row what the digest hashes of a string key under the observed-remove rule
// (types/or_string.h; docs/active-active.md, "Status": DEBUG DIGEST-LOGICAL hashes every slot):
// each slot's dot, ts, tombstone, digest and expire_at —
//   "or:;"
//   ("s" <origin hex> "@" <offset> ":" <ts> "/" ("t" | "v" <digest hex>) "/" <expire_at> ";")*
// R is not hashed: it is what filters deltas still to come, and collection (docs/active-active.md,
// "Collection of observed-remove deletes") drops it on each node at its own time, once no delta
// it would filter can arrive there — so nodes that applied the same deltas hold the same slots
// but may hold different Rs. Canonical: slots by origin, whatever order the state was built in,
// and a tombstone's digest left out (as types::SameOrState leaves it out), so two states
// SameOrState holds equal give the same text. LogicalDigest appends it after a live string key's
// versions when the key's rows carry such a state (types/or_string_rows.h; rows in today's forms
// add nothing).
void AppendOrStringDigestText(const types::OrStringState& state, std::string* row);

}  // namespace ebb::server
