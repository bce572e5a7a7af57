#include "storage/table/table_builder.h"

#include <algorithm>
#include <optional>

#include "storage/format/internal_key.h"
#include "storage/table/block_builder.h"
#include "storage/table/bloom.h"
#include "storage/table/format.h"
#include "storage/table/table_layout.h"
#include "storage/util/coding.h"
#include "storage/util/crc32c.h"

namespace ebb::storage {

struct TableBuilder::Rep {
  Rep(const TableOptions& o, WritableFile* f)
      : options(o), file(f), offset(f->Size()), index_block(1) {
    if (o.bloom_bits_per_key > 0) bloom.emplace(o.bloom_bits_per_key);
  }

  const TableOptions options;
  WritableFile* const file;
  uint64_t offset;  // bytes of the file written so far
  Status status;
  BlockBuilder data_block;
  BlockBuilder index_block;  // restart interval 1: exact binary search over blocks
                             // entry: separator key -> data block handle
  std::optional<BloomFilterBuilder> bloom;
  std::string last_key;
  std::string last_user_key;
  TableProperties props;
  bool closed = false;
  std::string compressed;  // scratch
  bool pending_index_entry = false;
  BlockHandle pending_handle;  // of the last written data block, not yet indexed

  // Writes `raw` as a block (compressed per options if it pays), with its trailer; a data
  // block (`align`) after the padding options.block_align asks for.
  BlockHandle WriteBlock(std::string_view raw, bool compress, bool align = false) {
    compressed.clear();
    const Compression type =
        CompressBlock(raw, compress ? options.compression : Compression::kNone, &compressed);
    if (align) PadForBlock(compressed.size() + kBlockTrailerSize);
    BlockHandle handle{offset, compressed.size()};
    char trailer[kBlockTrailerSize];
    trailer[0] = static_cast<char>(type);
    uint32_t crc = crc32c::Value(compressed);
    crc = crc32c::Extend(crc, trailer, 1);
    EncodeFixed32(trailer + 1, crc32c::Mask(crc));
    if (status.ok()) status = file->Append(compressed);
    if (status.ok()) status = file->Append(std::string_view(trailer, kBlockTrailerSize));
    if (status.ok()) offset += compressed.size() + kBlockTrailerSize;
    return handle;
  }

  // Zeros up to the next multiple of options.block_align when a block of `bytes` (trailer
  // included) fits in one but not in what is left of the current one.
  void PadForBlock(uint64_t bytes) {
    const uint64_t align = options.block_align;
    if (align == 0 || bytes > align) return;
    const uint64_t used = offset % align;
    if (used == 0 || used + bytes <= align) return;
    const std::string zeros(static_cast<size_t>(align - used), '\0');
    if (status.ok()) status = file->Append(zeros);
    if (status.ok()) offset += zeros.size();
  }

  // Whether adding an entry of this key and row could take the data block past what one
  // options.block_align holds with its trailer: it is cut before then.
  bool EntryWouldOverflowAlignment(std::string_view key, std::string_view row) const {
    if (options.block_align == 0 || data_block.empty()) return false;
    // Three varint32 lengths and, at most, one more restart point.
    constexpr size_t kEntryOverhead = 3 * 5 + 4;
    return data_block.CurrentSizeEstimate() + key.size() + row.size() + kEntryOverhead +
               kBlockTrailerSize >
           options.block_align;
  }

  // Writes the data block; its index entry waits for the next key (see AddPendingIndexEntry).
  void FlushDataBlock() {
    if (data_block.empty() || !status.ok()) return;
    pending_handle = WriteBlock(data_block.Finish(), true, /*align=*/true);
    pending_index_entry = true;
    data_block.Reset();
  }

  // Indexes the last written block under a short key k with last_key <= k < next_key
  // (next_key empty: the end of the table).
  void AddPendingIndexEntry(std::string_view next_key) {
    if (!pending_index_entry) return;
    std::string separator = IndexSeparator(last_key, next_key);
    std::string encoded;
    pending_handle.EncodeTo(&encoded);
    index_block.Add(separator, encoded);
    pending_index_entry = false;
  }

  // The shortest internal key in [last, next) whose user key is a proper prefix of last's user
  // key plus one incremented byte; `last` itself when no such key is shorter.
  static std::string IndexSeparator(std::string_view last, std::string_view next) {
    if (next.empty()) return std::string(last);
    const std::string_view a = ExtractUserKey(last);
    const std::string_view b = ExtractUserKey(next);
    size_t d = 0;
    const size_t n = std::min(a.size(), b.size());
    while (d < n && a[d] == b[d]) ++d;
    if (d >= n) return std::string(last);  // one user key is a prefix of the other
    const uint8_t byte = static_cast<uint8_t>(a[d]);
    if (byte == 0xff || byte + 1 >= static_cast<uint8_t>(b[d]) || d + 1 >= a.size()) {
      return std::string(last);
    }
    // a[0..d] + (byte + 1) is > a and < b; with the greatest trailer it sorts before every
    // version of that user key, hence after every version of a and before every one of b.
    std::string user(a.substr(0, d + 1));
    user.back() = static_cast<char>(byte + 1);
    std::string separator;
    AppendInternalKey(&separator, user, kMaxSequence, RowKind::kValue);
    return separator;
  }

