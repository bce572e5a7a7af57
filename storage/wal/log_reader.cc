#include "storage/wal/log_reader.h"

#include <vector>

#include "storage/util/coding.h"
#include "storage/util/crc32c.h"
#include "storage/wal/log_format.h"

namespace ebb::storage {

using log::kBlockSize;
using log::kHeaderSize;
using log::RecordType;

namespace {

// True if a physical record with a valid checksum and a known non-zero type starts at data[0].
bool IsValidRecordAt(std::string_view data) {
  if (data.size() < kHeaderSize) return false;
  const uint8_t type = static_cast<uint8_t>(data[6]);
  if (type == 0 || type > log::kMaxRecordType) return false;
  const size_t length = static_cast<uint8_t>(data[4]) | (static_cast<uint8_t>(data[5]) << 8);
  if (kHeaderSize + length > data.size()) return false;
  const uint32_t expected = crc32c::Unmask(DecodeFixed32(data.data()));
  return crc32c::Value(data.data() + 6, 1 + length) == expected;
}

bool AllZero(std::string_view data) {
  for (char c : data) {
    if (c != 0) return false;
  }
  return true;
}

// True if the header at data[0] (whose stated length runs past the end of `data`) has a valid
// checksum for a length that differs from the stated one in one of its two bytes, within `data`:
// the record is complete and only its length field is damaged, so it is not a torn write.
bool ChecksumFitsAnotherLength(std::string_view data) {
  if (data.size() < kHeaderSize) return false;
  const size_t stated = static_cast<uint8_t>(data[4]) | (static_cast<uint8_t>(data[5]) << 8);
  const uint32_t expected = crc32c::Unmask(DecodeFixed32(data.data()));
  uint32_t crc = crc32c::Value(data.data() + 6, 1);  // the type byte
  for (size_t len = 0; kHeaderSize + len <= data.size(); ++len) {
    const bool one_byte_differs = (len & 0xff) == (stated & 0xff) || (len >> 8) == (stated >> 8);
    if (one_byte_differs && len != stated && crc == expected) return true;
    if (kHeaderSize + len < data.size()) {
      crc = crc32c::Extend(crc, data.data() + kHeaderSize + len, 1);
    }
  }
  return false;
}

// For each position p of `data`, whether a chain of valid physical records starts at p and runs
// to the end of `data` (or to a zero-filled rest). A record's payload may itself contain bytes
// that form a valid record (a stored value may be anything); such an embedded record is not
// followed by a chain to the end unless the payload ends exactly there, so requiring the chain
// keeps a torn record whose payload embeds records from reading as "damage, then valid data".
std::vector<bool> ChainsToEnd(std::string_view data) {
  size_t zero_from = data.size();
  while (zero_from > 0 && data[zero_from - 1] == 0) --zero_from;
  std::vector<bool> reaches(data.size() + 1, false);
  for (size_t p = data.size(); p-- > 0;) {
    if (!IsValidRecordAt(data.substr(p))) continue;
    const size_t length =
        static_cast<uint8_t>(data[p + 4]) | (static_cast<uint8_t>(data[p + 5]) << 8);
    const size_t next = p + kHeaderSize + length;
    reaches[p] = next >= zero_from || reaches[next];
  }
  return reaches;
}

constexpr uint64_t kSectorSize = 512;

// True if `span` (damaged bytes at file offset `offset`) reads as a region a write never
// reached: zeros from its start to the next sector boundary, or an aligned sector of zeros.
bool HasZeroGap(std::string_view span, uint64_t offset, bool starts_at_damage) {
  if (starts_at_damage) {
    const uint64_t to_boundary = kSectorSize - offset % kSectorSize;
    if (to_boundary <= span.size() && AllZero(span.substr(0, to_boundary))) return true;
  }
  for (uint64_t at = (kSectorSize - offset % kSectorSize) % kSectorSize;
       at + kSectorSize <= span.size(); at += kSectorSize) {
    if (AllZero(span.substr(at, kSectorSize))) return true;
  }
  return false;
}

}  // namespace

LogReader::LogReader(std::unique_ptr<SequentialFile> file, std::string name,
                     bool zeros_then_records_are_torn_write)
    : file_(std::move(file)),
      name_(std::move(name)),
      zeros_then_records_are_torn_write_(zeros_then_records_are_torn_write),
      backing_(new char[kBlockSize]) {}

LogReader::~LogReader() = default;

bool LogReader::ReadBlock(Status* status) {
  size_t got = 0;
  while (got < kBlockSize) {
    std::string_view chunk;
    Status s = file_->Read(kBlockSize - got, &chunk, backing_.get() + got);
    if (!s.ok()) {
      *status = s;
      return false;
    }
    if (chunk.empty()) break;
    if (chunk.data() != backing_.get() + got) {
      std::copy(chunk.begin(), chunk.end(), backing_.get() + got);
    }
    got += chunk.size();
  }
  if (got < kBlockSize) eof_ = true;
  buffer_ = std::string_view(backing_.get(), got);
  end_of_buffer_offset_ += got;
  return got > 0;
}

LogReader::Physical LogReader::ReadPhysicalRecord(uint8_t* type, std::string_view* fragment,
                                                  uint64_t* offset, const char** damage_reason,
                                                  Status* status) {
  for (;;) {
    if (buffer_.size() < kHeaderSize) {
      if (!eof_) {
        // The rest of this block is its trailer; move on to the next block.
        if (!AllZero(buffer_)) {
          *offset = end_of_buffer_offset_ - buffer_.size();
          *damage_reason = "non-zero block trailer";
          return Physical::kDamage;
        }
        if (!ReadBlock(status)) return status->ok() ? Physical::kEof : Physical::kIoError;
        continue;
      }
      *offset = end_of_buffer_offset_ - buffer_.size();
      // A short zero trailer exactly at a block end is a clean end; anything else is cut short.
      if (buffer_.empty() || (AllZero(buffer_) && end_of_buffer_offset_ % kBlockSize == 0)) {
        buffer_ = {};
        return Physical::kEof;
      }
      *damage_reason = "truncated record header";
      return Physical::kDamage;
    }
    *offset = end_of_buffer_offset_ - buffer_.size();
    const uint8_t t = static_cast<uint8_t>(buffer_[6]);
    const size_t length =
        static_cast<uint8_t>(buffer_[4]) | (static_cast<uint8_t>(buffer_[5]) << 8);
    if (kHeaderSize + length > buffer_.size()) {
      *damage_reason = eof_ ? "truncated record" : "bad record length";
      return Physical::kDamage;
    }
    if (t == 0) {
      *damage_reason = "zero-filled region";
      return Physical::kDamage;
    }
    const uint32_t expected = crc32c::Unmask(DecodeFixed32(buffer_.data()));
    if (crc32c::Value(buffer_.data() + 6, 1 + length) != expected) {
      *damage_reason = "checksum mismatch";
      return Physical::kDamage;
    }
    if (t > log::kMaxRecordType) {
      *damage_reason = "unknown record type";
      return Physical::kDamage;
    }
    *type = t;
    *fragment = buffer_.substr(kHeaderSize, length);
    buffer_.remove_prefix(kHeaderSize + length);
    return Physical::kRecord;
  }
}

bool LogReader::ReadRecord(std::string* record, Status* status) {
  *status = Status::OK();
  record->clear();
  if (done_) return false;
  scratch_.clear();
  bool in_fragmented = false;
  uint64_t record_start = 0;
  for (;;) {
    uint8_t type = 0;
    std::string_view fragment;
    uint64_t offset = 0;
    const char* reason = nullptr;
    switch (ReadPhysicalRecord(&type, &fragment, &offset, &reason, status)) {
      case Physical::kIoError:
        done_ = true;
        return false;
      case Physical::kEof:
        done_ = true;
        if (in_fragmented) {
          torn_tail_ = true;
          torn_tail_offset_ = last_record_end_;
        }
        return false;
      case Physical::kDamage:
        return HandleDamage(offset, reason, in_fragmented, status);
      case Physical::kRecord:
        break;
    }
    const uint64_t end = end_of_buffer_offset_ - buffer_.size();
    switch (static_cast<RecordType>(type)) {
      case RecordType::kFull:
        if (in_fragmented) {
          // A valid record follows the broken fragmented one: never skip it silently.
          done_ = true;
          *status = Status::Corruption(name_ + ": fragmented record without its end at offset " +
                                       std::to_string(record_start));
          return false;
        }
        record->assign(fragment);
        last_record_end_ = end;
        return true;
      case RecordType::kFirst:
        if (in_fragmented) {
          done_ = true;
          *status = Status::Corruption(name_ + ": fragmented record without its end at offset " +
                                       std::to_string(record_start));
          return false;
        }
        in_fragmented = true;
        record_start = offset;
        scratch_.assign(fragment);
        break;
      case RecordType::kMiddle:
      case RecordType::kLast:
        if (!in_fragmented) {
          done_ = true;
          *status = Status::Corruption(name_ + ": fragment without a first part at offset " +
                                       std::to_string(offset));
          return false;
        }
        scratch_.append(fragment);
        if (static_cast<RecordType>(type) == RecordType::kLast) {
          record->swap(scratch_);
          scratch_.clear();
          last_record_end_ = end;
          return true;
        }
        break;
      case RecordType::kZero:
        break;  // unreachable: rejected as damage by ReadPhysicalRecord
    }
  }
}

bool LogReader::HandleDamage(uint64_t offset, const char* reason, bool in_fragmented,
                             Status* status) {
  done_ = true;
  // A record cut by the end of the file is a torn write, unless its checksum proves it complete.
  const bool intact_but_length_damaged =
      eof_ && buffer_.size() >= kHeaderSize && ChecksumFitsAnotherLength(buffer_);
  bool rest_is_zero = false, zero_gap = false;
  if (intact_but_length_damaged) {
    *status = Status::Corruption(name_ + ": " + reason + " at offset " + std::to_string(offset));
    return false;
  }
  if (ValidRecordFollows(status, &rest_is_zero, &zero_gap)) {
    if (!zeros_then_records_are_torn_write_ || !zero_gap) {
      *status = Status::Corruption(name_ + ": " + reason + " at offset " + std::to_string(offset));
      return false;
    }
    torn_write_records_ = CountRecordsFromHere(status);
    if (!status->ok()) return false;  // I/O error while counting
    torn_write_ = true;
    torn_tail_ = true;
    torn_tail_offset_ = last_record_end_;
    return false;
  }
  if (!status->ok()) return false;  // I/O error while looking ahead
  // Zeros from a record boundary to the end of the file are the unused part of a log written
  // with WritableFile::ZeroFillAhead: the end, not damage.
  if (rest_is_zero && !in_fragmented) return false;
  torn_tail_ = true;
  torn_tail_offset_ = last_record_end_;
  return false;
}

bool LogReader::ValidRecordFollows(Status* status, bool* rest_is_zero, bool* zero_gap) {
  *rest_is_zero = AllZero(buffer_);
  const uint64_t damage = end_of_buffer_offset_ - buffer_.size();
  // Within the damaged block a later record may start anywhere: try every position, counting
  // only records that begin a chain running to the end of the block's data.
  if (!*rest_is_zero) {
    const std::vector<bool> reaches = ChainsToEnd(buffer_);
    for (size_t pos = 1; pos + kHeaderSize <= buffer_.size(); ++pos) {
      if (reaches[pos]) {
        *zero_gap = HasZeroGap(buffer_.substr(0, pos), damage, true);
        buffer_.remove_prefix(pos);
        return true;
      }
    }
  }
  *zero_gap = HasZeroGap(buffer_, damage, true);
  // Every later block starts with a record header.
  while (!eof_) {
    if (!ReadBlock(status)) return false;
    if (IsValidRecordAt(buffer_)) return true;
    if (*rest_is_zero) *rest_is_zero = AllZero(buffer_);
    if (!*zero_gap) *zero_gap = HasZeroGap(buffer_, end_of_buffer_offset_ - buffer_.size(), false);
  }
  return false;
}

uint64_t LogReader::CountRecordsFromHere(Status* status) {
  uint64_t records = 0;
  bool in_fragmented = false;  // a LAST counts only after its FIRST
  for (;;) {
    while (IsValidRecordAt(buffer_)) {
      const auto type = static_cast<RecordType>(buffer_[6]);
      if (type == RecordType::kFull || (type == RecordType::kLast && in_fragmented)) records++;
      in_fragmented = type == RecordType::kFirst || (in_fragmented && type == RecordType::kMiddle);
      const size_t length =
          static_cast<uint8_t>(buffer_[4]) | (static_cast<uint8_t>(buffer_[5]) << 8);
      buffer_.remove_prefix(kHeaderSize + length);
    }
    // The chain ends here: the rest of this block is a trailer, zeros or more damage.
    if (eof_ || !ReadBlock(status) || !IsValidRecordAt(buffer_)) return records;
  }
}

}  // namespace ebb::storage
