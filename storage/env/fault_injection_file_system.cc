#include "storage/env/fault_injection_file_system.h"

#include <algorithm>
#include <cstring>
#include <functional>
#include <random>
#include <utility>

namespace ebb::storage {
namespace {

constexpr uint64_t kPageSize = 4096;
constexpr uint64_t kMaxReplacedBytes = 1 << 20;  // a rename keeps what it replaced up to this

// The whole content of `path` through `fs`, from `offset` on.
Status ReadFrom(FileSystem& fs, const std::string& path, uint64_t offset, std::string* out) {
  std::unique_ptr<SequentialFile> file;
  Status s = fs.NewSequentialFile(path, &file);
  if (s.ok() && offset > 0) s = file->Skip(offset);
  std::string scratch(64 << 10, '\0');
  while (s.ok()) {
    std::string_view chunk;
    s = file->Read(scratch.size(), &chunk, scratch.data());
    if (!s.ok() || chunk.empty()) break;
    out->append(chunk);
  }
  return s;
}

Status WriteWhole(FileSystem& fs, const std::string& path, std::string_view data, bool append) {
  std::unique_ptr<WritableFile> file;
  Status s = append ? fs.NewAppendableFile(path, &file) : fs.NewWritableFile(path, &file);
  if (s.ok()) s = file->Append(data);
  if (s.ok()) s = file->Close();
  return s;
}

}  // namespace

class FaultInjectionWritableFile final : public WritableFile {
 public:
  FaultInjectionWritableFile(FaultInjectionFileSystem* fs, std::string path,
                             std::unique_ptr<WritableFile> base)
      : fs_(fs), path_(std::move(path)), base_(std::move(base)) {}

  Status Append(std::string_view data) override {
    Status s;
    const auto hold = fs_->HoldUnfrozen("write", path_, &s);
    if (!hold) return s;
    fs_->CountAppend();
    s = fs_->CheckAppend(path_, base_->Size() + data.size());
    return s.ok() ? base_->Append(data) : s;
  }
  Status Flush() override {
    return WriteOut("write", [this] { return base_->Flush(); });
  }
  Status Sync() override {
    Status s;
    const auto hold = fs_->HoldUnfrozen("fdatasync", path_, &s);
    if (!hold) return s;
    s = fs_->CheckFlush(path_);
    if (s.ok()) s = fs_->CheckSync(path_);
    if (s.ok()) s = base_->Sync();
    if (s.ok()) {
      fs_->RecordHandedToOs(path_, base_->Size());
      // fdatasync makes every byte the OS has for this file durable, including bytes written
      // out through other handles.
      fs_->RecordDurable(path_);
    }
    return s;
  }
  Status Close() override {
    return WriteOut("close", [this] { return base_->Close(); });
  }
  uint64_t Size() const override { return base_->Size(); }
  void ZeroFillAhead(uint64_t chunk_bytes) override { base_->ZeroFillAhead(chunk_bytes); }

 private:
  // Runs `write_out` (the base's Flush or Close) unless frozen or failing, then records what
  // the file has handed to the OS.
  template <typename WriteOutFn>
  Status WriteOut(std::string_view call, WriteOutFn write_out) {
    Status s;
    const auto hold = fs_->HoldUnfrozen(call, path_, &s);
    if (!hold) return s;
    s = fs_->CheckFlush(path_);
    if (s.ok()) s = write_out();
    if (s.ok()) fs_->RecordHandedToOs(path_, base_->Size());
    return s;
  }

