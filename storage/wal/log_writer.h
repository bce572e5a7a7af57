// LogWriter: appends records to a log file (WAL or manifest) in the block framing of
// log_format.h / docs/wal-format.md.
//
// AddRecord appends one logical record (fragmenting it across 32 KiB blocks as needed) through
// the WritableFile's buffer; nothing is durable until Sync. After any failed write the writer
// is broken: every later call returns the same error (a partial record may be on disk; the caller
// must start a new file, and recovery will see the partial record as a torn tail).
// Thread-safety: not thread-safe; the owner serializes calls.
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>

#include "storage/env/file.h"
#include "storage/status.h"
#include "storage/wal/log_format.h"

namespace ebb::storage {

class LogWriter {
 public:
  // `initial_offset` is the current length of `file` when appending to an existing log (so the
  // block framing continues where it left off); 0 means "use file->Size()".
  explicit LogWriter(std::unique_ptr<WritableFile> file, uint64_t initial_offset = 0);
  ~LogWriter();

  LogWriter(const LogWriter&) = delete;
  LogWriter& operator=(const LogWriter&) = delete;

  // Appends `record` (may be empty; at most ~4 GiB). Postcondition on OK: a reader of the file
  // will return it after every previously added record, once the bytes reach the disk.
  Status AddRecord(std::string_view record);
  // Hands buffered bytes to the OS (survives a process crash, not a power cut).
  Status Flush();
  // Flush, then fdatasync: everything added so far survives a power cut.
  Status Sync();
  // Bytes in the file so far, including buffered ones.
  uint64_t Size() const;
  // Flushes and closes the file; later calls fail.
  Status Close();
  // WritableFile::ZeroFillAhead on the file.
  void ZeroFillAhead(uint64_t chunk_bytes) { file_->ZeroFillAhead(chunk_bytes); }

 private:
  Status EmitPhysicalRecord(log::RecordType type, const char* data, size_t length);

  std::unique_ptr<WritableFile> file_;
  size_t block_offset_;  // position inside the current block
  Status error_;         // sticky: the first write error
  bool closed_ = false;
};

}  // namespace ebb::storage
