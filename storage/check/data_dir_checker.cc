#include "storage/check/data_dir_checker.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "storage/db/filename.h"
#include "storage/db/version_edit.h"
#include "storage/format/internal_key.h"
#include "storage/table/table.h"
#include "storage/util/coding.h"
#include "storage/wal/log_reader.h"
#include "storage/write_batch.h"

namespace ebb::storage {

namespace {

std::string Offset(uint64_t offset) { return " at offset " + std::to_string(offset); }

}  // namespace

struct DataDirChecker::State {
  CheckReport report;
  std::map<uint64_t, FileType> files;  // every file the DB owns, by number (CURRENT etc. at 0)
  std::set<std::string> names;
  std::map<uint64_t, std::pair<int, FileMetaData>> live;  // live tables by number
  std::optional<uint64_t> log_number;
  // Sequence ranges [first, last] held by live tables and live WALs.
  std::vector<std::pair<uint64_t, uint64_t>> held;
  bool manifest_ok = false;
};

bool CheckReport::damaged() const {
  return std::any_of(issues.begin(), issues.end(), [](const CheckIssue& i) {
    return i.severity == CheckIssue::Severity::kDamage;
  });
}

std::string CheckReport::ToString(bool verbose) const {
  std::string out;
  size_t damage = 0, warnings = 0;
  for (const CheckIssue& i : issues) {
    const bool is_damage = i.severity == CheckIssue::Severity::kDamage;
    (is_damage ? damage : warnings)++;
    out += (is_damage ? "damaged: " : "warning: ") + i.file + ": " + i.what + "\n";
  }
  if (verbose) {
    for (const std::string& line : verified) out += "ok: " + line + "\n";
  }
  out += damage > 0 ? "DAMAGED: " + std::to_string(damage) + " problem(s)" : std::string("clean");
  out += ", " + std::to_string(warnings) + " warning(s); checked " + std::to_string(tables) +
         " table(s), " + std::to_string(wals) + " WAL(s)\n";
  return out;
}

DataDirChecker::DataDirChecker(std::string dir, std::shared_ptr<FileSystem> fs)
    : dir_(std::move(dir)), fs_(fs ? std::move(fs) : DefaultFileSystem()) {}

DataDirChecker::~DataDirChecker() = default;

void DataDirChecker::Damage(State* st, const std::string& file, const std::string& what) {
  st->report.issues.push_back({CheckIssue::Severity::kDamage, file, what});
}

void DataDirChecker::Warn(State* st, const std::string& file, const std::string& what) {
  st->report.issues.push_back({CheckIssue::Severity::kWarning, file, what});
}

CheckReport DataDirChecker::Run() {
  State st;
  std::vector<std::string> names;
  Status s = fs_->GetChildren(dir_, &names);
  if (!s.ok()) {
    Damage(&st, dir_, "cannot list the directory: " + s.ToString());
    return st.report;
  }
  for (const std::string& name : names) {
    uint64_t number;
    FileType type;
    if (!ParseFileName(name, &number, &type)) continue;
    st.names.insert(name);
    if (type == FileType::kLog || type == FileType::kTable) st.files[number] = type;
  }
  {
    // A running server holds the LOCK: its WAL tail may be mid-append while we read.
    std::unique_ptr<FileLock> lock;
    if (st.names.count("LOCK") && fs_->LockFile(LockFileName(dir_), &lock).IsBusy()) {
      Warn(&st, LockFileName(dir_),
           "a server has this directory open; in-progress writes may show as torn tails");
    }
  }
  CheckManifest(&st);
  CheckTables(&st);
  CheckWals(&st);
  CheckUnreferencedTables(&st);
  return st.report;
}

void DataDirChecker::CheckManifest(State* st) {
  const std::string current = CurrentFileName(dir_);
  if (!st->names.count("CURRENT")) {
    Damage(st, current, "missing (no manifest is named; not an ebb data directory?)");
    return;
  }
  std::unique_ptr<SequentialFile> file;
  Status s = fs_->NewSequentialFile(current, &file);
  std::string contents;
  char scratch[256];
  while (s.ok()) {
    std::string_view chunk;
    s = file->Read(sizeof(scratch), &chunk, scratch);
    if (chunk.empty()) break;
    contents.append(chunk);
  }
  uint64_t manifest_number = 0;
  FileType type;
  if (!s.ok()) {
    Damage(st, current, "unreadable: " + s.ToString());
    return;
  }
  if (contents.empty() || contents.back() != '\n') {
    Damage(st, current, "does not end with a newline" + Offset(contents.size()));
    return;
  }
  contents.pop_back();
  if (!ParseFileName(contents, &manifest_number, &type) || type != FileType::kManifest) {
    Damage(st, current, "names no manifest: '" + contents + "'" + Offset(0));
    return;
  }
  const std::string manifest = dir_ + "/" + contents;
  s = fs_->NewSequentialFile(manifest, &file);
  if (!s.ok()) {
    Damage(st, manifest, "named by CURRENT but unreadable: " + s.ToString());
    return;
  }
  LogReader reader(std::move(file), manifest);
  std::string record;
  uint64_t edits = 0;
  std::optional<uint64_t> next_file, last_sequence;
  bool edit_damage = false;
  uint64_t start = 0;
  while (reader.ReadRecord(&record, &s)) {
    // Records start where the previous one ended (give or take a block trailer).
    const uint64_t at = start;
    start = reader.LastRecordEndOffset();
    VersionEdit edit;
    Status ds = edit.DecodeFrom(record, "edit" + Offset(at));
    if (!ds.ok()) {
      Damage(st, manifest, "edit" + Offset(at) + " does not decode: " + ds.message());
      edit_damage = true;
      break;
    }
    ++edits;
    for (const auto& [level, number] : edit.deleted_files()) {
      auto it = st->live.find(number);
      if (it == st->live.end() || it->second.first != level) {
        Damage(st, manifest,
               "edit" + Offset(at) + " deletes table " + std::to_string(number) + " at level " +
                   std::to_string(level) + ", which is not live there");
        edit_damage = true;
      } else {
        st->live.erase(it);
      }
    }
    for (const auto& [level, f] : edit.new_files()) {
      if (level < 0 || level >= kNumLevels || st->live.count(f.number)) {
        Damage(st, manifest,
               "edit" + Offset(at) + " adds table " + std::to_string(f.number) +
                   " twice or at a bad level");
        edit_damage = true;
        continue;
      }
      st->live[f.number] = {level, f};
    }
    if (edit.log_number()) st->log_number = edit.log_number();
    if (edit.next_file_number()) next_file = edit.next_file_number();
    if (edit.last_sequence()) last_sequence = edit.last_sequence();
  }
  if (!s.ok()) {
    Damage(st, manifest, s.message());  // the reader's message names the file and offset
    return;
  }
  if (reader.torn_tail()) {
    Warn(st, manifest,
         "torn tail" + Offset(reader.torn_tail_offset()) +
             " (an edit cut by a crash; the server ignores it)");
  }
  if (!st->log_number || !next_file || !last_sequence) {
    Damage(st, manifest,
           "no complete edit sets the log number, next file number and last sequence (" +
               std::to_string(edits) + " complete edit(s), data ends" +
               Offset(reader.LastRecordEndOffset()) + ")");
    return;
  }
  if (edit_damage) return;
  st->manifest_ok = true;
  st->report.verified.push_back(BaseName(manifest) + ": " + std::to_string(edits) + " edit(s), " +
                                std::to_string(st->live.size()) + " live table(s), log number " +
                                std::to_string(*st->log_number) + ", last sequence " +
                                std::to_string(*last_sequence));
}

void DataDirChecker::CheckTables(State* st) {
  for (const auto& [number, entry] : st->live) CheckTable(st, entry.first, number);
}

void DataDirChecker::CheckUnreferencedTables(State* st) {
  if (!st->manifest_ok) return;
  for (const auto& [number, type] : st->files) {
    if (type != FileType::kTable || st->live.count(number)) continue;
    const std::string name = TableFileName(dir_, number);
    // A flush or compaction interrupted before its manifest edit leaves a table whose writes
    // are still in a WAL or in live tables. One holding newer writes than the manifest and every
    // WAL lost its manifest edit: its rows exist nowhere else.
    uint64_t size = 0;
    std::unique_ptr<RandomAccessFile> file;
    std::unique_ptr<Table> table;
    Status s = fs_->GetFileSize(name, &size);
    if (s.ok()) s = fs_->NewRandomAccessFile(name, &file);
    if (s.ok())
      s = Table::Open(TableOptions(), std::move(file), size, number, nullptr, name, &table);
    const uint64_t newest = s.ok() ? table->properties().max_sequence : 0;
    const bool held_elsewhere = std::any_of(st->held.begin(), st->held.end(), [&](const auto& r) {
      return r.first <= newest && newest <= r.second;
    });
    if (s.ok() && table->properties().entries > 0 && !held_elsewhere) {
      Damage(st, name,
             "not referenced by the manifest, yet holds writes up to sequence " +
                 std::to_string(table->properties().max_sequence) +
                 ", which no live table or WAL holds (the manifest lost the edit that added it; "
                 "the server would delete this file)");
      continue;
    }
    Warn(st, name,
         "not referenced by the manifest (left by an interrupted flush or compaction; the "
         "server deletes it at start)");
  }
}

void DataDirChecker::CheckTable(State* st, int level, uint64_t number) {
  const FileMetaData& meta = st->live[number].second;
  const std::string name = TableFileName(dir_, number);
  st->report.tables++;
  uint64_t size = 0;
  Status s = fs_->GetFileSize(name, &size);
  if (!s.ok()) {
    Damage(st, name, "live at level " + std::to_string(level) + " but missing: " + s.ToString());
    return;
  }
  if (size != meta.file_size) {
    Damage(st, name,
           "size " + std::to_string(size) + " but the manifest records " +
               std::to_string(meta.file_size) + " (file cut or extended" +
               Offset(std::min(size, meta.file_size)) + ")");
    return;
  }
  std::unique_ptr<RandomAccessFile> file;
  s = fs_->NewRandomAccessFile(name, &file);
  std::unique_ptr<Table> table;
  if (s.ok()) s = Table::Open(TableOptions(), std::move(file), size, number, nullptr, name, &table);
  if (!s.ok()) {
    Damage(st, name, s.message());
    return;
  }
  auto it = table->NewIterator(/*fill_cache=*/false);
  std::string prev, first;
  uint64_t entries = 0;
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    const std::string_view key = it->key();
    ParsedInternalKey parsed;
    RowMeta row_meta;
    std::string_view value;
    const std::string where = Offset(table->ApproximateOffsetOf(key)) + " (data block)";
    if (!ParseInternalKey(key, &parsed)) {
      Damage(st, name, "malformed internal key #" + std::to_string(entries) + where);
      return;
    }
    if (entries > 0 && CompareInternalKeys(prev, key) >= 0) {
      Damage(st, name, "keys out of order at entry #" + std::to_string(entries) + where);
      return;
    }
    if (!DecodeRow(it->value(), &row_meta, &value)) {
      Damage(st, name, "malformed row at entry #" + std::to_string(entries) + where);
      return;
    }
    if (entries == 0) first.assign(key);
    prev.assign(key);
    ++entries;
  }
  if (!it->status().ok()) {
    Damage(st, name, it->status().message());
    return;
  }
  const TableProperties& props = table->properties();
  if (entries != props.entries) {
    Damage(st, name,
           std::to_string(entries) + " entries but its properties say " +
               std::to_string(props.entries));
    return;
  }
  if (entries > 0 && (first != meta.smallest || prev != meta.largest)) {
    Damage(st, name, "key range differs from the manifest's record of it");
    return;
  }
  if (entries > 0) st->held.emplace_back(props.min_sequence, props.max_sequence);
  st->report.verified.push_back(BaseName(name) + ": level " + std::to_string(level) + ", " +
                                std::to_string(entries) + " entries, " + std::to_string(size) +
                                " bytes");
}

