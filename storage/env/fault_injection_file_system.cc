#include "storage/env/fault_injection_file_system.h"

#include <cstring>
#include <utility>

namespace ebb::storage {

class FaultInjectionWritableFile final : public WritableFile {
 public:
  FaultInjectionWritableFile(FaultInjectionFileSystem* fs, std::string path,
                             std::unique_ptr<WritableFile> base)
      : fs_(fs), path_(std::move(path)), base_(std::move(base)) {}

  Status Append(std::string_view data) override {
    fs_->CountAppend();
    Status s = fs_->CheckAppend(path_);
    return s.ok() ? base_->Append(data) : s;
  }
  Status Flush() override {
    Status s = fs_->CheckFlush(path_);
    return s.ok() ? base_->Flush() : s;
  }
  Status Sync() override {
    Status s = fs_->CheckFlush(path_);
    if (s.ok()) s = fs_->CheckSync(path_);
    if (s.ok()) s = base_->Sync();
    // fdatasync makes every byte the OS has for this file durable, including bytes written
    // through other handles: record the file's real size, not this handle's.
    if (s.ok()) fs_->RecordSyncedFileSize(path_);
    return s;
  }
  Status Close() override {
    Status s = fs_->CheckFlush(path_);
    return s.ok() ? base_->Close() : s;
  }
  uint64_t Size() const override { return base_->Size(); }
  void ZeroFillAhead(uint64_t chunk_bytes) override { base_->ZeroFillAhead(chunk_bytes); }

 private:
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

Status FaultInjectionFileSystem::CheckAppend(const std::string& path) {
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

void FaultInjectionFileSystem::RecordSyncedFileSize(const std::string& path) {
  uint64_t size = 0;
  if (base_->GetFileSize(path, &size).ok()) RecordSynced(path, size);
}

void FaultInjectionFileSystem::RecordSynced(const std::string& path, uint64_t size) {
  std::lock_guard<std::mutex> lock(mu_);
  synced_size_[path] = size;
}

Status FaultInjectionFileSystem::DropUnsyncedData() {
  std::map<std::string, uint64_t> files;
  {
    std::lock_guard<std::mutex> lock(mu_);
    files = synced_size_;
  }
  Status first;
  for (const auto& [path, size] : files) {
    uint64_t actual = 0;
    if (!base_->GetFileSize(path, &actual).ok() || actual <= size) continue;
    Status s = base_->TruncateFile(path, size);
    if (!s.ok() && first.ok()) first = s;
  }
  return first;
}

Status FaultInjectionFileSystem::NewWritableFile(const std::string& path,
                                                 std::unique_ptr<WritableFile>* file) {
  std::unique_ptr<WritableFile> base;
  Status s = CheckNewFile(path);
  if (s.ok()) s = base_->NewWritableFile(path, &base);
  if (!s.ok()) return s;
  RecordSynced(path, 0);
  *file = std::make_unique<FaultInjectionWritableFile>(this, path, std::move(base));
  return Status::OK();
}

Status FaultInjectionFileSystem::NewAppendableFile(const std::string& path,
                                                   std::unique_ptr<WritableFile>* file) {
  std::unique_ptr<WritableFile> base;
  Status s = CheckNewFile(path);
  if (s.ok()) s = base_->NewAppendableFile(path, &base);
  if (!s.ok()) return s;
  {
    // What was in the file before we opened it counts as durable.
    std::lock_guard<std::mutex> lock(mu_);
    synced_size_.try_emplace(path, base->Size());
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
  Status s = base_->RemoveFile(path);
  if (s.ok()) {
    std::lock_guard<std::mutex> lock(mu_);
    synced_size_.erase(path);
  }
  return s;
}

Status FaultInjectionFileSystem::RenameFile(const std::string& from, const std::string& to) {
  Status s = base_->RenameFile(from, to);
  if (s.ok()) {
    std::lock_guard<std::mutex> lock(mu_);
    synced_size_.erase(to);
    auto it = synced_size_.find(from);
    if (it != synced_size_.end()) {
      synced_size_[to] = it->second;
      synced_size_.erase(from);
    }
  }
  return s;
}

Status FaultInjectionFileSystem::TruncateFile(const std::string& path, uint64_t size) {
  Status s = base_->TruncateFile(path, size);
  if (s.ok()) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = synced_size_.find(path);
    if (it != synced_size_.end() && it->second > size) it->second = size;
  }
  return s;
}

Status FaultInjectionFileSystem::CreateDirIfMissing(const std::string& dir) {
  return base_->CreateDirIfMissing(dir);
}

Status FaultInjectionFileSystem::SyncDir(const std::string& dir) {
  syncs_.fetch_add(1);
  if (fail_dir_syncs_.load() || (fail_syncs_.load() && Matches(dir))) {
    syncs_failed_.fetch_add(1);
    return Fault("fsync", dir);
  }
  return base_->SyncDir(dir);
}

Status FaultInjectionFileSystem::LockFile(const std::string& path,
                                          std::unique_ptr<FileLock>* lock) {
  return base_->LockFile(path, lock);
}

}  // namespace ebb::storage
