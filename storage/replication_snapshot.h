// The snapshot of a full resynchronisation on the wire (docs/replication.md, "Full
// resynchronisation: the snapshot"): a checkpoint directory (DB::Checkpoint) as one archive.
//
//   snapshot = magic:"EBBSNAP1" sequence:fixed64 file_count:fixed32 file{file_count}
//   file     = name:length-prefixed size:fixed64 bytes:byte[size]
//
// SnapshotSource reads a checkpoint directory out as that archive, a chunk at a time, its total
// length known before the first byte (the master sends `$<length>\r\n` first). SnapshotSink
// takes the archive's bytes in pieces of any size as they arrive and writes the files into a
// directory, so a replica never holds more than a chunk in memory.
// Thread-safety: none; each object is used by one thread at a time (the master reads files off
// the event loop).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "storage/env/file.h"
#include "storage/status.h"

namespace ebb::storage {

inline constexpr std::string_view kSnapshotMagic = "EBBSNAP1";

class SnapshotSource {
 public:
  // `files`: bare names in `dir`, as DB::Checkpoint listed them; `sequence`: its sequence.
  static Status Open(std::shared_ptr<FileSystem> fs, const std::string& dir, uint64_t sequence,
                     std::vector<std::string> files, std::unique_ptr<SnapshotSource>* source);

  // The archive's length in bytes.
  uint64_t size() const { return size_; }
  // Appends up to `max` next bytes of the archive to *out (none once all are read).
  Status Read(size_t max, std::string* out);
  bool done() const { return produced_ == size_; }

 private:
  SnapshotSource() = default;

  std::shared_ptr<FileSystem> fs_;
  std::string dir_;
  std::vector<std::string> files_;
  std::vector<uint64_t> sizes_;
  uint64_t size_ = 0;
  uint64_t produced_ = 0;
  std::string pending_;  // header bytes not yet handed out
  size_t next_file_ = 0;
  std::unique_ptr<SequentialFile> file_;
  uint64_t file_left_ = 0;
  std::string scratch_;
};

class SnapshotSink {
 public:
  // Writes into `dir` (created). REQUIRES: dir holds none of the archive's files.
  SnapshotSink(std::shared_ptr<FileSystem> fs, std::string dir);

  // Takes the next bytes of the archive. Corruption if they are not one (bad magic, a name with
  // a '/', bytes past its end); the sink then refuses everything.
  Status Feed(std::string_view bytes);
  // True once the whole archive has arrived and every file is synced, with the directory.
  bool done() const { return state_ == State::kDone; }
  uint64_t sequence() const { return sequence_; }
  const std::vector<std::string>& files() const { return names_; }

 private:
  enum class State { kHeader, kFileHeader, kFileBytes, kDone, kFailed };
  static constexpr size_t kMaxFileHeader = 4096;  // a file name is far shorter

  // Takes `in` in the current state, buffering a header cut short in header_.
  Status Consume(std::string_view in);
  // The current file is complete: syncs and closes it.
  Status FinishFile();

  std::shared_ptr<FileSystem> fs_;
  std::string dir_;
  State state_ = State::kHeader;
  std::string header_;  // the start of a header the last piece cut short
  uint64_t sequence_ = 0;
  uint32_t files_left_ = 0;
  std::vector<std::string> names_;
  std::unique_ptr<WritableFile> file_;
  uint64_t file_left_ = 0;
};

}  // namespace ebb::storage