  FaultInjectionFileSystem* const fs_;
  const std::string path_;
  const std::unique_ptr<WritableFile> base_;
};

FaultInjectionFileSystem::FaultInjectionFileSystem(std::shared_ptr<FileSystem> base)
    : base_(std::move(base)) {}

void FaultInjectionFileSystem::SetPathFilter(std::string substring) {
  std::lock_guard<std::mutex> lock(mu_);
  path_filter_ = std::move(substring);
}

bool FaultInjectionFileSystem::Matches(const std::string& path) {
  std::lock_guard<std::mutex> lock(mu_);
  return path_filter_.empty() || path.find(path_filter_) != std::string::npos;
}

void FaultInjectionFileSystem::SetHoldNewFiles(std::string substring) {
  std::lock_guard<std::mutex> lock(mu_);
  hold_new_files_ = std::move(substring);
  hold_cv_.notify_all();
}

int FaultInjectionFileSystem::held_creations() const {
  std::lock_guard<std::mutex> lock(mu_);
  return held_creations_;
}

void FaultInjectionFileSystem::WaitWhileHeld(const std::string& path) {
  std::unique_lock<std::mutex> lock(mu_);
  auto held = [&] {
    return !hold_new_files_.empty() && path.find(hold_new_files_) != std::string::npos &&
           !frozen_.load();
  };
  if (!held()) return;
  held_creations_++;
  hold_cv_.wait(lock, [&] { return !held(); });
  held_creations_--;
}

void FaultInjectionFileSystem::Freeze() {
  {
    std::unique_lock<std::shared_mutex> lock(freeze_mu_);
    frozen_.store(true);
  }
  std::lock_guard<std::mutex> lock(mu_);
  hold_cv_.notify_all();
}

void FaultInjectionFileSystem::Thaw() {
  std::unique_lock<std::shared_mutex> lock(freeze_mu_);
  frozen_.store(false);
}

std::optional<std::shared_lock<std::shared_mutex>> FaultInjectionFileSystem::HoldUnfrozen(
    std::string_view call, const std::string& path, Status* s) {
  std::shared_lock<std::shared_mutex> lock(freeze_mu_);
  if (!frozen_.load()) return lock;
  *s = Status::IOError(std::string(call) + " " + path + ": power cut");
  return std::nullopt;
}

Status FaultInjectionFileSystem::Fault(std::string_view call, const std::string& path) const {
  const int err = fault_errno_.load();
  std::string msg(call);
  msg += ' ';
  msg += path;
  msg += ": ";
  msg += err == 0 ? "injected fault" : std::strerror(err);
  return Status::IOError(msg);
}

Status FaultInjectionFileSystem::CheckWrite(const std::string& path) {
  if (!fail_writes_.load() || !Matches(path)) return Status::OK();
  writes_failed_.fetch_add(1);
  return Fault("write", path);
}

Status FaultInjectionFileSystem::CheckAppend(const std::string& path, uint64_t size_after) {
  const uint64_t max_bytes = max_file_bytes_.load();
  if (max_bytes > 0 && size_after > max_bytes && Matches(path)) {
    writes_failed_.fetch_add(1);
    return Fault("write", path);
  }
  if (append_budget_.load() >= 0 && Matches(path)) {
    int64_t budget = append_budget_.load();
    while (budget > 0 && !append_budget_.compare_exchange_weak(budget, budget - 1)) {
    }
    if (budget == 0) {
      fail_writes_.store(true);
      append_budget_.store(-1);
    }
  }
  return CheckWrite(path);
}

Status FaultInjectionFileSystem::CheckFlush(const std::string& path) {
  Status s = CheckWrite(path);
  if (!s.ok() || !fail_flushes_.load() || !Matches(path)) return s;
  writes_failed_.fetch_add(1);
  return Fault("write", path);
}

Status FaultInjectionFileSystem::CheckSync(const std::string& path) {
  syncs_.fetch_add(1);
  if (!fail_syncs_.load() || !Matches(path)) return Status::OK();
  syncs_failed_.fetch_add(1);
  return Fault("fdatasync", path);
}

Status FaultInjectionFileSystem::CheckNewFile(const std::string& path) {
  if (!fail_new_files_.load() || !Matches(path)) return Status::OK();
  writes_failed_.fetch_add(1);
  return Fault("open", path);
}

void FaultInjectionFileSystem::RecordHandedToOs(const std::string& path, uint64_t size) {
  std::lock_guard<std::mutex> lock(mu_);
  FileState& f = files_[path];
  f.handed_to_os = std::max(f.handed_to_os, size);
}

void FaultInjectionFileSystem::RecordDurable(const std::string& path) {
  std::lock_guard<std::mutex> lock(mu_);
  FileState& f = files_[path];
  f.durable = std::max(f.durable, f.handed_to_os);
}

std::string FaultInjectionFileSystem::DirOf(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

FaultInjectionFileSystem::DropReport FaultInjectionFileSystem::last_drop() const {
  std::lock_guard<std::mutex> lock(mu_);
  return last_drop_;
}

Status FaultInjectionFileSystem::DropUnsyncedData(const DropOptions& options) {
  std::map<std::string, FileState> files;
  {
    std::lock_guard<std::mutex> lock(mu_);
    files = files_;
  }
  DropReport report;
  Status first;
  for (const auto& [path, state] : files) {
    Status s = DropFileData(path, state.durable, options, &report);
    if (!s.ok() && first.ok()) first = s;
  }
  if (options.directory_entries) {
    Status s = UndoDirectoryEntries(&report);
    if (!s.ok() && first.ok()) first = s;
  }
  std::lock_guard<std::mutex> lock(mu_);
  files_.clear();  // what is on disk now is what survived: durable
  dir_log_.clear();
  last_drop_ = report;
  return first;
}

Status FaultInjectionFileSystem::DropFileData(const std::string& path, uint64_t durable,
                                              const DropOptions& options, DropReport* report) {
  uint64_t size = 0;
  if (!base_->GetFileSize(path, &size).ok() || size <= durable) return Status::OK();
  if (!options.torn_pages) {
    report->bytes_lost += size - durable;
    return base_->TruncateFile(path, durable);
  }
  std::string tail;
  Status s = ReadFrom(*base_, path, durable, &tail);
  if (!s.ok()) return s;
  std::mt19937_64 rng(options.seed ^ std::hash<std::string>()(path));
  uint64_t kept_end = durable;  // the end of the last page that reached the disk
  for (uint64_t page = durable / kPageSize * kPageSize; page < size; page += kPageSize) {
    const uint64_t from = std::max(page, durable), to = std::min(page + kPageSize, size);
    if (rng() & 1) {
      kept_end = to;
      continue;
    }
    std::fill(tail.begin() + static_cast<ptrdiff_t>(from - durable),
              tail.begin() + static_cast<ptrdiff_t>(to - durable), '\0');
    report->bytes_lost += to - from;
  }
  report->bytes_lost += size - kept_end;
  s = base_->TruncateFile(path, durable);
  if (s.ok() && kept_end > durable) {
    s = WriteWhole(*base_, path, std::string_view(tail).substr(0, kept_end - durable), true);
  }
  return s;
}

Status FaultInjectionFileSystem::UndoDirectoryEntries(DropReport* report) {
  std::map<std::string, std::vector<DirEntryChange>> log;
  {
    std::lock_guard<std::mutex> lock(mu_);
    log = dir_log_;
  }
  Status first;
  auto note = [&first](const Status& s) {
    if (!s.ok() && first.ok()) first = s;
  };
  for (auto& [dir, changes] : log) {
    for (auto it = changes.rbegin(); it != changes.rend(); ++it) {
      if (!it->created.empty()) {
        if (!base_->FileExists(it->created)) continue;
        note(base_->RemoveFile(it->created));
        report->files_removed++;
        continue;
      }
      if (!base_->FileExists(it->renamed_to)) continue;
      note(base_->RenameFile(it->renamed_to, it->renamed_from));
      if (it->replaced) note(WriteWhole(*base_, it->renamed_to, *it->replaced, false));
      report->renames_undone++;
    }
  }
  return first;
}

Status FaultInjectionFileSystem::NewWritableFile(const std::string& path,
                                                 std::unique_ptr<WritableFile>* file) {
  return OpenForWriting(path, /*append=*/false, file);
}

Status FaultInjectionFileSystem::NewAppendableFile(const std::string& path,
                                                   std::unique_ptr<WritableFile>* file) {
  return OpenForWriting(path, /*append=*/true, file);
}

Status FaultInjectionFileSystem::OpenForWriting(const std::string& path, bool append,
                                                std::unique_ptr<WritableFile>* file) {
  WaitWhileHeld(path);
  Status s;
  const auto hold = HoldUnfrozen("open", path, &s);
  if (!hold) return s;
  s = CheckNewFile(path);
  const bool existed = s.ok() && base_->FileExists(path);
  std::unique_ptr<WritableFile> base;
  if (s.ok()) {
    s = append ? base_->NewAppendableFile(path, &base) : base_->NewWritableFile(path, &base);
  }
  if (!s.ok()) return s;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (append) {
      // What was in the file before we opened it counts as durable.
      files_.try_emplace(path, FileState{base->Size(), base->Size()});
    } else {
      files_[path] = FileState();  // truncated: nothing of it is durable
    }
    if (!existed) dir_log_[DirOf(path)].push_back(DirEntryChange{.created = path});
  }
  *file = std::make_unique<FaultInjectionWritableFile>(this, path, std::move(base));
  return Status::OK();
}

Status FaultInjectionFileSystem::NewSequentialFile(const std::string& path,
                                                   std::unique_ptr<SequentialFile>* file) {
  return base_->NewSequentialFile(path, file);
}

Status FaultInjectionFileSystem::NewRandomAccessFile(const std::string& path,
                                                     std::unique_ptr<RandomAccessFile>* file) {
  return base_->NewRandomAccessFile(path, file);
}

Status FaultInjectionFileSystem::NewDirectRandomAccessFile(
    const std::string& path, std::unique_ptr<RandomAccessFile>* file) {
  return base_->NewDirectRandomAccessFile(path, file);
}

bool FaultInjectionFileSystem::FileExists(const std::string& path) {
  return base_->FileExists(path);
}

Status FaultInjectionFileSystem::GetChildren(const std::string& dir,
                                             std::vector<std::string>* names) {
  return base_->GetChildren(dir, names);
}

Status FaultInjectionFileSystem::GetFileSize(const std::string& path, uint64_t* size) {
  return base_->GetFileSize(path, size);
}

Status FaultInjectionFileSystem::RemoveFile(const std::string& path) {
  Status s;
  const auto hold = HoldUnfrozen("unlink", path, &s);
  if (!hold) return s;
  s = base_->RemoveFile(path);
  if (s.ok()) {
    std::lock_guard<std::mutex> lock(mu_);
    files_.erase(path);
    // A file created and removed since the last directory fsync leaves nothing to undo.
    std::erase_if(dir_log_[DirOf(path)], [&](const auto& c) { return c.created == path; });
  }
  return s;
}

Status FaultInjectionFileSystem::RenameFile(const std::string& from, const std::string& to) {
  Status s;
  const auto hold = HoldUnfrozen("rename", from, &s);
  if (!hold) return s;
  std::optional<std::string> replaced;
  uint64_t size = 0;
  if (base_->GetFileSize(to, &size).ok() && size <= kMaxReplacedBytes) {
    std::string old;
    if (ReadFrom(*base_, to, 0, &old).ok()) replaced = std::move(old);
  }
  s = base_->RenameFile(from, to);
  if (s.ok()) {
    std::lock_guard<std::mutex> lock(mu_);
    files_.erase(to);
    auto it = files_.find(from);
    if (it != files_.end()) {
      files_[to] = it->second;
      files_.erase(from);
    }
    dir_log_[DirOf(to)].push_back(
        DirEntryChange{.renamed_from = from, .renamed_to = to, .replaced = std::move(replaced)});
  }
  return s;
}

Status FaultInjectionFileSystem::LinkFile(const std::string& from, const std::string& to) {
  Status s;
  const auto hold = HoldUnfrozen("link", to, &s);
  if (!hold) return s;
  return base_->LinkFile(from, to);
}

Status FaultInjectionFileSystem::TruncateFile(const std::string& path, uint64_t size) {
  Status s;
  const auto hold = HoldUnfrozen("truncate", path, &s);
  if (!hold) return s;
  s = base_->TruncateFile(path, size);
  if (s.ok()) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = files_.find(path);
    if (it != files_.end()) {
      it->second.durable = std::min(it->second.durable, size);
      it->second.handed_to_os = std::min(it->second.handed_to_os, size);
    }
  }
  return s;
}

Status FaultInjectionFileSystem::CreateDirIfMissing(const std::string& dir) {
  Status s;
  const auto hold = HoldUnfrozen("mkdir", dir, &s);
  if (!hold) return s;
  return base_->CreateDirIfMissing(dir);
}

Status FaultInjectionFileSystem::SyncDir(const std::string& dir) {
  Status s;
  const auto hold = HoldUnfrozen("fsync", dir, &s);
  if (!hold) return s;
  syncs_.fetch_add(1);
  if (fail_dir_syncs_.load() || (fail_syncs_.load() && Matches(dir))) {
    syncs_failed_.fetch_add(1);
    return Fault("fsync", dir);
  }
  s = base_->SyncDir(dir);
  if (s.ok()) {
    std::lock_guard<std::mutex> lock(mu_);
    dir_log_.erase(dir);
  }
  return s;
}

Status FaultInjectionFileSystem::LockFile(const std::string& path,
                                          std::unique_ptr<FileLock>* lock) {
  return base_->LockFile(path, lock);
}

}  // namespace ebb::storage
