#include "storage/db/version_set.h"

#include <algorithm>

#include "storage/db/filename.h"
#include "storage/format/internal_key.h"
#include "storage/wal/log_reader.h"
#include "storage/wal/log_writer.h"

namespace ebb::storage {

uint64_t Version::LevelBytes(int level) const {
  uint64_t bytes = 0;
  for (const auto& f : files[level]) bytes += f->file_size;
  return bytes;
}

std::vector<std::shared_ptr<const FileMetaData>> Version::Overlapping(
    int level, std::string_view smallest_user, std::string_view largest_user) const {
  std::vector<std::shared_ptr<const FileMetaData>> out;
  for (const auto& f : files[level]) {
    if (CompareUserKeys(ExtractUserKey(f->largest), smallest_user) < 0 ||
        CompareUserKeys(ExtractUserKey(f->smallest), largest_user) > 0) {
      continue;
    }
    out.push_back(f);
  }
  return out;
}

uint64_t Version::CoveringDeletion(std::string_view user_key, uint64_t sequence) const {
  uint64_t floor = 0;
  for (const RangeDeletion& d : range_deletions) {
    if (d.sequence <= sequence && d.sequence > floor && d.range.Contains(user_key)) {
      floor = d.sequence;
    }
  }
  return floor;
}

int Version::DeepestNonEmptyLevel() const {
  for (int level = kNumLevels - 1; level >= 0; level--) {
    if (!files[level].empty()) return level;
  }
  return -1;
}

VersionSet::VersionSet(std::string dir, std::shared_ptr<FileSystem> fs)
    : dir_(std::move(dir)), fs_(std::move(fs)) {
  Install(std::make_shared<Version>());
}

VersionSet::~VersionSet() {
  if (manifest_) manifest_->Close();
}

std::shared_ptr<Version> VersionSet::Apply(const Version& base, const VersionEdit& edit) const {
  auto v = std::make_shared<Version>(base);
  for (const auto& [level, number] : edit.deleted_files()) {
    auto& files = v->files[level];
    std::erase_if(files, [n = number](const auto& f) { return f->number == n; });
  }
  for (const auto& [level, f] : edit.new_files()) {
    v->files[level].push_back(std::make_shared<const FileMetaData>(f));
  }
  for (const RangeDeletion& d : edit.range_deletions()) v->range_deletions.push_back(d);
  for (const RangeDeletion& d : edit.retired_range_deletions()) {
    std::erase(v->range_deletions, d);
  }
  for (const PurgeHint& h : edit.purge_hints()) v->purge_hints.push_back(h);
  for (const PurgeHint& h : edit.retired_purge_hints()) std::erase(v->purge_hints, h);
  std::sort(v->files[0].begin(), v->files[0].end(),
            [](const auto& a, const auto& b) { return a->number > b->number; });
  for (int level = 1; level < kNumLevels; level++) {
    std::sort(v->files[level].begin(), v->files[level].end(), [](const auto& a, const auto& b) {
      return CompareInternalKeys(a->smallest, b->smallest) < 0;
    });
  }
  return v;
}

void VersionSet::SetExpiryClock(int64_t frozen_at) {
  if (frozen_at == VersionEdit::kExpiryRunning) {
    expiry_frozen_at_.reset();
  } else {
    expiry_frozen_at_ = frozen_at;
  }
}

void VersionSet::Install(std::shared_ptr<Version> v) {
  current_ = std::move(v);
  std::erase_if(live_versions_, [](const auto& w) { return w.expired(); });
  live_versions_.push_back(current_);
}

void VersionSet::AddLiveFiles(std::set<uint64_t>* live) {
  std::erase_if(live_versions_, [](const auto& w) { return w.expired(); });
  for (const auto& weak : live_versions_) {
    if (auto v = weak.lock()) {
      for (const auto& files : v->files) {
        for (const auto& f : files) live->insert(f->number);
      }
    }
  }
}

Status ReadCurrent(FileSystem& fs, const std::string& dir, std::string* manifest) {
  const std::string current_name = CurrentFileName(dir);
  if (!fs.FileExists(current_name)) return Status::NotFound(current_name);
  std::unique_ptr<SequentialFile> file;
  Status s = fs.NewSequentialFile(current_name, &file);
  if (!s.ok()) return s;
  std::string contents;
  char scratch[256];
  for (;;) {
    std::string_view chunk;
    s = file->Read(sizeof(scratch), &chunk, scratch);
    if (!s.ok()) return s;
    if (chunk.empty()) break;
    contents.append(chunk);
  }
  if (contents.empty() || contents.back() != '\n') {
    return Status::Corruption(current_name + ": does not end with a newline");
  }
  contents.pop_back();
  uint64_t number;
  FileType type;
  if (!ParseFileName(contents, &number, &type) || type != FileType::kManifest) {
    return Status::Corruption(current_name + ": names no manifest: " + contents);
  }
  *manifest = std::move(contents);
  return Status::OK();
}

Status VersionSet::Recover(bool* exists) {
  std::string current;
  Status s = ReadCurrent(*fs_, dir_, &current);
  *exists = !s.IsNotFound();
  if (!*exists) return Status::OK();
  if (!s.ok()) return s;
  uint64_t number = 0;
  FileType type;
  ParseFileName(current, &number, &type);
  const std::string manifest_name = dir_ + "/" + current;
  if (!fs_->FileExists(manifest_name)) {
    return Status::Corruption(CurrentFileName(dir_) + " names " + current +
                              ", which is missing; nothing was changed. Stop here and run "
                              "`ebb-check --repair " +
                              dir_ + "` to rebuild the manifest from what is readable");
  }
  std::unique_ptr<SequentialFile> mfile;
  s = fs_->NewSequentialFile(manifest_name, &mfile);
  if (!s.ok()) return s;
  LogReader reader(std::move(mfile), manifest_name);
  auto v = std::make_shared<Version>();
  std::string record;
  bool have_next = false, have_seq = false, have_log = false;
  while (reader.ReadRecord(&record, &s)) {
    VersionEdit edit;
    s = edit.DecodeFrom(record, manifest_name);
    if (!s.ok()) return s;
    v = Apply(*v, edit);
    if (edit.log_number()) {
      log_number_ = *edit.log_number();
      have_log = true;
    }
    if (edit.next_file_number()) {
      next_file_number_ = *edit.next_file_number();
      have_next = true;
    }
    if (edit.last_sequence()) {
      last_sequence_ = *edit.last_sequence();
      have_seq = true;
    }
    if (edit.expiry_frozen_at()) SetExpiryClock(*edit.expiry_frozen_at());
  }
  if (!s.ok()) return s;
  // A torn manifest tail is an edit that never returned success: ignoring it is safe.
  if (!have_next || !have_seq || !have_log) {
    return Status::Corruption(manifest_name +
                              ": missing next file number, last sequence or log number");
  }
  MarkFileNumberUsed(number);
  manifest_number_ = number;  // read only: edits go to a new manifest (CreateNewManifest)
  Install(std::move(v));
  return Status::OK();
}

Status WriteManifest(FileSystem& fs, const std::string& dir, uint64_t number,
                     const VersionEdit& snapshot, std::unique_ptr<LogWriter>* manifest) {
  const std::string name = ManifestFileName(dir, number);
  std::unique_ptr<WritableFile> file;
  Status s = fs.NewWritableFile(name, &file);
  if (!s.ok()) return s;
  auto writer = std::make_unique<LogWriter>(std::move(file));
  std::string record;
  snapshot.EncodeTo(&record);
  s = writer->AddRecord(record);
  if (s.ok()) s = writer->Sync();
  // CURRENT is replaced atomically: temp file, fsync, rename, fsync the directory.
  const std::string temp = TempFileName(dir, number);
  if (s.ok()) {
    std::unique_ptr<WritableFile> cur;
    s = fs.NewWritableFile(temp, &cur);
    const std::string line = name.substr(dir.size() + 1) + "\n";
    if (s.ok()) s = cur->Append(line);
    if (s.ok()) s = cur->Sync();
    if (s.ok()) s = cur->Close();
  }
  bool renamed = false;
  if (s.ok()) {
    s = fs.RenameFile(temp, CurrentFileName(dir));
    renamed = s.ok();
  }
  // One directory fsync after the rename makes both new entries durable: the manifest's and
  // CURRENT's. Until it succeeds, a crash finds either CURRENT: the old one naming the old
  // manifest, or the new one naming this one.
  if (s.ok()) s = fs.SyncDir(dir);
  if (!s.ok()) {
    writer->Close();
    fs.RemoveFile(temp);
    // Once renamed, CURRENT names the new manifest (and may do so after a crash): it stays. It
    // holds the same state as the old one; the next manifest that succeeds makes it obsolete.
    if (!renamed) fs.RemoveFile(name);
    return s;
  }
  *manifest = std::move(writer);
  return Status::OK();
}

Status VersionSet::CreateNewManifest() {
  const uint64_t number = NewFileNumber();
  VersionEdit snapshot;
  for (int level = 0; level < kNumLevels; level++) {
    for (const auto& f : current_->files[level]) snapshot.AddFile(level, *f);
  }
  for (const RangeDeletion& d : current_->range_deletions) snapshot.AddRangeDeletion(d);
  for (const PurgeHint& h : current_->purge_hints) snapshot.AddPurgeHint(h);
  if (expiry_frozen_at_) snapshot.SetExpiryFrozenAt(*expiry_frozen_at_);
  snapshot.SetLogNumber(log_number_);
  snapshot.SetNextFileNumber(next_file_number_);
  snapshot.SetLastSequence(last_sequence_);
  std::unique_ptr<LogWriter> writer;
  Status s = WriteManifest(*fs_, dir_, number, snapshot, &writer);
  if (!s.ok()) return s;
  if (manifest_) manifest_->Close();
  manifest_ = std::move(writer);
  manifest_number_ = number;
  return Status::OK();
}

Status VersionSet::LogAndApply(VersionEdit* edit) {
  if (!edit->log_number()) edit->SetLogNumber(log_number_);
  edit->SetNextFileNumber(next_file_number_);
  edit->SetLastSequence(last_sequence_);
  std::string record;
  edit->EncodeTo(&record);
  Status s = manifest_->AddRecord(record);
  if (s.ok()) s = manifest_->Sync();
  if (!s.ok()) return s;
  log_number_ = *edit->log_number();
  if (edit->expiry_frozen_at()) SetExpiryClock(*edit->expiry_frozen_at());
  Install(Apply(*current_, *edit));
  return Status::OK();
}

}  // namespace ebb::storage
