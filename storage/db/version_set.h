// Version: one immutable state of the LSM tree — which table files are live at which level,
// and the range deletions and purge hints still in force.
// VersionSet: the current Version, the counters persisted with it (next file number, last
// sequence, oldest live WAL), and the MANIFEST that records every change (VersionEdit).
//
// Invariants: level 0 files are sorted newest first (by file number) and may overlap; each level
// >= 1 is sorted by smallest key and its files' user-key ranges do not overlap. For any user
// key, versions in a shallower place (memtable, newer L0 file, lower level) are more recent
// than those deeper. A Version never changes once built; readers hold it with shared_ptr, so
// its files stay on disk while any reader uses it (see LiveFiles).
// Thread-safety: VersionSet is guarded by the DB mutex (callers hold it); Version is immutable
// and may be read from any thread.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "storage/db/version_edit.h"
#include "storage/env/file.h"
#include "storage/status.h"

namespace ebb::storage {

class LogWriter;

// Reads CURRENT in `dir`: *manifest is the bare name of the manifest it names. NotFound if
// there is no CURRENT; Corruption naming CURRENT if it does not hold one manifest name and a
// newline.
Status ReadCurrent(FileSystem& fs, const std::string& dir, std::string* manifest);

// Writes MANIFEST-<number> holding `snapshot` (one edit: every live table and the counters),
// fdatasyncs it, and points CURRENT at it atomically (temp file, fsync, rename, directory
// fsync). On OK *manifest is open for further edits. On failure nothing is left behind, except
// that a manifest CURRENT was already renamed to name stays.
Status WriteManifest(FileSystem& fs, const std::string& dir, uint64_t number,
                     const VersionEdit& snapshot, std::unique_ptr<LogWriter>* manifest);

struct Version {
  std::vector<std::shared_ptr<const FileMetaData>> files[kNumLevels];
  // Range deletions not yet applied to every table file and memtable that may hold what they
  // delete (retired by the compaction that has), oldest first.
  std::vector<RangeDeletion> range_deletions;
  // Ranges due for a purge compaction (retired by it).
  std::vector<PurgeHint> purge_hints;

  // The greatest sequence of a range deletion covering `user_key` that a read at `sequence`
  // sees (0: none): versions of the key with a smaller sequence are deleted.
  // Inline for the common case of none, which every point read asks about.
  uint64_t DeletionFloor(std::string_view user_key, uint64_t sequence) const {
    return range_deletions.empty() ? 0 : CoveringDeletion(user_key, sequence);
  }

  uint64_t LevelBytes(int level) const;
  // Files of `level` whose user-key range intersects [smallest_user, largest_user].
  std::vector<std::shared_ptr<const FileMetaData>> Overlapping(int level,
                                                               std::string_view smallest_user,
                                                               std::string_view largest_user) const;
  int DeepestNonEmptyLevel() const;  // -1 if there are no files

 private:
  // DeletionFloor's walk over range_deletions.
  uint64_t CoveringDeletion(std::string_view user_key, uint64_t sequence) const;
};

class VersionSet {
 public:
  VersionSet(std::string dir, std::shared_ptr<FileSystem> fs);
  ~VersionSet();
  VersionSet(const VersionSet&) = delete;
  VersionSet& operator=(const VersionSet&) = delete;

  // Reads CURRENT and replays its MANIFEST. *exists = false (and OK) if there is no CURRENT.
  Status Recover(bool* exists);
  // Starts a fresh MANIFEST holding a snapshot of the current state and points CURRENT at it
  // (written to a temp file, fsynced, renamed, directory fsynced).
  Status CreateNewManifest();
  // Applies `edit` to the current version, appends it to the MANIFEST and syncs it, then makes
  // the result current. The edit is completed with the counters. REQUIRES: a MANIFEST is open.
  Status LogAndApply(VersionEdit* edit);

  std::shared_ptr<const Version> current() const { return current_; }
  uint64_t NewFileNumber() { return next_file_number_++; }
  void MarkFileNumberUsed(uint64_t n) {
    if (next_file_number_ <= n) next_file_number_ = n + 1;
  }
  uint64_t last_sequence() const { return last_sequence_; }
  void SetLastSequence(uint64_t s) { last_sequence_ = s; }
  uint64_t log_number() const { return log_number_; }
  // The expiry clock as the manifest last recorded it: frozen at this time, or nullopt
  // (running, or never recorded).
  std::optional<int64_t> expiry_frozen_at() const { return expiry_frozen_at_; }
  uint64_t manifest_number() const { return manifest_number_; }
  // Table files referenced by any Version still alive (current or held by readers).
  void AddLiveFiles(std::set<uint64_t>* live);

 private:
  std::shared_ptr<Version> Apply(const Version& base, const VersionEdit& edit) const;
  void Install(std::shared_ptr<Version> v);
  // Records an edit's expiry clock field.
  void SetExpiryClock(int64_t frozen_at);

  const std::string dir_;
  const std::shared_ptr<FileSystem> fs_;
  std::shared_ptr<const Version> current_;
  std::vector<std::weak_ptr<const Version>> live_versions_;
  std::unique_ptr<LogWriter> manifest_;
  uint64_t manifest_number_ = 0;
  uint64_t next_file_number_ = 2;
  uint64_t last_sequence_ = 0;
  uint64_t log_number_ = 0;
  std::optional<int64_t> expiry_frozen_at_;
};

}  // namespace ebb::storage
