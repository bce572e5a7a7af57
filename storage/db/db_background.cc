#include "storage/db/db_impl.h"
#include "storage/db/filename.h"

namespace ebb::storage {

void DBImpl::BackgroundLoop() {
  std::unique_lock lock(mu_);
  while (!shutting_down_) bg_cv_.wait(lock);
}

void DBImpl::DeleteObsoleteFiles() {
  std::vector<std::string> names;
  if (!fs_->GetChildren(dir_, &names).ok()) return;
  for (const auto& name : names) {
    uint64_t number;
    FileType type;
    if (!ParseFileName(name, &number, &type)) continue;
    bool keep = true;
    if (type == FileType::kLog)
      keep = number >= versions_.log_number() || number == log_file_number_;
    if (type == FileType::kManifest) keep = number == versions_.manifest_number();
    if (type == FileType::kTemp) keep = false;
    if (!keep) fs_->RemoveFile(dir_ + "/" + name);
  }
}

Status DBImpl::FlushMemtable() { return Status::NotSupported("flush: not available yet"); }
Status DBImpl::CompactAll() { return Status::NotSupported("compaction: not available yet"); }

}  // namespace ebb::storage
