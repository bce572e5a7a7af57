// ReplicationBacklog: the last bytes of the replication stream, kept so a replica that lost its
// link resumes with +CONTINUE instead of a full resynchronisation (docs/replication.md, "The
// backlog and partial resynchronisation"), Redis's repl_backlog.
//
// Offsets are Redis's: the stream's bytes are numbered from 1; end_offset() is the number of the
// last byte produced (INFO's master_repl_offset); the backlog holds the last histlen() of them,
// first_offset() .. end_offset() (repl_backlog_first_byte_offset). A replica that has applied
// up to offset o asks `PSYNC <replid> <o + 1>`: Holds(o + 1) says whether it can be served.
// Invariant: histlen() <= capacity(); the bytes held are exactly the stream's at those offsets.
// Thread-safety: none (the io thread).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace ebb::server {

class ReplicationBacklog {
 public:
  // An empty backlog whose next byte will be offset `end_offset + 1`. REQUIRES: capacity > 0.
  ReplicationBacklog(size_t capacity, uint64_t end_offset);

  // Appends stream bytes (the oldest fall out once capacity is exceeded).
  void Append(std::string_view bytes);

  size_t capacity() const { return ring_.size(); }
  uint64_t end_offset() const { return end_offset_; }
  uint64_t histlen() const { return histlen_; }
  // The offset of the oldest byte held; end_offset() + 1 while empty.
  uint64_t first_offset() const { return end_offset_ - histlen_ + 1; }

  // True when the bytes from `offset` to the end can be sent: offset is held, or is
  // end_offset() + 1 (nothing to send yet).
  bool Holds(uint64_t offset) const {
    return offset >= first_offset() && offset <= end_offset_ + 1;
  }
  // Appends to *out the bytes from `offset` to the end. REQUIRES: Holds(offset).
  void CopyFrom(uint64_t offset, std::string* out) const;

  // Changes the capacity (CONFIG SET repl-backlog-size), keeping the newest bytes that fit.
  void Resize(size_t capacity);

 private:
  std::string ring_;      // capacity bytes; the byte at offset o is ring_[(o - 1) % capacity]
  uint64_t end_offset_;   // the last byte produced
  uint64_t histlen_ = 0;  // bytes held, ending at end_offset_
};

}  // namespace ebb::server
