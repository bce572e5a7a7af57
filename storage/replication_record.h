// ReplicationRecord: one unit of the replication stream — a write batch (range deletions
// included: FLUSHDB, FLUSHALL, and a transaction holding them) as the engine committed it, with
// the sequence number the engine gave it, or a control word from the master to its replicas
// (docs/replication.md, "What flows").
//
// The master appends each record its DB's replication tap reports (DB::SetReplicationTap) to
// the stream; a replica parses records off the stream and applies them with
// ApplyReplicationRecord, which reproduces the master's sequence numbers exactly, skips what the
// replica already holds and refuses a gap.
// Thread-safety: plain functions over values; ApplyReplicationRecord as DB's methods, but the
// skip/gap rule assumes one applier at a time (nothing else writes to a replica's DB).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "storage/options.h"
#include "storage/status.h"

namespace ebb::storage {

class DB;
class WriteBatch;

struct ReplicationRecord {
  // On the wire: never change.
  // (2 was a separate range-deletion record; range deletions travel inside batches now.)
  enum class Kind : uint8_t { kBatch = 1, kControl = 3 };

  Kind kind = Kind::kBatch;
  // kControl: 0 (a control record changes no data and takes no sequence number).
  uint64_t first_sequence = 0;
  // kBatch: WriteBatch::rep(). kControl: a control word (kControlPing, kControlGetAck; a replica
  // ignores one it does not know). A view: into the stream ParseReplicationRecord read it from,
  // or the tap's argument.
  std::string_view payload;
};

// The control words. "ping": the master is alive (sent every repl-ping-replica-period seconds,
// so a replica can tell a silent master from a dead one). "getack": the replica answers
// `REPLCONF ACK <offset>` as soon as it has applied the record (WAIT, FAILOVER).
inline constexpr std::string_view kControlPing = "ping";
inline constexpr std::string_view kControlGetAck = "getack";

// A control record carrying `word`. REQUIRES: `word` outlives the record.
inline ReplicationRecord ControlRecord(std::string_view word) {
  return ReplicationRecord{ReplicationRecord::Kind::kControl, 0, word};
}

// Appends one record to `stream`: kind:u8 first_sequence:fixed64 length:varint32 payload.
void AppendReplicationRecord(std::string* stream, const ReplicationRecord& record);

// Parses the record at the front of *input. OK with *complete = true: *record is set (its
// payload a view into the input) and *input advanced past it. OK with *complete = false: the
// record is not all there yet; *input is unchanged. Corruption: the bytes are not a record
// (unknown kind; a batch payload is checked when applied).
Status ParseReplicationRecord(std::string_view* input, ReplicationRecord* record, bool* complete);

// Applies `record` to `db` (docs/replication.md, "Applying a record on a replica"):
// first_sequence <= db's last sequence: skipped (*applied = false); == last + 1: written with
// DB::Write(options, batch), which gives it the master's sequence numbers (*applied = true);
// beyond: Corruption naming the gap. A payload that does not decode is Corruption and changes
// nothing. A control record changes nothing (*applied = false): the caller acts on its word.
Status ApplyReplicationRecord(DB* db, const WriteOptions& options, const ReplicationRecord& record,
                              bool* applied);

// The same rule without the write, for a reader that writes many records at once: with
// `last_sequence` the engine's last sequence plus the entries *batch already gathered, appends
// the record's batch to *batch when it comes next (*gathered = true; WriteBatch::AppendRep, so
// its entries keep their sequence numbers once *batch is written at last_sequence + 1 - its
// count); skips it when already held; Corruption naming the gap beyond, or when the payload does
// not decode (*batch unchanged). A control record gathers nothing.
Status GatherReplicationRecord(uint64_t last_sequence, const ReplicationRecord& record,
                               WriteBatch* batch, bool* gathered);

}  // namespace ebb::storage
