// Expiry changes of a time series between active-active peers (docs/active-active.md, "Expiry
// changes", "Time series"): the EXPIRE family and PERSIST of a series take the key's expiry
// register (whole_key.h), as a TLOG does.
//
// The rule. The register (T, origin, expire_at or none) applies to every sample whose timestamp
// is <= T — those held when it arrives and those arriving later — and the samples after T keep
// living. The series carries the register in its metadata (types::SeriesMeta::expiry_register,
// set when the register arrives and after every merge into the series, so a series made after
// the register takes it too). Once expire_at has passed, the samples at or before T are hidden
// from TS.GET, TS.RANGE, TS.INFO and the multi-series reads (types::SeriesReadFloor) — a function
// of the sample, the register and the clock, the same on every node — and stay stored, so that a
// later register (a PERSIST from a node whose clock is behind) brings them back; the purge
// deadline reduces them half a deadline after the expiry, as it does the samples retention hid.
// The key itself expires at expire_at while nothing keeps it (types::SeriesKeyExpiry): no sample
// after T, and no settings register stamped after T and at or after expire_at (a TS.CREATE or
// TS.ALTER made once the series had expired keeps the key as a new, empty series; one made
// before the expiry keeps the key's TTL, as outside the mode). A series expired whole stays that
// series on every node: a write continues it, a later register applies to it, a delete removes
// what it covers of it, a snapshot carries it.
//
// Rules: the register is per key. A compaction rule's destination is its own key, with its own
// register: the source's expiry neither hides nor expires the destination's buckets (they are
// computed from every sample the source stores, the hidden ones included).
// Thread-safety: the command (io) thread, inside the keyspace batch the caller opened.
#pragma once

#include <cstdint>
#include <string_view>

#include "storage/status.h"

namespace ebb::types {
class Keyspace;
}

namespace ebb::server {

struct ExpiryRegister;

// Gives the series `key` holds (live, or expired whole by an earlier register) the key's
// register `reg`. Nothing for a key that holds no series. What the series holds lies above the
// key's deletes already: each removed what it covered as it came, an expired series too.
storage::Status ApplyRegisterToSeries(types::Keyspace& keyspace, int db, std::string_view key,
                                      const ExpiryRegister& reg);

}  // namespace ebb::server
