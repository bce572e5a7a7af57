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
  PutUnsigned(dst, kFormatVersion, format_version);
  PutUnsigned(dst, kMetaFeatures, meta_features);
  PutUnsigned(dst, kEntries, entries);
  PutUnsigned(dst, kTombstones, tombstones);
  PutUnsigned(dst, kExpiredAtWrite, expired_at_write);
  PutSigned(dst, kMinTimestamp, min_timestamp);
  PutSigned(dst, kMaxTimestamp, max_timestamp);
  PutSigned(dst, kMinExpireAt, min_expire_at);
  PutSigned(dst, kMaxExpireAt, max_expire_at);
  PutUnsigned(dst, kHasNonExpiring, has_non_expiring ? 1 : 0);
  PutUnsigned(dst, kMinSequence, min_sequence);
  PutUnsigned(dst, kMaxSequence, max_sequence);
  PutBytes(dst, kSmallestKey, smallest_key);
  PutBytes(dst, kLargestKey, largest_key);
  PutUnsigned(dst, kRawKeyBytes, raw_key_bytes);
  PutUnsigned(dst, kRawValueBytes, raw_value_bytes);
  PutUnsigned(dst, kHasUntimedRows, has_untimed_rows ? 1 : 0);
  PutUnsigned(dst, kPerItemRows, per_item_rows);
  PutUnsigned(dst, kWholeFileRows, whole_file_rows);
  PutUnsigned(dst, kOwnerRows, owner_rows);
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
    const bool is_number = tag != kSmallestKey && tag != kLargestKey;
    if (tag < kFormatVersion || tag > kOwnerRows) continue;  // from a newer writer
    if (is_number && (!GetVarint64(&probe, &v) || !probe.empty())) {
      return Status::Corruption("table properties: bad number for tag " + std::to_string(tag));
    }
    switch (static_cast<PropertyTag>(tag)) {
      case kFormatVersion:
        p.format_version = static_cast<uint32_t>(v);
        break;
      case kMetaFeatures:
        p.meta_features = static_cast<uint8_t>(v);
        break;
      case kEntries:
        p.entries = v;
        break;
      case kTombstones:
        p.tombstones = v;
        break;
      case kExpiredAtWrite:
        p.expired_at_write = v;
        break;
      case kMinTimestamp:
        p.min_timestamp = UnZigZag(v);
        break;
      case kMaxTimestamp:
        p.max_timestamp = UnZigZag(v);
        break;
      case kMinExpireAt:
        p.min_expire_at = UnZigZag(v);
        break;
      case kMaxExpireAt:
        p.max_expire_at = UnZigZag(v);
        break;
      case kHasNonExpiring:
        p.has_non_expiring = v != 0;
        break;
      case kMinSequence:
        p.min_sequence = v;
        break;
      case kMaxSequence:
        p.max_sequence = v;
        break;
      case kSmallestKey:
        p.smallest_key.assign(field);
        break;
      case kLargestKey:
        p.largest_key.assign(field);
        break;
      case kRawKeyBytes:
        p.raw_key_bytes = v;
        break;
      case kRawValueBytes:
        p.raw_value_bytes = v;
        break;
      case kHasUntimedRows:
        p.has_untimed_rows = v != 0;
        break;
      case kPerItemRows:
        p.per_item_rows = v;
        break;
      case kWholeFileRows:
        p.whole_file_rows = v;
        break;
      case kOwnerRows:
        p.owner_rows = v;
        break;
    }
  }
  *this = std::move(p);
  return Status::OK();
}

}  // namespace ebb::storage
