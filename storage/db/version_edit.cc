#include "storage/db/version_edit.h"

#include "storage/util/coding.h"

namespace ebb::storage {
namespace {

void EncodeFile(std::string* dst, int level, const FileMetaData& f) {
  std::string body;
  PutVarint32(&body, static_cast<uint32_t>(level));
  PutVarint64(&body, f.number);
  PutVarint64(&body, f.file_size);
  PutLengthPrefixed(&body, f.smallest);
  PutLengthPrefixed(&body, f.largest);
  const TableProperties& p = f.props;
  PutVarint64(&body, p.entries);
  PutVarint64(&body, p.tombstones);
  PutVarint64(&body, ZigZag(p.min_timestamp));
  PutVarint64(&body, ZigZag(p.max_timestamp));
  PutVarint64(&body, ZigZag(p.min_expire_at));
  PutVarint64(&body, ZigZag(p.max_expire_at));
  body.push_back(p.has_non_expiring ? 1 : 0);
  PutVarint64(&body, p.min_sequence);
  PutVarint64(&body, p.max_sequence);
  PutVarint64(&body, p.expired_at_write);
  body.push_back(static_cast<char>(p.meta_features));
  PutLengthPrefixed(dst, body);
}

bool GetZigZag(std::string_view* in, int64_t* v) {
  uint64_t u;
  if (!GetVarint64(in, &u)) return false;
  *v = UnZigZag(u);
  return true;
}

bool DecodeFile(std::string_view body, int* level, FileMetaData* f) {
  uint32_t lvl;
  std::string_view smallest, largest;
  TableProperties& p = f->props;
  if (!GetVarint32(&body, &lvl) || lvl >= static_cast<uint32_t>(kNumLevels) ||
      !GetVarint64(&body, &f->number) || !GetVarint64(&body, &f->file_size) ||
      !GetLengthPrefixed(&body, &smallest) || !GetLengthPrefixed(&body, &largest) ||
      !GetVarint64(&body, &p.entries) || !GetVarint64(&body, &p.tombstones) ||
      !GetZigZag(&body, &p.min_timestamp) || !GetZigZag(&body, &p.max_timestamp) ||
      !GetZigZag(&body, &p.min_expire_at) || !GetZigZag(&body, &p.max_expire_at) || body.empty()) {
    return false;
  }
  p.has_non_expiring = body[0] != 0;
  body.remove_prefix(1);
  if (!GetVarint64(&body, &p.min_sequence) || !GetVarint64(&body, &p.max_sequence) ||
      !GetVarint64(&body, &p.expired_at_write) || body.empty()) {
    return false;
  }
  p.meta_features = static_cast<uint8_t>(body[0]);
  // Bytes after these are fields of a newer version: ignored (forward compatible).
  *level = static_cast<int>(lvl);
  f->smallest.assign(smallest.data(), smallest.size());
  f->largest.assign(largest.data(), largest.size());
  return true;
}

}  // namespace

void VersionEdit::EncodeTo(std::string* dst) const {
  if (log_number_) {
    PutVarint32(dst, kLogNumber);
    PutVarint64(dst, *log_number_);
  }
  if (next_file_number_) {
    PutVarint32(dst, kNextFileNumber);
    PutVarint64(dst, *next_file_number_);
  }
  if (last_sequence_) {
    PutVarint32(dst, kLastSequence);
    PutVarint64(dst, *last_sequence_);
  }
  for (const auto& [level, number] : deleted_files_) {
    PutVarint32(dst, kDeletedFile);
    PutVarint32(dst, static_cast<uint32_t>(level));
    PutVarint64(dst, number);
  }
  for (const auto& [level, f] : new_files_) {
    PutVarint32(dst, kNewFile);
    EncodeFile(dst, level, f);
  }
}

Status VersionEdit::DecodeFrom(std::string_view src, std::string_view where) {
  *this = VersionEdit();
  const auto bad = [&](const char* what) {
    return Status::Corruption(std::string(where) + ": bad version edit (" + what + ")");
  };
  while (!src.empty()) {
    uint32_t tag;
    uint64_t v;
    if (!GetVarint32(&src, &tag)) return bad("tag");
    switch (tag) {
      case kLogNumber:
        if (!GetVarint64(&src, &v)) return bad("log number");
        log_number_ = v;
        break;
      case kNextFileNumber:
        if (!GetVarint64(&src, &v)) return bad("next file number");
        next_file_number_ = v;
        break;
      case kLastSequence:
        if (!GetVarint64(&src, &v)) return bad("last sequence");
        last_sequence_ = v;
        break;
      case kDeletedFile: {
        uint32_t level;
        if (!GetVarint32(&src, &level) || level >= static_cast<uint32_t>(kNumLevels) ||
            !GetVarint64(&src, &v)) {
          return bad("deleted file");
        }
        deleted_files_.emplace_back(static_cast<int>(level), v);
        break;
      }
      case kNewFile: {
        std::string_view body;
        int level;
        FileMetaData f;
        if (!GetLengthPrefixed(&src, &body) || !DecodeFile(body, &level, &f)) {
          return bad("new file");
        }
        new_files_.emplace_back(level, std::move(f));
        break;
      }
      default:
        return bad("unknown tag");
    }
  }
  return Status::OK();
}

}  // namespace ebb::storage
