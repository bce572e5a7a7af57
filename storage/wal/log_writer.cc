#include "storage/wal/log_writer.h"

#include <algorithm>

#include "storage/util/coding.h"
#include "storage/util/crc32c.h"

namespace ebb::storage {

using log::kBlockSize;
using log::kHeaderSize;
using log::kMaxRecordType;
using log::RecordType;

LogWriter::LogWriter(std::unique_ptr<WritableFile> file, uint64_t initial_offset)
    : file_(std::move(file)) {
  const uint64_t start = initial_offset != 0 ? initial_offset : file_->Size();
  block_offset_ = static_cast<size_t>(start % kBlockSize);
}

LogWriter::~LogWriter() = default;

Status LogWriter::AddRecord(std::string_view record) {
  if (closed_) return Status::IOError("log writer is closed");
  if (!error_.ok()) return error_;
  const char* ptr = record.data();
  size_t left = record.size();
  bool begin = true;
  Status s;
  do {
    const size_t leftover = kBlockSize - block_offset_;
    if (leftover < kHeaderSize) {
      // Too little room for a header: pad the block's trailer with zeros.
      if (leftover > 0) {
        static constexpr char kZeros[kHeaderSize] = {};
        s = file_->Append(std::string_view(kZeros, leftover));
        if (!s.ok()) break;
      }
      block_offset_ = 0;
    }
    const size_t avail = kBlockSize - block_offset_ - kHeaderSize;
    const size_t fragment = std::min(left, avail);
    const bool end = fragment == left;
    const RecordType type = begin && end ? RecordType::kFull
                            : begin      ? RecordType::kFirst
                            : end        ? RecordType::kLast
                                         : RecordType::kMiddle;
    s = EmitPhysicalRecord(type, ptr, fragment);
    ptr += fragment;
    left -= fragment;
    begin = false;
  } while (s.ok() && left > 0);
  if (!s.ok()) error_ = s;
  return s;
}

namespace {

// crc32c of each record type's byte, the start of every record's checksum.
struct TypeCrcs {
  uint32_t crc[kMaxRecordType + 1];
  TypeCrcs() {
    for (int t = 0; t <= kMaxRecordType; t++) {
      const auto byte = static_cast<char>(t);
      crc[t] = crc32c::Extend(0, &byte, 1);
    }
  }
};
// Built on first use: crc32c picks its implementation at run time.
uint32_t TypeCrc(uint8_t type) {
  static const TypeCrcs crcs;
  return crcs.crc[type];
}

}  // namespace

Status LogWriter::EmitPhysicalRecord(RecordType type, const char* data, size_t length) {
  char header[kHeaderSize];
  const auto type_byte = static_cast<uint8_t>(type);
  const uint32_t crc = crc32c::Extend(TypeCrc(type_byte), data, length);
  EncodeFixed32(header, crc32c::Mask(crc));
  header[4] = static_cast<char>(length & 0xff);
  header[5] = static_cast<char>(length >> 8);
  header[6] = static_cast<char>(type_byte);
  Status s = file_->Append(std::string_view(header, kHeaderSize));
  if (s.ok() && length > 0) s = file_->Append(std::string_view(data, length));
  block_offset_ += kHeaderSize + length;
  return s;
}

Status LogWriter::Flush() {
  if (closed_) return Status::IOError("log writer is closed");
  if (!error_.ok()) return error_;
  Status s = file_->Flush();
  if (!s.ok()) error_ = s;
  return s;
}

Status LogWriter::Sync() {
  if (closed_) return Status::IOError("log writer is closed");
  if (!error_.ok()) return error_;
  Status s = file_->Sync();
  if (!s.ok()) error_ = s;
  return s;
}

uint64_t LogWriter::Size() const { return file_->Size(); }

Status LogWriter::Close() {
  if (closed_) return Status::OK();
  closed_ = true;
  Status s = file_->Close();
  return error_.ok() ? s : error_;
}

}  // namespace ebb::storage
