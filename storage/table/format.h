// SST building blocks shared by TableBuilder and Table: block handles, the footer, the per-block
// trailer (compression type + crc32c) and block (de)compression. Layouts: docs/sst-format.md.
// Thread-safety: pure functions and value types.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "storage/env/file.h"
#include "storage/options.h"
#include "storage/status.h"

namespace ebb::storage {

// Where a block lives: offset and size (without the trailer). Encoded as two varint64.
struct BlockHandle {
  uint64_t offset = 0;
  uint64_t size = 0;
  static constexpr size_t kMaxEncodedLength = 10 + 10;

  void EncodeTo(std::string* dst) const;
  // Consumes a handle from the front of *input; false if malformed.
  bool DecodeFrom(std::string_view* input);
};

// on-disk: never change.
// Stored little-endian it reads "ebbSST1\0".
inline constexpr uint64_t kTableMagicNumber = 0x0031545353626265ull;
inline constexpr uint32_t kTableFormatVersion = 1;

// The fixed-size end of every SST:
//   metaindex_handle index_handle (padded with zeros to 2 * kMaxEncodedLength)
//   format_version:fixed32 magic:fixed64
struct Footer {
  BlockHandle metaindex_handle;
  BlockHandle index_handle;
  uint32_t format_version = kTableFormatVersion;
  static constexpr size_t kEncodedLength = 2 * BlockHandle::kMaxEncodedLength + 4 + 8;

  void EncodeTo(std::string* dst) const;
  // Corruption (naming `name`) if the magic number or handles are wrong; NotSupported for a
  // format_version this build does not read.
  Status DecodeFrom(std::string_view input, const std::string& name);
};

// Every block is followed by: type:u8 (Compression) crc:fixed32 = mask(crc32c(block ++ type)).
inline constexpr size_t kBlockTrailerSize = 5;

// Appends `raw` compressed with `type` to *out, if that saves at least 1/8 of its size; else
// appends `raw` unchanged. Returns the compression actually used.
Compression CompressBlock(std::string_view raw, Compression type, std::string* out);

// Reads the block at `handle`, verifies the trailer's crc and decompresses it into *contents.
// Corruption("<name>: <what> at offset <n>") on any mismatch.
Status ReadBlockContents(const RandomAccessFile& file, const std::string& name,
                         const BlockHandle& handle, std::string* contents);

// Verifies and decompresses a block read by other means: `data` is the block and its trailer,
// exactly handle.size + kBlockTrailerSize bytes as read from handle.offset. The same errors as
// ReadBlockContents; contents == nullptr only verifies.
Status DecodeBlockContents(std::string_view data, const std::string& name,
                           const BlockHandle& handle, std::string* contents);

}  // namespace ebb::storage