  void Account(const ParsedInternalKey& key, std::string_view internal_key, std::string_view row,
               const RowMeta& meta, std::string_view value) {
    if (props.entries == 0) props.smallest_key.assign(internal_key);
    ++props.entries;
    props.raw_key_bytes += internal_key.size();
    props.raw_value_bytes += row.size();
    props.min_sequence = std::min(props.min_sequence, key.sequence);
    props.max_sequence = std::max(props.max_sequence, key.sequence);
    if (meta.timestamp_ms) {
      props.meta_features |= kRowHasTimestamp;
      props.min_timestamp = std::min(props.min_timestamp, *meta.timestamp_ms);
      props.max_timestamp = std::max(props.max_timestamp, *meta.timestamp_ms);
    } else {
      props.has_untimed_rows = true;
    }
    if (meta.expire_at_ms) {
      // A tombstone may keep the expiry of the value it replaced (for purge scheduling).
      props.meta_features |= kRowHasExpiry;
      props.min_expire_at = std::min(props.min_expire_at, *meta.expire_at_ms);
      props.max_expire_at = std::max(props.max_expire_at, *meta.expire_at_ms);
    }
    if (key.kind != RowKind::kValue) {
      ++props.tombstones;
      return;
    }
    if (!meta.expire_at_ms) {
      props.has_non_expiring = true;
      return;
    }
    if (*meta.expire_at_ms <= options.expiry_now_ms) ++props.expired_at_write;
    if (options.classifier != nullptr) {
      switch (options.classifier->ExpiryModeOf(key.user_key)) {
        case ExpiryMode::kDefault:
          break;
        case ExpiryMode::kPerItem:
          ++props.per_item_rows;
          break;
        case ExpiryMode::kWholeFile:
          ++props.whole_file_rows;
          break;
      }
      if (options.classifier->OwnsRanges(key.user_key, value, meta)) ++props.owner_rows;
    }
  }
};

TableBuilder::TableBuilder(const TableOptions& options, WritableFile* file)
    : rep_(std::make_unique<Rep>(options, file)) {}

TableBuilder::~TableBuilder() = default;

void TableBuilder::Add(std::string_view internal_key, std::string_view encoded_row) {
  Rep& r = *rep_;
  if (r.closed || !r.status.ok()) return;
  ParsedInternalKey parsed;
  RowMeta meta;
  std::string_view value;
  if (!ParseInternalKey(internal_key, &parsed)) {
    r.status = Status::InvalidArgument("table builder: malformed internal key");
    return;
  }
  if (!DecodeRow(encoded_row, &meta, &value)) {
    r.status = Status::InvalidArgument("table builder: malformed row");
    return;
  }
  if (r.props.entries > 0 && CompareInternalKeys(r.last_key, internal_key) >= 0) {
    r.status = Status::InvalidArgument("table builder: keys out of order");
    return;
  }
  if (r.bloom && (r.props.entries == 0 || parsed.user_key != r.last_user_key)) {
    r.bloom->AddKey(parsed.user_key);
    r.last_user_key.assign(parsed.user_key);
  }
  if (r.EntryWouldOverflowAlignment(internal_key, encoded_row)) r.FlushDataBlock();
  r.AddPendingIndexEntry(internal_key);
  r.Account(parsed, internal_key, encoded_row, meta, value);
  r.last_key.assign(internal_key);
  r.data_block.Add(internal_key, encoded_row);
  if (r.data_block.CurrentSizeEstimate() >= r.options.block_size) r.FlushDataBlock();
}

Status TableBuilder::status() const { return rep_->status; }

Status TableBuilder::Finish() {
  Rep& r = *rep_;
  if (r.closed) return Status::InvalidArgument("table builder: already finished");
  r.FlushDataBlock();
  r.AddPendingIndexEntry({});
  r.closed = true;
  if (!r.status.ok()) return r.status;
  r.props.largest_key = r.last_key;

  BlockBuilder metaindex(1);
  if (r.bloom) {
    const std::string filter = r.bloom->Finish();
    const BlockHandle handle = r.WriteBlock(filter, false);
    std::string encoded;
    handle.EncodeTo(&encoded);
    metaindex.Add(kBloomFilterBlockName, encoded);
  }
  {
    std::string props;
    r.props.EncodeTo(&props);
    const BlockHandle handle = r.WriteBlock(props, false);
    std::string encoded;
    handle.EncodeTo(&encoded);
    metaindex.Add(kPropertiesBlockName, encoded);
  }
  Footer footer;
  footer.metaindex_handle = r.WriteBlock(metaindex.Finish(), false);
  footer.index_handle = r.WriteBlock(r.index_block.Finish(), false);
  std::string encoded_footer;
  footer.EncodeTo(&encoded_footer);
  if (r.status.ok()) r.status = r.file->Append(encoded_footer);
  if (r.status.ok()) r.offset += encoded_footer.size();
  return r.status;
}

void TableBuilder::Abandon() { rep_->closed = true; }

uint64_t TableBuilder::NumEntries() const { return rep_->props.entries; }

uint64_t TableBuilder::FileSize() const { return rep_->offset; }

const TableProperties& TableBuilder::properties() const { return rep_->props; }

}  // namespace ebb::storage
