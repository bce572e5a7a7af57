#include "storage/check/data_dir_repairer.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "storage/db/filename.h"
#include "storage/db/memtable.h"
#include "storage/db/table_writer.h"
#include "storage/db/version_set.h"
#include "storage/format/internal_key.h"
#include "storage/table/table.h"
#include "storage/util/coding.h"
#include "storage/wal/log_format.h"
#include "storage/wal/log_reader.h"
#include "storage/wal/log_writer.h"

namespace ebb::storage {
namespace {

// Tables the repair writes: like the server's (uncompressed keys are not assumed).
TableOptions RepairTableOptions() { return TableOptions(); }

// An entry worth keeping: a well-formed internal key after `prev` (empty: the first) and a
// row that decodes.
bool ValidEntry(std::string_view key, std::string_view row, const std::string& prev) {
  ParsedInternalKey parsed;
  RowMeta meta;
  std::string_view value;
  return ParseInternalKey(key, &parsed) && DecodeRow(row, &meta, &value) &&
         (prev.empty() || CompareInternalKeys(prev, key) < 0);
}

}  // namespace

struct DataDirRepairer::TableEntry {
  uint64_t number = 0;  // the file now holding the table; 0: dropped
  int level = 0;
  FileMetaData meta;
};

struct DataDirRepairer::State {
  RepairReport* report = nullptr;
  std::map<uint64_t, FileType> files;  // numbered files on disk
  uint64_t max_number = 0;
  // The manifest's state.
  bool have_manifest = false;
  bool manifest_complete = true;  // replayed to its end (a torn last edit counts as complete)
  std::map<uint64_t, std::pair<int, FileMetaData>> named;
  uint64_t log_number = 0;
  uint64_t next_file = 0;
  uint64_t last_sequence = 0;
  // Range deletions in force (the manifest's, then the WALs'): they keep what FLUSHDB and
  // FLUSHALL deleted deleted in the repaired state.
  std::vector<RangeDeletion> range_deletions;
  bool lost_named_table = false;
  // The result.
  std::vector<TableEntry> tables;
  std::vector<std::string> to_lost;    // moved to lost/ once the new manifest is durable
  std::set<uint64_t> written;          // tables this repair wrote
  std::vector<std::string> to_remove;  // of those, the ones replaced again
  uint64_t NewNumber() { return ++max_number; }
  void Note(std::string line) { report->actions.push_back(std::move(line)); }
};

std::string RepairReport::ToString() const {
  std::string out;
  for (const std::string& line : actions) out += line + "\n";
  out += "repaired: " + std::to_string(tables_kept) + " table(s) kept, " +
         std::to_string(tables_rewritten) + " rewritten, " + std::to_string(tables_dropped) +
         " dropped; " + std::to_string(damaged_blocks) + " damaged block(s) skipped; " +
         std::to_string(wal_records) + " WAL record(s) recovered, " + std::to_string(wal_damage) +
         " damaged WAL region(s) skipped\n";
  return out;
}

DataDirRepairer::DataDirRepairer(std::string dir, std::shared_ptr<FileSystem> fs)
    : dir_(std::move(dir)), fs_(fs ? std::move(fs) : DefaultFileSystem()) {}

DataDirRepairer::~DataDirRepairer() = default;

Status DataDirRepairer::Run(RepairReport* report) {
  std::unique_ptr<FileLock> lock;
  Status s = fs_->LockFile(LockFileName(dir_), &lock);
  if (s.IsBusy()) {
    return Status::Busy(dir_ + ": a server has this directory open; stop it before repairing");
  }
  if (!s.ok()) return s;
  State st;
  st.report = report;
  std::vector<std::string> names;
  s = fs_->GetChildren(dir_, &names);
  if (!s.ok()) return s;
  for (const std::string& name : names) {
    uint64_t number;
    FileType type;
    if (!ParseFileName(name, &number, &type)) continue;
    st.max_number = std::max(st.max_number, number);
    if (type == FileType::kLog || type == FileType::kTable) st.files[number] = type;
  }
  s = LoadManifest(&st);
  if (!s.ok()) return s;
  st.max_number = std::max(st.max_number, st.next_file);
  for (const auto& [number, entry] : st.named) {
    TableEntry table{number, entry.first, entry.second};
    auto it = st.files.find(number);
    if (it == st.files.end() || it->second != FileType::kTable) {
      st.Note("lost: " + TableFileName(dir_, number) + " (level " + std::to_string(entry.first) +
              "), named by the manifest, is missing");
      st.report->tables_dropped++;
      st.lost_named_table = true;
      continue;
    }
    s = RepairTable(&st, &table);
    if (!s.ok()) return s;
    if (table.number != 0) st.tables.push_back(std::move(table));
  }
  TakeLeftOverTables(&st);
  for (const auto& [number, type] : st.files) {
    if (type != FileType::kLog || number < st.log_number) continue;
    s = ConvertWal(&st, number);
    if (!s.ok()) return s;
  }
  s = RenumberLevel0(&st);
  if (s.ok()) s = WriteNewManifest(&st);
  if (!s.ok()) return s;
  for (const std::string& name : st.to_lost) {
    s = MoveToLost(name);
    if (!s.ok()) return s;
  }
  for (const std::string& name : st.to_remove) {
    s = fs_->RemoveFile(dir_ + "/" + name);
    if (!s.ok()) return s;
  }
  return Status::OK();
}

Status DataDirRepairer::LoadManifest(State* st) {
  std::vector<std::string> candidates;
  std::string current;
  const Status cs = ReadCurrent(*fs_, dir_, &current);
  if (cs.ok() && fs_->FileExists(dir_ + "/" + current)) {
    candidates.push_back(current);
  } else {
    st->Note("CURRENT names no readable manifest (" +
             (cs.ok() ? current + " is missing" : cs.ToString()) +
             "): starting from the newest manifest that replays");
  }
  std::vector<std::string> names;
  Status s = fs_->GetChildren(dir_, &names);
  if (!s.ok()) return s;
  std::map<uint64_t, std::string, std::greater<>> manifests;
  for (const std::string& name : names) {
    uint64_t number;
    FileType type;
    if (ParseFileName(name, &number, &type) && type == FileType::kManifest && name != current) {
      manifests.emplace(number, name);
    }
  }
  for (const auto& [number, name] : manifests) candidates.push_back(name);
  for (const std::string& name : candidates) {
    bool usable = false;
    s = ReplayManifest(st, name, &usable);
    if (!s.ok()) return s;
    if (usable) {
      st->have_manifest = true;
      st->Note("starting from " + name + ": " + std::to_string(st->named.size()) +
               " table(s), log number " + std::to_string(st->log_number));
      return Status::OK();
    }
  }
  st->named.clear();
  st->Note(
      "no usable manifest: every table is taken at level 0 (versions a lost edit had "
      "removed may be visible again)");
  return Status::OK();
}

Status DataDirRepairer::ReplayManifest(State* st, const std::string& name, bool* usable) {
  const std::string path = dir_ + "/" + name;
  std::unique_ptr<SequentialFile> file;
  Status s = fs_->NewSequentialFile(path, &file);
  if (!s.ok()) {
    st->Note(name + ": unreadable: " + s.ToString());
    return Status::OK();
  }
  st->named.clear();
  st->range_deletions.clear();
  st->manifest_complete = true;
  LogReader reader(std::move(file), path);
  std::string record;
  std::optional<uint64_t> log_number, next_file, last_sequence;
  while (reader.ReadRecord(&record, &s)) {
    VersionEdit edit;
    s = edit.DecodeFrom(record, path);
    if (!s.ok()) break;
    for (const auto& [level, number] : edit.deleted_files()) st->named.erase(number);
    for (const auto& [level, f] : edit.new_files()) st->named[f.number] = {level, f};
    for (const RangeDeletion& d : edit.range_deletions()) st->range_deletions.push_back(d);
    for (const RangeDeletion& d : edit.retired_range_deletions()) {
      std::erase(st->range_deletions, d);
    }
    if (edit.log_number()) log_number = edit.log_number();
    if (edit.next_file_number()) next_file = edit.next_file_number();
    if (edit.last_sequence()) last_sequence = edit.last_sequence();
  }
  if (!s.ok() && !s.IsCorruption()) return s;  // an I/O error: stop, change nothing
  if (!log_number || !next_file || !last_sequence) {
    st->Note(name + ": no complete edit" + (s.ok() ? "" : " (" + s.ToString() + ")"));
    return Status::OK();
  }
  if (!s.ok()) {
    st->manifest_complete = false;
    st->Note(name + ": " + s.ToString() + "; the edits after it are lost");
  }
  st->log_number = *log_number;
  st->next_file = *next_file;
  st->last_sequence = *last_sequence;
  *usable = true;
  return Status::OK();
}

Status DataDirRepairer::RepairTable(State* st, TableEntry* table) {
  const std::string name = TableFileName(dir_, table->number);
  uint64_t size = 0;
  std::unique_ptr<RandomAccessFile> file;
  std::unique_ptr<Table> opened;
  Status s = fs_->GetFileSize(name, &size);
  if (s.ok()) s = fs_->NewRandomAccessFile(name, &file);
  if (s.ok()) {
    s = Table::Open(TableOptions(), std::move(file), size, table->number, nullptr, name, &opened);
  }
  if (!s.ok()) {
    st->Note("lost: " + name + ": cannot be opened: " + s.ToString());
    st->report->tables_dropped++;
    st->to_lost.push_back(BaseName(name));
    table->number = 0;
    return Status::OK();
  }
  // A first pass finds out whether every entry reads intact.
  std::vector<Status> damage;
  uint64_t good = 0, bad = 0;
  std::string prev;
  Status index = opened->Salvage(
      [&](std::string_view key, std::string_view row) {
        if (ValidEntry(key, row, prev)) {
          good++;
          prev.assign(key);
        } else {
          bad++;
        }
        return true;
      },
      &damage);
  const TableProperties& props = opened->properties();
  const bool from_manifest = table->meta.number == table->number;
  if (index.ok() && damage.empty() && bad == 0 && good == props.entries &&
      (!from_manifest || table->meta.file_size == size)) {
    if (!from_manifest) {
      table->meta.number = table->number;
      table->meta.file_size = size;
      table->meta.props = props;
      table->meta.smallest = props.smallest_key;
      table->meta.largest = props.largest_key;
    }
    st->report->tables_kept++;
    return Status::OK();
  }
  // Rewrite what reads intact into a new table.
  for (const Status& d : damage) st->Note("damaged: " + d.ToString());
  if (!index.ok()) st->Note("damaged: " + index.ToString() + " (the blocks after it are lost)");
  if (bad > 0) st->Note("damaged: " + name + ": " + std::to_string(bad) + " malformed entries");
  st->report->damaged_blocks += damage.size() + (index.ok() ? 0 : 1);
  const uint64_t number = st->NewNumber();
  TableWriter writer(fs_, dir_, RepairTableOptions());
  s = writer.Open(number);
  if (!s.ok()) return s;
  prev.clear();
  std::vector<Status> again;
  opened->Salvage(
      [&](std::string_view key, std::string_view row) {
        if (s.ok() && ValidEntry(key, row, prev)) {
          s = writer.Add(key, row);
          prev.assign(key);
        }
        return true;
      },
      &again);
  if (!s.ok()) return s;
  st->to_lost.push_back(BaseName(name));
  if (writer.NumEntries() == 0) {
    st->Note("lost: " + name + ": nothing in it reads intact");
    st->report->tables_dropped++;
    table->number = 0;
    return Status::OK();  // the writer removes its empty file
  }
  FileMetaData meta;
  s = writer.Finish(&meta);
  if (!s.ok()) return s;
  st->written.insert(number);
  st->Note("rewrote " + name + " as " + BaseName(TableFileName(dir_, number)) + ": kept " +
           std::to_string(meta.props.entries) + " of " + std::to_string(props.entries) +
           " entries");
  st->report->tables_rewritten++;
  table->number = number;
  table->meta = std::move(meta);
  return Status::OK();
}

void DataDirRepairer::TakeLeftOverTables(State* st) {
  // With a complete manifest, a table it does not name is an interrupted flush's or
  // compaction's output, or a compaction's input not yet deleted: never needed.
  const bool lost_edits = !st->have_manifest || !st->manifest_complete || st->lost_named_table;
  for (const auto& [number, type] : st->files) {
    if (type != FileType::kTable || st->named.count(number)) continue;
    const std::string name = TableFileName(dir_, number);
    if (!lost_edits) {
      st->Note(BaseName(name) +
               ": left over by an interrupted flush or compaction; moved to lost/");
      st->report->tables_dropped++;
      st->to_lost.push_back(BaseName(name));
      continue;
    }
    TableEntry table{number, 0, FileMetaData()};
    if (!RepairTable(st, &table).ok() || table.number == 0) continue;
    // At level 0 it is read before every deeper table: each of its entries must be newer than
    // those of the deeper tables it overlaps, or it would hide their newer versions.
    const std::string_view smallest = ExtractUserKey(table.meta.smallest);
    const std::string_view largest = ExtractUserKey(table.meta.largest);
    const bool hides = std::any_of(st->tables.begin(), st->tables.end(), [&](const auto& t) {
      return t.level > 0 && t.meta.props.max_sequence >= table.meta.props.min_sequence &&
             CompareUserKeys(ExtractUserKey(t.meta.largest), smallest) >= 0 &&
             CompareUserKeys(ExtractUserKey(t.meta.smallest), largest) <= 0;
    });
    if (hides) {
      st->Note(BaseName(name) +
               ": not named by the manifest and older than deeper tables it "
               "overlaps; moved to lost/");
      st->report->tables_dropped++;
      st->to_lost.push_back(BaseName(name));
      continue;
    }
    st->Note(BaseName(name) + ": not named by the manifest, which lost edits; taken at level 0");
    st->tables.push_back(std::move(table));
  }
}

Status DataDirRepairer::ConvertWal(State* st, uint64_t number) {
  const std::string name = LogFileName(dir_, number);
  uint64_t size = 0;
  Status s = fs_->GetFileSize(name, &size);
  if (!s.ok()) return s;
  auto mem = std::make_shared<MemTable>(4 << 20);
  uint64_t records = 0;
  // Read to the end, or to damage; past damage, go on at the next block, where records start.
  for (uint64_t base = 0; base < size;) {
    std::unique_ptr<SequentialFile> file;
    s = fs_->NewSequentialFile(name, &file);
    if (s.ok() && base > 0) s = file->Skip(base);
    if (!s.ok()) return s;
    LogReader reader(std::move(file), name, /*zeros_then_records_are_torn_write=*/true);
    std::string record;
    while (reader.ReadRecord(&record, &s)) {
      std::string_view in(record);
      uint64_t first_sequence = 0;
      WriteBatch batch;
      if (!GetFixed64(&in, &first_sequence) || !WriteBatch::FromRep(in, &batch).ok() ||
          !AddBatch(mem.get(), first_sequence, batch).ok()) {
        st->Note("damaged: " + name + ": a record holds no valid write batch at offset " +
                 std::to_string(base + reader.LastRecordEndOffset()));
        st->report->wal_damage++;
        continue;
      }
      records++;
      std::vector<RangeDeletion> deletions;
      RangeDeletionsOf(batch, first_sequence, &deletions);
      for (const RangeDeletion& d : deletions) {
        if (std::find(st->range_deletions.begin(), st->range_deletions.end(), d) ==
            st->range_deletions.end()) {
          st->range_deletions.push_back(d);
        }
      }
      if (batch.Count() > 0) {
        st->last_sequence = std::max(st->last_sequence, first_sequence + batch.Count() - 1);
      }
    }
    if (s.ok()) {
      if (reader.torn_tail()) {
        st->Note(name + ": " + (reader.torn_write() ? "torn write" : "torn tail") + " at offset " +
                 std::to_string(base + reader.torn_tail_offset()) +
                 " (a write cut by a crash; never acknowledged under always)");
      }
      break;
    }
    if (!s.IsCorruption()) return s;
    st->Note("damaged: " + s.ToString() + " (relative to offset " + std::to_string(base) +
             "); reading on at the next block");
    st->report->wal_damage++;
    base = ((base + reader.LastRecordEndOffset()) / log::kBlockSize + 1) * log::kBlockSize;
  }
  st->report->wal_records += records;
  st->to_lost.push_back(BaseName(name));
  if (mem->empty()) {
    st->Note(name + ": no writes to recover");
    return Status::OK();
  }
  const uint64_t table_number = st->NewNumber();
  TableWriter writer(fs_, dir_, RepairTableOptions());
  s = writer.Open(table_number);
  auto it = MemTable::NewIterator(mem);
  for (it->SeekToFirst(); s.ok() && it->Valid(); it->Next()) s = writer.Add(it->key(), it->value());
  FileMetaData meta;
  if (s.ok()) s = writer.Finish(&meta);
  if (!s.ok()) return s;
  st->written.insert(table_number);
  st->Note(name + ": " + std::to_string(records) + " record(s) written to " +
           BaseName(TableFileName(dir_, table_number)) + " at level 0");
  st->tables.push_back(TableEntry{table_number, 0, std::move(meta)});
  return Status::OK();
}

Status DataDirRepairer::RenumberLevel0(State* st) {
  // Reads take level-0 tables newest first by file number; order them by their writes.
  std::vector<TableEntry*> level0;
  for (TableEntry& t : st->tables) {
    if (t.level == 0) level0.push_back(&t);
  }
  auto by_writes = [](const TableEntry* a, const TableEntry* b) {
    return a->meta.props.max_sequence != b->meta.props.max_sequence
               ? a->meta.props.max_sequence < b->meta.props.max_sequence
               : a->number < b->number;
  };
  auto by_number = [](const TableEntry* a, const TableEntry* b) { return a->number < b->number; };
  std::vector<TableEntry*> numbered = level0;
  std::sort(level0.begin(), level0.end(), by_writes);
  std::sort(numbered.begin(), numbered.end(), by_number);
  if (level0 == numbered) return Status::OK();
  // Copies under new numbers (the originals stay until the new manifest is durable).
  for (TableEntry* t : level0) {
    const std::string from = TableFileName(dir_, t->number);
    const uint64_t number = st->NewNumber();
    std::string bytes;
    std::unique_ptr<SequentialFile> in;
    Status s = fs_->NewSequentialFile(from, &in);
    std::string scratch(1 << 16, '\0');
    while (s.ok()) {
      std::string_view chunk;
      s = in->Read(scratch.size(), &chunk, scratch.data());
      if (!s.ok() || chunk.empty()) break;
      bytes.append(chunk);
    }
    std::unique_ptr<WritableFile> out;
    if (s.ok()) s = fs_->NewWritableFile(TableFileName(dir_, number), &out);
    if (s.ok()) s = out->Append(bytes);
    if (s.ok()) s = out->Sync();
    if (s.ok()) s = out->Close();
    if (!s.ok()) return s;
    // An original goes to lost/ with the rest; a table this repair wrote is just replaced.
    (st->written.count(t->number) ? st->to_remove : st->to_lost).push_back(BaseName(from));
    t->number = number;
    t->meta.number = number;
  }
  st->Note("renumbered " + std::to_string(level0.size()) +
           " level-0 table(s) so the newest writes are read first");
  return Status::OK();
}

Status DataDirRepairer::WriteNewManifest(State* st) {
  VersionEdit snapshot;
  for (const TableEntry& t : st->tables) {
    snapshot.AddFile(t.level, t.meta);
    st->last_sequence = std::max(st->last_sequence, t.meta.props.max_sequence);
  }
  for (const RangeDeletion& d : st->range_deletions) {
    snapshot.AddRangeDeletion(d);
    st->last_sequence = std::max(st->last_sequence, d.sequence);
  }
  const uint64_t log_number = st->NewNumber();  // no WAL is needed: they are all in tables
  const uint64_t manifest_number = st->NewNumber();
  snapshot.SetLogNumber(log_number);
  snapshot.SetNextFileNumber(st->NewNumber());
  snapshot.SetLastSequence(st->last_sequence);
  // The tables written above must be in the directory before a manifest names them.
  Status s = fs_->SyncDir(dir_);
  std::unique_ptr<LogWriter> manifest;
  if (s.ok()) s = WriteManifest(*fs_, dir_, manifest_number, snapshot, &manifest);
  if (!s.ok()) return s;
  s = manifest->Close();
  if (!s.ok()) return s;
  st->Note("wrote " + BaseName(ManifestFileName(dir_, manifest_number)) + ": " +
           std::to_string(st->tables.size()) + " table(s), last sequence " +
           std::to_string(st->last_sequence));
  return Status::OK();
}

Status DataDirRepairer::MoveToLost(const std::string& name) {
  const std::string lost = dir_ + "/lost";
  Status s = fs_->CreateDirIfMissing(lost);
  if (s.ok()) s = fs_->RenameFile(dir_ + "/" + name, lost + "/" + name);
  return s;
}

}  // namespace ebb::storage
