#include "storage/table/format.h"

#include <lz4.h>
#include <zstd.h>

#include "storage/util/coding.h"
#include "storage/util/crc32c.h"

namespace ebb::storage {

void BlockHandle::EncodeTo(std::string* dst) const {
  PutVarint64(dst, offset);
  PutVarint64(dst, size);
}

bool BlockHandle::DecodeFrom(std::string_view* input) {
  return GetVarint64(input, &offset) && GetVarint64(input, &size);
}

void Footer::EncodeTo(std::string* dst) const {
  const size_t start = dst->size();
  metaindex_handle.EncodeTo(dst);
  index_handle.EncodeTo(dst);
  dst->resize(start + 2 * BlockHandle::kMaxEncodedLength);  // zero padding
  PutFixed32(dst, format_version);
  PutFixed64(dst, kTableMagicNumber);
}

Status Footer::DecodeFrom(std::string_view input, const std::string& name) {
  if (input.size() != kEncodedLength) {
    return Status::Corruption(name + ": file too short to be an SST");
  }
  const char* magic_ptr = input.data() + kEncodedLength - 8;
  if (DecodeFixed64(magic_ptr) != kTableMagicNumber) {
    return Status::Corruption(name + ": bad magic number (not an SST)");
  }
  format_version = DecodeFixed32(magic_ptr - 4);
  if (format_version != kTableFormatVersion) {
    return Status::NotSupported(name + ": SST format_version " + std::to_string(format_version) +
                                " is not supported");
  }
  std::string_view handles = input.substr(0, 2 * BlockHandle::kMaxEncodedLength);
  if (!metaindex_handle.DecodeFrom(&handles) || !index_handle.DecodeFrom(&handles)) {
    return Status::Corruption(name + ": bad block handle in footer");
  }
  return Status::OK();
}

Compression CompressBlock(std::string_view raw, Compression type, std::string* out) {
  const size_t start = out->size();
  switch (type) {
    case Compression::kNone:
      break;
    case Compression::kLz4: {
      if (raw.size() > static_cast<size_t>(LZ4_MAX_INPUT_SIZE)) break;
      PutVarint32(out, static_cast<uint32_t>(raw.size()));
      const size_t header = out->size();
      const int bound = LZ4_compressBound(static_cast<int>(raw.size()));
      out->resize(header + bound);
      const int n = LZ4_compress_default(raw.data(), out->data() + header,
                                         static_cast<int>(raw.size()), bound);
      if (n > 0) {
        out->resize(header + n);
        if (out->size() - start <= raw.size() - raw.size() / 8) return Compression::kLz4;
      }
      break;
    }
    case Compression::kZstd: {
      PutVarint32(out, static_cast<uint32_t>(raw.size()));
      const size_t header = out->size();
      const size_t bound = ZSTD_compressBound(raw.size());
      out->resize(header + bound);
      const size_t n = ZSTD_compress(out->data() + header, bound, raw.data(), raw.size(), 3);
      if (!ZSTD_isError(n)) {
        out->resize(header + n);
        if (out->size() - start <= raw.size() - raw.size() / 8) return Compression::kZstd;
      }
      break;
    }
  }
  out->resize(start);
  out->append(raw.data(), raw.size());
  return Compression::kNone;
}

namespace {

Status Decompress(Compression type, std::string_view data, std::string* contents) {
  uint32_t raw_size = 0;
  if (!GetVarint32(&data, &raw_size)) return Status::Corruption("bad compressed block header");
  contents->resize(raw_size);
  if (type == Compression::kLz4) {
    const int n = LZ4_decompress_safe(data.data(), contents->data(), static_cast<int>(data.size()),
                                      static_cast<int>(raw_size));
    if (n < 0 || static_cast<uint32_t>(n) != raw_size) {
      return Status::Corruption("lz4 block does not decompress");
    }
  } else {
    const size_t n = ZSTD_decompress(contents->data(), raw_size, data.data(), data.size());
    if (ZSTD_isError(n) || n != raw_size)
      return Status::Corruption("zstd block does not decompress");
  }
  return Status::OK();
}

}  // namespace

Status ReadBlockContents(const RandomAccessFile& file, const std::string& name,
                         const BlockHandle& handle, std::string* contents) {
  if (handle.size > (1ull << 32)) {
    return Status::Corruption(name + ": block too large at offset " +
                              std::to_string(handle.offset));
  }
  const size_t n = static_cast<size_t>(handle.size);
  // Read straight into *contents: an uncompressed block (the common case) then needs no copy,
  // only the trailer trimmed off.
  std::string buffer;
  buffer.resize(n + kBlockTrailerSize);
  std::string_view data;
  Status s = file.Read(handle.offset, n + kBlockTrailerSize, &data, buffer.data());
  if (!s.ok()) return s;
  const bool uncompressed_in_buffer =
      data.size() == n + kBlockTrailerSize && data.data() == buffer.data() &&
      static_cast<uint8_t>(data[n]) == static_cast<uint8_t>(Compression::kNone);
  if (!uncompressed_in_buffer) return DecodeBlockContents(data, name, handle, contents);
  s = DecodeBlockContents(data, name, handle, nullptr);  // verifies only
  if (!s.ok()) return s;
  buffer.resize(n);
  *contents = std::move(buffer);
  return Status::OK();
}

Status DecodeBlockContents(std::string_view data, const std::string& name,
                           const BlockHandle& handle, std::string* contents) {
  // Built only for an error: a block read from disk for every GET of a key on disk decodes here.
  auto corruption = [&](const std::string& what) {
    return Status::Corruption(name + ": " + what + " at offset " + std::to_string(handle.offset));
  };
  if (handle.size > (1ull << 32)) return corruption("block too large");
  const size_t n = static_cast<size_t>(handle.size);
  if (data.size() != n + kBlockTrailerSize) return corruption("truncated block");
  const uint32_t expected = crc32c::Unmask(DecodeFixed32(data.data() + n + 1));
  if (crc32c::Value(data.data(), n + 1) != expected) return corruption("block checksum mismatch");
  const uint8_t type = static_cast<uint8_t>(data[n]);
  switch (type) {
    case static_cast<uint8_t>(Compression::kNone):
      if (contents != nullptr) contents->assign(data.data(), n);
      return Status::OK();
    case static_cast<uint8_t>(Compression::kLz4):
    case static_cast<uint8_t>(Compression::kZstd): {
      if (contents == nullptr) return Status::OK();
      Status s = Decompress(static_cast<Compression>(type), data.substr(0, n), contents);
      if (!s.ok()) return corruption(s.message());
      return Status::OK();
    }
    default:
      return corruption("unknown block compression type " + std::to_string(type));
  }
}

}  // namespace ebb::storage
