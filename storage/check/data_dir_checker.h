// DataDirChecker: verifies an ebb data directory offline (the `ebb-check` tool) and says what
// is damaged, naming the file and the offset.
//
// What it verifies, reading only (it never repairs or truncates):
//  - CURRENT names a manifest; the manifest's edit log replays (every record's checksum, every
//    edit decodes, deleted files were live, added files are new) and sets the log number, next
//    file number and last sequence.
//  - every live SST: present with the size the manifest records; footer, index, filter and
//    properties blocks read and checksum-verified; every data block read and verified; keys
//    parse and are strictly increasing; rows decode; the entry count and the smallest/largest
//    keys agree with the properties and the manifest.
//  - every WAL (*.log): every record's checksum and write batch. A torn tail (an append cut by
//    a crash, which the server truncates at start) and a torn write (zeros, then records: a
//    write whose pages reached the disk out of order, which the server cuts at the zeros) are
//    warnings, not damage.
//  - tables the manifest does not list: left by an interrupted flush/compaction (a warning), or
//    holding writes newer than the manifest and every WAL — the manifest lost the edit that
//    added them (damage: those rows exist nowhere else).
// Warnings (torn tails, unreferenced files, a server holding the LOCK) do not make the
// directory damaged.
// Thread-safety: a checker is used by one thread; it reads files another process may be
// writing, so run it on a stopped server's directory for an exact answer.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "storage/env/file.h"

namespace ebb::storage {

struct CheckIssue {
  enum class Severity { kWarning, kDamage };
  Severity severity = Severity::kDamage;
  std::string file;  // path of the file concerned (the directory for directory-level issues)
  std::string what;  // what is wrong, with "at offset <n>" where a place in the file applies
};

struct CheckReport {
  std::vector<CheckIssue> issues;
  std::vector<std::string> verified;  // one line per file found intact, e.g. "000012.sst: ..."
  uint64_t tables = 0;                // live tables checked
  uint64_t wals = 0;                  // WAL files checked

  bool damaged() const;
  // Human-readable lines: "damaged: <file>: <what>", "warning: ...", "ok: ...", then a summary.
  std::string ToString(bool verbose) const;
};

class DataDirChecker {
 public:
  // `fs` nullptr: the POSIX file system.
  explicit DataDirChecker(std::string dir, std::shared_ptr<FileSystem> fs = nullptr);
  ~DataDirChecker();

  DataDirChecker(const DataDirChecker&) = delete;
  DataDirChecker& operator=(const DataDirChecker&) = delete;

  // Runs every check. Postcondition: the report lists every problem found; damaged() is false
  // only if every check passed.
  CheckReport Run();

 private:
  struct State;
  void CheckManifest(State* st);
  void CheckTables(State* st);
  void CheckTable(State* st, int level, uint64_t number);
  // Tables on disk the manifest does not list. REQUIRES: CheckWals ran.
  void CheckUnreferencedTables(State* st);
  void CheckWals(State* st);
  void CheckWal(State* st, uint64_t number);
  void Damage(State* st, const std::string& file, const std::string& what);
  void Warn(State* st, const std::string& file, const std::string& what);

  const std::string dir_;
  const std::shared_ptr<FileSystem> fs_;
};

}  // namespace ebb::storage
