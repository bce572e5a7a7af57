// TableProperties encoding (docs/sst-format.md, "Properties"): a sequence of
//   tag:varint32 length:varint32 value[length]
// fields. Numbers are varint64 (signed ones zig-zagged), keys raw bytes. Decoding skips unknown
// tags (newer writers may add fields) and leaves fields whose tag is absent at their defaults,
// so the encoding is forward and backward compatible.
#include "storage/format/table_properties.h"

#include "storage/util/coding.h"

namespace ebb::storage {
namespace {

// on-disk: never change.
// Scoped: the tags share names with the engine's constants (kMaxSequence).
struct Tag {
  enum PropertyTag : uint32_t {
    kFormatVersion = 1,
    kMetaFeatures = 2,
    kEntries = 3,
    kTombstones = 4,
    kExpiredAtWrite = 5,
    kMinTimestamp = 6,
    kMaxTimestamp = 7,
    kMinExpireAt = 8,
    kMaxExpireAt = 9,
    kHasNonExpiring = 10,
    kMinSequence = 11,
    kMaxSequence = 12,
    kSmallestKey = 13,
    kLargestKey = 14,
    kRawKeyBytes = 15,
    kRawValueBytes = 16,
    kHasUntimedRows = 17,
    kPerItemRows = 18,
    kWholeFileRows = 19,
    kOwnerRows = 20,
  };
};
using PropertyTag = Tag::PropertyTag;

void PutUnsigned(std::string* dst, uint32_t tag, uint64_t v) {
  PutVarint32(dst, tag);
  PutVarint32(dst, static_cast<uint32_t>(VarintLength(v)));
  PutVarint64(dst, v);
}

void PutSigned(std::string* dst, uint32_t tag, int64_t v) { PutUnsigned(dst, tag, ZigZag(v)); }

void PutBytes(std::string* dst, uint32_t tag, std::string_view v) {
  PutVarint32(dst, tag);
  PutLengthPrefixed(dst, v);
}

}  // namespace

void TableProperties::EncodeTo(std::string* dst) const {
  PutUnsigned(dst, Tag::kFormatVersion, format_version);
  PutUnsigned(dst, Tag::kMetaFeatures, meta_features);
  PutUnsigned(dst, Tag::kEntries, entries);
  PutUnsigned(dst, Tag::kTombstones, tombstones);
  PutUnsigned(dst, Tag::kExpiredAtWrite, expired_at_write);
  PutSigned(dst, Tag::kMinTimestamp, min_timestamp);
  PutSigned(dst, Tag::kMaxTimestamp, max_timestamp);
  PutSigned(dst, Tag::kMinExpireAt, min_expire_at);
  PutSigned(dst, Tag::kMaxExpireAt, max_expire_at);
  PutUnsigned(dst, Tag::kHasNonExpiring, has_non_expiring ? 1 : 0);
  PutUnsigned(dst, Tag::kMinSequence, min_sequence);
  PutUnsigned(dst, Tag::kMaxSequence, max_sequence);
  PutBytes(dst, Tag::kSmallestKey, smallest_key);
  PutBytes(dst, Tag::kLargestKey, largest_key);
  PutUnsigned(dst, Tag::kRawKeyBytes, raw_key_bytes);
  PutUnsigned(dst, Tag::kRawValueBytes, raw_value_bytes);
  PutUnsigned(dst, Tag::kHasUntimedRows, has_untimed_rows ? 1 : 0);
  PutUnsigned(dst, Tag::kPerItemRows, per_item_rows);
  PutUnsigned(dst, Tag::kWholeFileRows, whole_file_rows);
  PutUnsigned(dst, Tag::kOwnerRows, owner_rows);
}

Status TableProperties::DecodeFrom(std::string_view src) {
  TableProperties p;
  p.has_untimed_rows = true;  // unknown in files written before the field existed
  while (!src.empty()) {
    uint32_t tag = 0;
    std::string_view field;
    if (!GetVarint32(&src, &tag) || !GetLengthPrefixed(&src, &field)) {
      return Status::Corruption("table properties: truncated field");
    }
    std::string_view probe = field;
    uint64_t v = 0;
    const bool is_number = tag != Tag::kSmallestKey && tag != Tag::kLargestKey;
    if (tag < Tag::kFormatVersion || tag > Tag::kOwnerRows) continue;  // from a newer writer
    if (is_number && (!GetVarint64(&probe, &v) || !probe.empty())) {
      return Status::Corruption("table properties: bad number for tag " + std::to_string(tag));
    }
    switch (static_cast<PropertyTag>(tag)) {
      case Tag::kFormatVersion:
        p.format_version = static_cast<uint32_t>(v);
        break;
      case Tag::kMetaFeatures:
        p.meta_features = static_cast<uint8_t>(v);
        break;
      case Tag::kEntries:
        p.entries = v;
        break;
      case Tag::kTombstones:
        p.tombstones = v;
        break;
      case Tag::kExpiredAtWrite:
        p.expired_at_write = v;
        break;
      case Tag::kMinTimestamp:
        p.min_timestamp = UnZigZag(v);
        break;
      case Tag::kMaxTimestamp:
        p.max_timestamp = UnZigZag(v);
        break;
      case Tag::kMinExpireAt:
        p.min_expire_at = UnZigZag(v);
        break;
      case Tag::kMaxExpireAt:
        p.max_expire_at = UnZigZag(v);
        break;
      case Tag::kHasNonExpiring:
        p.has_non_expiring = v != 0;
        break;
      case Tag::kMinSequence:
        p.min_sequence = v;
        break;
      case Tag::kMaxSequence:
        p.max_sequence = v;
        break;
      case Tag::kSmallestKey:
        p.smallest_key.assign(field);
        break;
      case Tag::kLargestKey:
        p.largest_key.assign(field);
        break;
      case Tag::kRawKeyBytes:
        p.raw_key_bytes = v;
        break;
      case Tag::kRawValueBytes:
        p.raw_value_bytes = v;
        break;
      case Tag::kHasUntimedRows:
        p.has_untimed_rows = v != 0;
        break;
      case Tag::kPerItemRows:
        p.per_item_rows = v;
        break;
      case Tag::kWholeFileRows:
        p.whole_file_rows = v;
        break;
      case Tag::kOwnerRows:
        p.owner_rows = v;
        break;
    }
  }
  *this = std::move(p);
  return Status::OK();
}

}  // namespace ebb::storage
