#include "storage/replication_snapshot.h"

#include <algorithm>

#include "storage/util/coding.h"

namespace ebb::storage {

Status SnapshotSource::Open(std::shared_ptr<FileSystem> fs, const std::string& dir,
                            uint64_t sequence, std::vector<std::string> files,
                            std::unique_ptr<SnapshotSource>* source) {
  std::unique_ptr<SnapshotSource> s(new SnapshotSource());
  s->fs_ = std::move(fs);
  s->dir_ = dir;
  s->pending_.assign(kSnapshotMagic);
  PutFixed64(&s->pending_, sequence);
  PutFixed32(&s->pending_, static_cast<uint32_t>(files.size()));
  s->size_ = s->pending_.size();
  for (const std::string& name : files) {
    uint64_t bytes = 0;
    Status st = s->fs_->GetFileSize(dir + "/" + name, &bytes);
    if (!st.ok()) return st;
    s->sizes_.push_back(bytes);
    std::string header;
    PutLengthPrefixed(&header, name);
    s->size_ += header.size() + 8 + bytes;
  }
  s->files_ = std::move(files);
  *source = std::move(s);
  return Status::OK();
}

Status SnapshotSource::Read(size_t max, std::string* out) {
  const size_t start = out->size();
  while (out->size() - start < max && !done()) {
    const size_t room = max - (out->size() - start);
    if (!pending_.empty()) {
      const size_t n = std::min(room, pending_.size());
      out->append(pending_, 0, n);
      pending_.erase(0, n);
      produced_ += n;
      continue;
    }
    if (file_ == nullptr) {
      // The next file: its header, then its bytes.
      const std::string& name = files_[next_file_];
      Status s = fs_->NewSequentialFile(dir_ + "/" + name, &file_);
      if (!s.ok()) return s;
      PutLengthPrefixed(&pending_, name);
      PutFixed64(&pending_, sizes_[next_file_]);
      file_left_ = sizes_[next_file_];
      next_file_++;
      continue;
    }
    if (file_left_ == 0) {
      file_.reset();
      continue;
    }
    const size_t want = static_cast<size_t>(std::min<uint64_t>(room, file_left_));
    scratch_.resize(want);
    std::string_view got;
    Status s = file_->Read(want, &got, scratch_.data());
    if (!s.ok()) return s;
    if (got.empty()) return Status::IOError("snapshot: " + dir_ + ": a file shrank while sent");
    out->append(got);
    file_left_ -= got.size();
    produced_ += got.size();
  }
  return Status::OK();
}

SnapshotSink::SnapshotSink(std::shared_ptr<FileSystem> fs, std::string dir)
    : fs_(std::move(fs)), dir_(std::move(dir)) {}

Status SnapshotSink::Feed(std::string_view bytes) {
  if (state_ == State::kFailed) return Status::Corruption("snapshot: the archive was refused");
  Status s;
  if (header_.empty()) {
    s = Consume(bytes);
  } else {
    // A header was split across pieces: join it with what follows.
    std::string joined;
    joined.swap(header_);
    joined.append(bytes);
    s = Consume(joined);
  }
  if (!s.ok()) state_ = State::kFailed;
  return s;
}

Status SnapshotSink::Consume(std::string_view in) {
  for (;;) {
    switch (state_) {
      case State::kFileBytes: {
        if (in.empty()) return Status::OK();
        const size_t n = static_cast<size_t>(std::min<uint64_t>(in.size(), file_left_));
        Status s = file_->Append(in.substr(0, n));
        if (!s.ok()) return s;
        in.remove_prefix(n);
        file_left_ -= n;
        if (file_left_ == 0) {
          s = FinishFile();
          if (!s.ok()) return s;
        }
        break;
      }
      case State::kHeader: {
        if (in.size() < kSnapshotMagic.size() + 12) {
          header_.assign(in);
          return Status::OK();
        }
        if (in.substr(0, kSnapshotMagic.size()) != kSnapshotMagic) {
          return Status::Corruption("snapshot: not an ebb snapshot (bad magic)");
        }
        in.remove_prefix(kSnapshotMagic.size());
        GetFixed64(&in, &sequence_);
        GetFixed32(&in, &files_left_);
        Status s = fs_->CreateDirIfMissing(dir_);
        if (!s.ok()) return s;
        state_ = State::kFileHeader;
        break;
      }
      case State::kFileHeader: {
        if (files_left_ == 0) {
          Status s = fs_->SyncDir(dir_);
          if (!s.ok()) return s;
          state_ = State::kDone;
          break;
        }
        if (in.empty()) return Status::OK();
        std::string_view rest = in;
        std::string_view name;
        uint64_t size = 0;
        if (!GetLengthPrefixed(&rest, &name) || !GetFixed64(&rest, &size)) {
          if (in.size() > kMaxFileHeader) return Status::Corruption("snapshot: bad file header");
          header_.assign(in);  // not all there yet
          return Status::OK();
        }
        if (name.empty() || name.find('/') != std::string_view::npos || name == "." ||
            name == "..") {
          return Status::Corruption("snapshot: bad file name");
        }
        in = rest;
        names_.emplace_back(name);
        Status s = fs_->NewWritableFile(dir_ + "/" + names_.back(), &file_);
        if (!s.ok()) return s;
        file_left_ = size;
        files_left_--;
        state_ = State::kFileBytes;
        if (size == 0) {
          s = FinishFile();
          if (!s.ok()) return s;
        }
        break;
      }
      case State::kDone:
        if (!in.empty()) return Status::Corruption("snapshot: bytes after the archive's end");
        return Status::OK();
      case State::kFailed:
        return Status::Corruption("snapshot: the archive was refused");
    }
  }
}

Status SnapshotSink::FinishFile() {
  Status s = file_->Sync();
  if (s.ok()) s = file_->Close();
  file_.reset();
  state_ = State::kFileHeader;
  return s;
}

}  // namespace ebb::storage
