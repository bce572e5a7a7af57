#include "storage/replication_record.h"

#include "storage/db.h"
#include "storage/util/coding.h"
#include "storage/write_batch.h"

namespace ebb::storage {

void AppendReplicationRecord(std::string* stream, const ReplicationRecord& record) {
  stream->push_back(static_cast<char>(record.kind));
  PutFixed64(stream, record.first_sequence);
  PutLengthPrefixed(stream, record.payload);
}

Status ParseReplicationRecord(std::string_view* input, ReplicationRecord* record, bool* complete) {
  *complete = false;
  std::string_view in = *input;
  if (in.empty()) return Status::OK();
  const auto kind = static_cast<ReplicationRecord::Kind>(static_cast<uint8_t>(in[0]));
  if (kind != ReplicationRecord::Kind::kBatch && kind != ReplicationRecord::Kind::kControl) {
    return Status::Corruption("replication: unknown record kind " +
                              std::to_string(static_cast<uint8_t>(in[0])));
  }
  in.remove_prefix(1);
  uint64_t sequence = 0;
  if (!GetFixed64(&in, &sequence)) return Status::OK();
  uint32_t length = 0;
  const char* p = GetVarint32Ptr(in.data(), in.data() + in.size(), &length);
  if (p == nullptr) {
    // Incomplete unless five bytes are there and still no varint32 ends in them.
    if (in.size() >= 5) return Status::Corruption("replication: bad record length");
    return Status::OK();
  }
  in.remove_prefix(p - in.data());
  if (in.size() < length) return Status::OK();
  record->kind = kind;
  record->first_sequence = sequence;
  record->payload = in.substr(0, length);
  in.remove_prefix(length);
  *input = in;
  *complete = true;
  return Status::OK();
}

Status GatherReplicationRecord(uint64_t last_sequence, const ReplicationRecord& record,
                               WriteBatch* batch, bool* gathered) {
  *gathered = false;
  if (record.kind == ReplicationRecord::Kind::kControl) return Status::OK();
  if (record.first_sequence <= last_sequence) return Status::OK();
  if (record.first_sequence != last_sequence + 1) {
    return Status::Corruption("replication: gap in the stream: record at sequence " +
                              std::to_string(record.first_sequence) + " after " +
                              std::to_string(last_sequence));
  }
  Status s = batch->AppendRep(record.payload);
  *gathered = s.ok();
  return s;
}

Status ApplyReplicationRecord(DB* db, const WriteOptions& options, const ReplicationRecord& record,
                              bool* applied) {
  *applied = false;
  WriteBatch batch;
  bool gathered = false;
  Status s = GatherReplicationRecord(db->LastSequence(), record, &batch, &gathered);
  if (s.ok() && gathered) s = db->Write(options, batch);
  *applied = s.ok() && gathered;
  return s;
}

}  // namespace ebb::storage
