// LogReader: reads back the logical records of a log file written by LogWriter.
//
// Recovery rules (docs/wal-format.md, "Recovery"):
//  - A clean end of file ends the read: ReadRecord returns false with an OK status. So do zeros
//    from a record boundary to the end of the file (WritableFile::ZeroFillAhead).
//  - A torn tail — an incomplete record at the end of the file, or a damaged region (bad
//    checksum, zero-filled, impossible length, fragment out of order) after which NO valid record
//    follows — ends the read too: ReadRecord returns false with an OK status, torn_tail() is true
//    and torn_tail_offset() is where the file should be truncated (the end of the last complete
//    record). The caller truncates and logs a warning.
//  - Damage followed by at least one valid record is never skipped: ReadRecord returns false with
//    Status::Corruption("<name>: <what> at offset <n>"), n = the file offset of the damage.
//    Inside the damaged block a valid record counts only if a chain of valid records runs from
//    it to the end of the data, so bytes in a torn record's payload that happen to form a record
//    do not turn a torn tail into a Corruption (docs/wal-format.md, rules 4 and 5).
//  - A torn write (with `zeros_then_records_are_torn_write`, which WAL replay sets): damage that
//    reads as zeros — a run of zeros from the damaged record's start to a 512-byte boundary, or
//    a whole aligned 512-byte sector of zeros before the next valid record — followed by valid
//    records is the mark of a write whose pages the disk persisted out of order when power
//    failed (the unwritten ones keep the zeros the file held). It ends the read like a torn
//    tail (torn_tail() and torn_write() true); torn_write_records() counts the complete
//    records after the zeros, which the caller cuts with the rest. Without the flag (the
//    manifest) it is a Corruption like any other damage followed by valid records.
//  - An I/O error is returned as is.
// Thread-safety: not thread-safe; one reader is used by one thread.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "storage/env/file.h"
#include "storage/status.h"

namespace ebb::storage {

class LogReader {
 public:
  // `name` (usually the path) is used in error messages.
  LogReader(std::unique_ptr<SequentialFile> file, std::string name,
            bool zeros_then_records_are_torn_write = false);
  ~LogReader();

  LogReader(const LogReader&) = delete;
  LogReader& operator=(const LogReader&) = delete;

  // On true: *record holds the next logical record and *status is OK. On false: the end, a torn
  // tail (OK status, see torn_tail()) or an error (*status not OK). Once false, stays false.
  bool ReadRecord(std::string* record, Status* status);

  // File offset just past the last record returned (0 before the first).
  uint64_t LastRecordEndOffset() const { return last_record_end_; }
  bool torn_tail() const { return torn_tail_; }
  // Where to truncate when torn_tail(); equals LastRecordEndOffset().
  uint64_t torn_tail_offset() const { return torn_tail_offset_; }
  // The torn tail is a torn write (zeros, then valid records; see above).
  bool torn_write() const { return torn_write_; }
  // With torn_write(): the complete logical records found after the zeros.
  uint64_t torn_write_records() const { return torn_write_records_; }

 private:
  enum class Physical { kRecord, kEof, kDamage, kIoError };

  Physical ReadPhysicalRecord(uint8_t* type, std::string_view* fragment, uint64_t* offset,
                              const char** damage_reason, Status* status);
  // Reads the next block into backing_; false at end of file or on error (*status set).
  bool ReadBlock(Status* status);
  // Decides whether damage at `offset` is the zero-filled end, a torn tail or a Corruption;
  // always returns false.
  bool HandleDamage(uint64_t offset, const char* reason, bool in_fragmented, Status* status);
  // True if some valid physical record starts after the damage (which is at buffer_[0]); then
  // buffer_ starts at that record. *rest_is_zero tells whether every byte from the damage to
  // the end of the file is zero; *zero_gap whether the damaged bytes before that record read as
  // an unwritten region (see torn writes above).
  bool ValidRecordFollows(Status* status, bool* rest_is_zero, bool* zero_gap);
  // Counts the complete logical records in the chain of valid physical records that starts at
  // buffer_[0] and continues at the start of each later block. Consumes the rest of the file.
  uint64_t CountRecordsFromHere(Status* status);

  std::unique_ptr<SequentialFile> file_;
  const std::string name_;
  const bool zeros_then_records_are_torn_write_;
  std::unique_ptr<char[]> backing_;
  std::string_view buffer_;            // unread part of the current block
  uint64_t end_of_buffer_offset_ = 0;  // file offset just past buffer_
  bool eof_ = false;
  bool done_ = false;
  uint64_t last_record_end_ = 0;
  bool torn_tail_ = false;
  uint64_t torn_tail_offset_ = 0;
  bool torn_write_ = false;
  uint64_t torn_write_records_ = 0;
  std::string scratch_;
};

}  // namespace ebb::storage
