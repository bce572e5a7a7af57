// ReplicaLink's stream (replica.h): the master's records applied as they arrive, the watchers
// and expiry events of the keys they touch signalled, and the position reached saved to
// `<dir>/replication` so that a restart resumes with a partial resynchronisation.
#include <spdlog/spdlog.h>
#include <stdio.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <utility>

#include "server/core/random_id.h"
#include "server/replication/master.h"
#include "server/replication/replica.h"
#include "server/scripting/script_engine.h"
#include "server/services/server_context.h"
#include "server/services/wal_commit.h"
#include "storage/replication_record.h"
#include "storage/write_batch.h"
#include "types/key_encoding.h"
#include "types/keyspace.h"

namespace ebb::server {

bool ReplicaLink::ApplyStream() {
  // The batches of every whole record read are gathered into one engine write (one WAL record
  // for the read, not one a record), in stream order: each takes the sequence numbers the
  // master gave it, as when written alone (storage/write_batch.h, AppendRep). A read brings at
  // most the link's buffer (no bytes are read while a snapshot loads), so the batch stays
  // about that size, beyond a record larger than it.
  storage::WriteBatch batch;
  std::string_view in = in_;
  size_t batch_start = 0;  // bytes of in_ before the batch's first record
  bool engine_checked = false;
  bool getack = false;  // the master asked for an acknowledgement
  storage::Status s;
  while (s.ok()) {
    storage::ReplicationRecord record;
    bool complete = false;
    std::string_view rest = in;
    s = storage::ParseReplicationRecord(&rest, &record, &complete);
    if (!s.ok()) {
      Fail("Bad record in the replication stream: " + s.ToString());
      have_history_ = false;
      return false;
    }
    if (!complete) break;
    if (record.kind == storage::ReplicationRecord::Kind::kControl) {
      // Nothing to apply: its bytes count like any record's.
      getack |= record.payload == storage::kControlGetAck;
    } else if (!std::exchange(engine_checked, true) &&
               context_->keyspace().db().LastSequence() != applied_sequence_) {
      // Something other than the master wrote to this engine (replica-read-only no): its
      // sequences no longer follow the master's.
      s = storage::Status::Corruption("the engine was written outside the replication stream");
    } else {
      // applied_sequence_ is the engine's last sequence (checked above).
      bool gathered = false;
      const size_t at = in_.size() - in.size();
      const bool first = batch.Empty();
      s = storage::GatherReplicationRecord(applied_sequence_ + batch.Count(), record, &batch,
                                           &gathered);
      if (gathered && first) batch_start = at;
    }
    if (s.ok()) in = rest;
  }
  const bool failed = !s.ok();
  if (failed) {
    spdlog::warn("Replication stream not applicable ({}): asking for a full resynchronisation",
                 s.ToString());
    have_history_ = false;
  }
  size_t consumed = in_.size() - in.size();
  if (!batch.Empty() && !WriteGathered(batch)) {
    consumed = batch_start;  // none of the batch is applied
    have_history_ = false;
    Fail("Replication stream broken");
    return false;
  }
  if (consumed > 0) {
    s = CommitWalNow(*context_);
    if (!s.ok()) spdlog::warn("Replica WAL write: {}", s.ToString());
    master_->FeedFromMaster(std::string_view(in_).substr(0, consumed));
    offset_ += consumed;
    in_.erase(0, consumed);
    // GETACK: acknowledge at once everything applied (and synced) so far, the request included.
    if (getack && !failed) AckApplied();
  }
  if (failed) {
    Fail("Replication stream broken");
    return false;
  }
  return true;
}

bool ReplicaLink::WriteGathered(const storage::WriteBatch& batch) {
  storage::DB& db = context_->keyspace().db();
  storage::WriteOptions options;
  options.defer_sync = true;  // one sync or write-out for the whole read (ApplyStream)
  storage::Status s = db.Write(options, batch);
  if (!s.ok()) {
    spdlog::warn("Replication stream not applicable ({}): asking for a full resynchronisation",
                 s.ToString());
    return false;
  }
  applied_sequence_ = db.LastSequence();
  SignalRecordKeys(batch);
  return true;
}

void ReplicaLink::SignalRecordKeys(const storage::WriteBatch& batch) {
  const std::string_view payload = batch.rep();
  // FUNCTION LOAD, DELETE, FLUSH or RESTORE on the master rewrote its libraries row. (A value
  // holding those bytes only costs a comparison: ReloadLibraries skips an unchanged row.)
  static const std::string kLibrariesKey =
      types::Keyspace::SystemRowKey(types::Keyspace::kFunctionLibrariesRow);
  if (payload.find(kLibrariesKey) != std::string_view::npos) context_->scripts().ReloadLibraries();
  WatchRegistry& watches = context_->watches();
  ExpiryEvents& expiries = context_->expiry_events();
  const bool note_expiries = expiries.enabled();
  if (watches.empty() && !note_expiries) return;
  struct Signal : storage::WriteBatch::Handler {
    WatchRegistry* watches;
    ExpiryEvents* expiries;
    bool note_expiries;
    void Apply(const storage::WriteBatch::Entry& entry) override {
      if (entry.op == storage::WriteBatch::Op::kDeleteRange) {
        // FLUSHDB / FLUSHALL: every watcher.
        for (const auto& [key_db, key] : watches->WatchedIn(-1)) watches->Touch(key_db, key);
        return;
      }
      int db = 0;
      std::string_view key;
      if (!types::ParseMetaKey(entry.key, &db, &key)) {
        types::SubRowKeyParts parts;
        if (!types::ParseSubRowKey(entry.key, &parts)) return;  // a system row
        db = parts.db;
        key = parts.user_key;
      }
      watches->Touch(db, key);
      if (note_expiries) expiries->Note(db, key);
    }
  } signal;
  signal.watches = &watches;
  signal.expiries = &expiries;
  signal.note_expiries = note_expiries;
  batch.Iterate(&signal);
}

std::string ReplicaLink::PositionPath() const {
  return context_->keyspace().dir() + "/replication";
}

void ReplicaLink::SavePosition(const std::string& dir, const Position& position) {
  const std::string path = dir + "/replication";
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::trunc);
    out << position.replid << " " << position.offset << " " << position.sequence << "\n";
    if (!out) {
      spdlog::warn("Writing the replication position to {} failed", tmp);
      return;
    }
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    spdlog::warn("Renaming {}: {}", tmp, strerror(errno));
    return;
  }
  saved_ = position;
}

bool ReplicaLink::LoadPosition(Position* position) {
  std::ifstream in(PositionPath());
  if (!in || !(in >> position->replid >> position->offset >> position->sequence)) return false;
  if (!IsHexId(position->replid)) return false;
  // The engine must hold every record up to the position (a power cut may have taken the WAL's
  // tail): records past it are then applied or skipped, never missing.
  return context_->keyspace().db().LastSequence() >= position->sequence;
}

}  // namespace ebb::server
