#include "storage/db/version_edit.h"

#include "storage/format/internal_key.h"
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
  body.push_back(p.has_untimed_rows ? 1 : 0);
  PutVarint64(&body, p.per_item_rows);
  PutVarint64(&body, p.whole_file_rows);
  PutVarint64(&body, p.owner_rows);
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
  body.remove_prefix(1);
  // Added later: absent in older manifests (unknown untimed rows: assume some).
  p.has_untimed_rows = true;
  if (!body.empty()) {
    p.has_untimed_rows = body[0] != 0;
    body.remove_prefix(1);
    if (!GetVarint64(&body, &p.per_item_rows) || !GetVarint64(&body, &p.whole_file_rows) ||
        !GetVarint64(&body, &p.owner_rows)) {
      return false;
    }
  }
  // Bytes after these are fields of a newer version: ignored (forward compatible).
  *level = static_cast<int>(lvl);
  f->smallest.assign(smallest.data(), smallest.size());
  f->largest.assign(largest.data(), largest.size());
  return true;
}

void EncodeRange(std::string* dst, const KeyRange& r) {
  PutLengthPrefixed(dst, r.begin);
  PutLengthPrefixed(dst, r.end);
}

bool DecodeRange(std::string_view* in, KeyRange* r) {
  std::string_view begin, end;
  if (!GetLengthPrefixed(in, &begin) || !GetLengthPrefixed(in, &end)) return false;
  r->begin.assign(begin);
  r->end.assign(end);
  return true;
}

void EncodeRangeDeletion(std::string* dst, uint32_t tag, const RangeDeletion& d) {
  PutVarint32(dst, tag);
  EncodeRange(dst, d.range);
  PutVarint64(dst, d.sequence);
}

bool DecodeRangeDeletion(std::string_view* in, RangeDeletion* d) {
  return DecodeRange(in, &d->range) && GetVarint64(in, &d->sequence);
}

void EncodePurgeHint(std::string* dst, uint32_t tag, const PurgeHint& h) {
  PutVarint32(dst, tag);
  EncodeRange(dst, h.range);
  PutVarint64(dst, ZigZag(h.due_ms));
}

bool DecodePurgeHint(std::string_view* in, PurgeHint* h) {
  return DecodeRange(in, &h->range) && GetZigZag(in, &h->due_ms);
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
  for (const RangeDeletion& d : range_deletions_) EncodeRangeDeletion(dst, kRangeDeletion, d);
  for (const RangeDeletion& d : retired_range_deletions_) {
    EncodeRangeDeletion(dst, kRangeDeletionDone, d);
  }
  for (const PurgeHint& h : purge_hints_) EncodePurgeHint(dst, kPurgeHint, h);
  for (const PurgeHint& h : retired_purge_hints_) EncodePurgeHint(dst, kPurgeHintDone, h);
  if (expiry_frozen_at_) {
    PutVarint32(dst, kExpiryClock);
    PutVarint64(dst, ZigZag(*expiry_frozen_at_));
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
      case kRangeDeletion:
      case kRangeDeletionDone: {
        RangeDeletion d;
        if (!DecodeRangeDeletion(&src, &d)) return bad("range deletion");
        (tag == kRangeDeletion ? range_deletions_ : retired_range_deletions_).push_back(d);
        break;
      }
      case kPurgeHint:
      case kPurgeHintDone: {
        PurgeHint h;
        if (!DecodePurgeHint(&src, &h)) return bad("purge hint");
        (tag == kPurgeHint ? purge_hints_ : retired_purge_hints_).push_back(h);
        break;
      }
      case kExpiryClock: {
        int64_t at;
        if (!GetZigZag(&src, &at)) return bad("expiry clock");
        expiry_frozen_at_ = at;
        break;
      }
      default:
        return bad("unknown tag");
    }
  }
  return Status::OK();
}

}  // namespace ebb::storage
