// DataDirRepairer: salvages what is readable from a damaged data directory (`ebb-check
// --repair`), as LevelDB's RepairDB does, and writes a manifest the server opens.
//
// What it does, on a stopped server's directory (it takes the LOCK):
//  1. The starting state is the manifest CURRENT names or, if that is missing or unreadable,
//     the newest MANIFEST-* that replays; its edits are replayed up to the first damaged one.
//     With no usable manifest every table is taken, at level 0.
//  2. Each table that state names is read in full. An intact one stays as it is. A damaged one
//     is rewritten with every entry that reads intact (a damaged block is skipped, the blocks
//     after it are read); the original goes to lost/. A missing or unopenable one is dropped.
//  3. Tables the state does not name are left-overs of interrupted flushes and compactions —
//     or, when the manifest lost edits (replay stopped at damage, or a table it names is
//     missing), tables it should have named. Those are taken at level 0 only when every entry
//     in them is newer than every entry of the deeper tables their keys overlap (so none can
//     hide a newer version); the others go to lost/.
//  4. Each WAL the state still needs is replayed into a new level-0 table, reading on past
//     damage at the next 32 KiB block; the WAL then goes to lost/.
//  5. Level-0 tables are renumbered oldest first by their newest sequence, so the file order
//     reads need is kept; a new manifest names the result (CURRENT replaced atomically).
// Known limit (as with LevelDB's): a version whose newer version or tombstone was in a lost
// block or table can be visible again; the report lists every block and table lost.
// Thread-safety: one repairer per directory, used by one thread.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "storage/env/file.h"
#include "storage/status.h"

namespace ebb::storage {

struct RepairReport {
  std::vector<std::string> actions;  // what was done or found, one line each
  uint64_t tables_kept = 0;          // intact, unchanged
  uint64_t tables_rewritten = 0;     // damaged: their readable entries kept
  uint64_t tables_dropped = 0;       // missing, unreadable, or left over (moved to lost/)
  uint64_t damaged_blocks = 0;       // data blocks (or parts) skipped
  uint64_t wal_records = 0;          // WAL records turned into tables
  uint64_t wal_damage = 0;           // damaged regions skipped in WALs

  // The actions, then a summary line.
  std::string ToString() const;
};

class DataDirRepairer {
 public:
  // `fs` nullptr: the POSIX file system.
  explicit DataDirRepairer(std::string dir, std::shared_ptr<FileSystem> fs = nullptr);
  ~DataDirRepairer();

  DataDirRepairer(const DataDirRepairer&) = delete;
  DataDirRepairer& operator=(const DataDirRepairer&) = delete;

  // Repairs the directory. OK: the server can open it, with everything the report does not
  // list as lost. An error (Busy while a server holds the LOCK, an I/O error) leaves the
  // directory as a server would still open it: nothing is moved before the new manifest is
  // durable.
  Status Run(RepairReport* report);

 private:
  struct State;
  struct TableEntry;
  Status LoadManifest(State* st);
  Status ReplayManifest(State* st, const std::string& name, bool* usable);
  Status RepairTable(State* st, TableEntry* table);
  void TakeLeftOverTables(State* st);
  Status ConvertWal(State* st, uint64_t number);
  Status RenumberLevel0(State* st);
  Status WriteNewManifest(State* st);
  Status MoveToLost(const std::string& name);

  const std::string dir_;
  const std::shared_ptr<FileSystem> fs_;
};

}  // namespace ebb::storage
