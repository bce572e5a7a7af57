// TableBuilder: writes one SST file (docs/sst-format.md) from internal keys in increasing order.
//
// Data blocks (prefix-compressed, optionally lz4/zstd-compressed, each with a crc32c trailer) are
// written as they fill; Finish() appends the bloom filter over user keys, the properties block,
// the metaindex, the index and the fixed-size footer. The builder fills every TableProperties
// field from the rows it sees. It does not sync or close the file: the caller does.
// Thread-safety: not thread-safe.
#pragma once

#include <climits>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "storage/compaction_filter.h"
#include "storage/env/file.h"
#include "storage/format/table_properties.h"
#include "storage/options.h"
#include "storage/status.h"

namespace ebb::storage {

struct TableOptions {
  size_t block_size = 4096;  // target uncompressed size of a data block
  // 0: data blocks are written back to back. A power of two N: no data block that fits in N
  // bytes with its trailer straddles a multiple of N (the builder cuts data blocks early so that
  // they fit, and pads with zeros up to the next multiple when the next block would not fit in
  // what is left of the current one), so a direct read of a block is one N-byte read, not two
  // (RocksDB's block_align). Costs the padding: about 1.5% with 4 KiB blocks of 100-byte rows.
  size_t block_align = 0;
  int bloom_bits_per_key = 10;  // 0: no filter
  Compression compression = Compression::kLz4;
  // The expiry clock, for TableProperties::expired_at_write (INT64_MIN: nothing counts).
  int64_t expiry_now_ms = INT64_MIN;
  // Classifies value rows that carry an expiry for TableProperties::per_item_rows,
  // whole_file_rows and owner_rows (storage/compaction_filter.h); nullptr: none.
  const CompactionFilter* classifier = nullptr;
  // Reading: receives how long each data block read from the file took (not readahead's);
  // nullptr: not timed. REQUIRES: outlives the table.
  DiskReadLatency* read_latency = nullptr;
};

class TableBuilder {
 public:
  // `file` must stay valid until Finish() or Abandon(); it is not owned.
  TableBuilder(const TableOptions& options, WritableFile* file);
  ~TableBuilder();

  TableBuilder(const TableBuilder&) = delete;
  TableBuilder& operator=(const TableBuilder&) = delete;

  // REQUIRES: internal keys strictly increasing (CompareInternalKeys); value is an encoded row
  // (for a tombstone too); Finish()/Abandon() not called.
  // A malformed key or row sets status() to InvalidArgument and is not written.
  void Add(std::string_view internal_key, std::string_view encoded_row);
  // The first error (an Append failure or a bad Add); later Adds are ignored.
  Status status() const;
  // Writes filter, properties, metaindex, index and footer; does NOT sync.
  // REQUIRES: Finish()/Abandon() not called.
  Status Finish();
  // Stops building; the caller deletes the file.
  void Abandon();

  uint64_t NumEntries() const;
  // Bytes written so far; after Finish(), the final file size.
  uint64_t FileSize() const;
  // Complete after Finish().
  const TableProperties& properties() const;

 private:
  struct Rep;
  std::unique_ptr<Rep> rep_;
};

}  // namespace ebb::storage