void DataDirChecker::CheckWals(State* st) {
  for (const auto& [number, type] : st->files) {
    if (type != FileType::kLog) continue;
    if (st->log_number && number < *st->log_number) {
      Warn(st, LogFileName(dir_, number),
           "older than the manifest's log number (already flushed; the server deletes it)");
      continue;
    }
    CheckWal(st, number);
  }
}

void DataDirChecker::CheckWal(State* st, uint64_t number) {
  const std::string name = LogFileName(dir_, number);
  st->report.wals++;
  std::unique_ptr<SequentialFile> file;
  Status s = fs_->NewSequentialFile(name, &file);
  if (!s.ok()) {
    Damage(st, name, "unreadable: " + s.ToString());
    return;
  }
  LogReader reader(std::move(file), name, /*zeros_then_records_are_torn_write=*/true);
  std::string record;
  uint64_t records = 0, writes = 0;
  uint64_t start = 0;
  while (reader.ReadRecord(&record, &s)) {
    const uint64_t at = start;
    start = reader.LastRecordEndOffset();
    std::string_view in(record);
    uint64_t first_sequence = 0;
    WriteBatch batch;
    Status bs = GetFixed64(&in, &first_sequence)
                    ? WriteBatch::FromRep(in, &batch)
                    : Status::Corruption("shorter than its sequence number");
    if (!bs.ok()) {
      Damage(st, name, "record" + Offset(at) + " holds no valid write batch: " + bs.message());
      return;
    }
    ++records;
    writes += batch.Count();
    if (batch.Count() > 0)
      st->held.emplace_back(first_sequence, first_sequence + batch.Count() - 1);
  }
  if (!s.ok()) {
    Damage(st, name, s.message());
    return;
  }
  if (reader.torn_write()) {
    Warn(st, name,
         "torn write" + Offset(reader.torn_tail_offset()) + ": zeros, then " +
             std::to_string(reader.torn_write_records()) +
             " record(s) of a write whose fdatasync never completed (the server keeps every "
             "record before the offset and cuts the rest at start)");
  } else if (reader.torn_tail()) {
    Warn(st, name,
         "torn tail" + Offset(reader.torn_tail_offset()) +
             " (an append cut by a crash; the server truncates it at start)");
  }
  st->report.verified.push_back(BaseName(name) + ": " + std::to_string(records) + " record(s), " +
                                std::to_string(writes) + " write(s)");
}

}  // namespace ebb::storage
