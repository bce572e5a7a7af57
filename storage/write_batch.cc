// WriteBatch encoding (docs/wal-format.md, "Write batch payload"):
//   rep   = count:varint32 entry*
//   entry = op:u8 (WriteBatch::Op) | key:length-prefixed | row:length-prefixed (encoded row,
//           format/internal_key.h; a tombstone's or wipe's row carries its timestamp and an
//           empty value); a range deletion's is op:u8 | begin:length-prefixed |
//           end:length-prefixed
// The DB prepends fixed64 first-sequence when it writes the batch to the WAL.
#include "storage/write_batch.h"

#include <cstring>
#include <limits>

#include "storage/format/internal_key.h"
#include "storage/util/coding.h"

namespace ebb::storage {
namespace {

int64_t SaturatingAdd(int64_t a, int64_t b) {
  int64_t out;
  if (__builtin_add_overflow(a, b, &out)) {
    return b > 0 ? std::numeric_limits<int64_t>::max() : std::numeric_limits<int64_t>::min();
  }
  return out;
}

// Replaces the varint count at the front of rep: in place when its length stays the same (a
// count below 128, and every count but the first of each new length).
void SetCount(std::string* rep, size_t count) {
  // Below 128 both the old count and the new one are one byte.
  if (count < 0x80 && !rep->empty() && static_cast<uint8_t>((*rep)[0]) < 0x80) {
    (*rep)[0] = static_cast<char>(count);
    return;
  }
  std::string_view probe = *rep;
  uint32_t old_count = 0;
  const size_t old_len = GetVarint32(&probe, &old_count) ? rep->size() - probe.size() : 0;
  char encoded[5];
  size_t len = 0;
  for (auto v = static_cast<uint32_t>(count);; v >>= 7) {
    encoded[len++] = static_cast<char>(v < 0x80 ? v : (v & 0x7f) | 0x80);
    if (v < 0x80) break;
  }
  if (len == old_len) {
    std::memcpy(rep->data(), encoded, len);
  } else {
    rep->replace(0, old_len, encoded, len);
  }
}

}  // namespace

// The entry in four appends: op and key length, key, row length and row header, value.
void WriteBatch::AppendRowEntry(Op op, std::string_view key, const RowMeta& meta,
                                std::string_view value) {
  // The located entries' offsets hold while the count in front of the entries keeps its length:
  // one byte below 128 entries (SetCount rewrites it in place).
  static_assert(kLocatedEntries < 0x80);
  char row_header[kMaxRowHeaderBytes];
  const size_t row_header_len = EncodeRowHeader(meta, row_header);
  char before_key[1 + kMaxVarint64Bytes];
  before_key[0] = static_cast<char>(op);
  const char* key_end = EncodeVarint64(before_key + 1, static_cast<uint32_t>(key.size()));
  char before_value[kMaxVarint64Bytes + kMaxRowHeaderBytes];
  char* row_length_end =
      EncodeVarint64(before_value, static_cast<uint32_t>(row_header_len + value.size()));
  std::memcpy(row_length_end, row_header, row_header_len);
  char* p = row_length_end + row_header_len;
  rep_.append(before_key, static_cast<size_t>(key_end - before_key));
  const size_t key_at = rep_.size();
  rep_.append(key.data(), key.size());
  const size_t row_at = rep_.size() + static_cast<size_t>(row_length_end - before_value);
  rep_.append(before_value, static_cast<size_t>(p - before_value));
  rep_.append(value.data(), value.size());
  if (located_count_ == count_ && located_count_ < kLocatedEntries) {
    located_[located_count_++] = Located{.op = op,
                                         .key_at = key_at,
                                         .key_size = key.size(),
                                         .row_at = row_at,
                                         .row_size = row_header_len + value.size(),
                                         .value_size = value.size(),
                                         .meta = meta};
  }
  SetCount(&rep_, ++count_);
}

WriteBatch::Entry WriteBatch::EntryAt(const Located& located) const {
  const char* base = rep_.data();
  const std::string_view row(base + located.row_at, located.row_size);
  return Entry{.op = located.op,
               .key = std::string_view(base + located.key_at, located.key_size),
               .value = row.substr(located.row_size - located.value_size),
               .meta = located.meta,
               .encoded_row = row};
}

// Most batches are a row or two: one allocation holds them.
WriteBatch::WriteBatch() {
  rep_.reserve(128);
  Clear();
}

void WriteBatch::Clear() {
  rep_.clear();
  rep_.push_back('\0');  // count 0
  count_ = 0;
  range_deletions_ = 0;
  located_count_ = 0;
}

RowMeta WriteBatch::PutMeta(const WriteOptions& options, int64_t now_ms) {
  RowMeta meta;
  meta.timestamp_ms = options.timestamp_ms;
  if (options.expire_at_ms) {
    meta.expire_at_ms = options.expire_at_ms;
  } else if (options.ttl_ms) {
    meta.expire_at_ms = SaturatingAdd(options.timestamp_ms.value_or(now_ms), *options.ttl_ms);
  }
  return meta;
}

void WriteBatch::Put(const WriteOptions& options, std::string_view key, std::string_view value,
                     int64_t now_ms) {
  AppendRowEntry(Op::kPut, key, PutMeta(options, now_ms), value);
}

void WriteBatch::Delete(const WriteOptions& options, std::string_view key, std::string_view value) {
  RowMeta meta;
  meta.timestamp_ms = options.timestamp_ms;
  AppendRowEntry(Op::kDelete, key, meta, value);
}

void WriteBatch::Wipe(const WriteOptions& options, std::string_view key) {
  RowMeta meta;
  meta.timestamp_ms = options.timestamp_ms;
  AppendRowEntry(Op::kWipe, key, meta, {});
}

void WriteBatch::DeleteRange(const KeyRange& range) {
  rep_.push_back(static_cast<char>(Op::kDeleteRange));
  PutLengthPrefixed(&rep_, range.begin);
  PutLengthPrefixed(&rep_, range.end);
  SetCount(&rep_, ++count_);
  range_deletions_++;
}

RowKind WriteBatch::KindOf(Op op) {
  switch (op) {
    case Op::kDelete:
    case Op::kDeleteRange:  // writes no row (REQUIRES above)
      return RowKind::kTombstone;
    case Op::kPut:
      return RowKind::kValue;
    case Op::kWipe:
      return RowKind::kWipe;
  }
  return RowKind::kTombstone;
}

namespace {

// Decodes the entry *rep starts with into *entry (views into *rep) and moves *rep past it.
Status DecodeEntry(std::string_view* rep, WriteBatch::Entry* entry) {
  if (rep->empty()) return Status::Corruption("write batch: fewer entries than its count");
  const uint8_t op = static_cast<uint8_t>((*rep)[0]);
  rep->remove_prefix(1);
  if (op > static_cast<uint8_t>(WriteBatch::Op::kDeleteRange)) {
    return Status::Corruption("write batch: unknown op " + std::to_string(op));
  }
  entry->op = static_cast<WriteBatch::Op>(op);
  if (entry->op == WriteBatch::Op::kDeleteRange) {
    if (!GetLengthPrefixed(rep, &entry->key) || !GetLengthPrefixed(rep, &entry->value)) {
      return Status::Corruption("write batch: truncated range deletion");
    }
    return Status::OK();
  }
  std::string_view row;
  if (!GetLengthPrefixed(rep, &entry->key) || !GetLengthPrefixed(rep, &row)) {
    return Status::Corruption("write batch: truncated entry");
  }
  if (!DecodeRow(row, &entry->meta, &entry->value)) {
    return Status::Corruption("write batch: malformed row");
  }
  entry->encoded_row = row;
  // A tombstone may carry a value for the layer above (Delete); a wipe none; neither an expiry.
  if (entry->op != WriteBatch::Op::kPut &&
      ((entry->op == WriteBatch::Op::kWipe && !entry->value.empty()) || entry->meta.expire_at_ms)) {
    return Status::Corruption("write batch: delete carries a value or expiry");
  }
  return Status::OK();
}

// Decodes rep, calling handler (if any) per entry; sets *count and *range_deletions.
Status Decode(std::string_view rep, WriteBatch::Handler* handler, size_t* count,
              size_t* range_deletions) {
  *range_deletions = 0;
  uint32_t n = 0;
  if (!GetVarint32(&rep, &n)) return Status::Corruption("write batch: malformed count");
  for (uint32_t i = 0; i < n; ++i) {
    WriteBatch::Entry entry;
    Status s = DecodeEntry(&rep, &entry);
    if (!s.ok()) return s;
    if (entry.op == WriteBatch::Op::kDeleteRange) ++*range_deletions;
    if (handler != nullptr) handler->Apply(entry);
  }
  if (!rep.empty()) return Status::Corruption("write batch: trailing bytes after its entries");
  *count = n;
  return Status::OK();
}

}  // namespace

Status WriteBatch::Iterate(Handler* handler) const {
  if (located_count_ == count_) {
    for (size_t i = 0; i < located_count_; i++) handler->Apply(EntryAt(located_[i]));
    return Status::OK();
  }
  size_t count = 0, range_deletions = 0;
  return Decode(rep_, handler, &count, &range_deletions);
}

size_t WriteBatch::EntryBytes() const {
  return rep_.size() - static_cast<size_t>(VarintLength(count_));
}

Status WriteBatch::IterateFrom(size_t entry_bytes, Handler* handler) const {
  std::string_view rest(rep_);
  rest.remove_prefix(rep_.size() - EntryBytes() + entry_bytes);
  while (!rest.empty()) {
    Entry entry;
    Status s = DecodeEntry(&rest, &entry);
    if (!s.ok()) return s;
    handler->Apply(entry);
  }
  return Status::OK();
}

Status WriteBatch::EntryAtBytes(size_t entry_bytes, Entry* entry, size_t* next_entry_bytes) const {
  const size_t count_bytes = rep_.size() - EntryBytes();
  if (entry_bytes >= EntryBytes()) return Status::Corruption("write batch: no entry there");
  std::string_view rest(rep_);
  rest.remove_prefix(count_bytes + entry_bytes);
  Status s = DecodeEntry(&rest, entry);
  *next_entry_bytes = rep_.size() - count_bytes - rest.size();
  return s;
}

Status WriteBatch::FromRep(std::string_view rep, WriteBatch* batch) {
  size_t count = 0, range_deletions = 0;
  Status s = Decode(rep, nullptr, &count, &range_deletions);
  if (!s.ok()) return s;
  batch->rep_.assign(rep);
  batch->count_ = count;
  batch->range_deletions_ = range_deletions;
  batch->located_count_ = 0;
  return Status::OK();
}

Status WriteBatch::AppendRep(std::string_view rep) {
  size_t count = 0, range_deletions = 0;
  Status s = Decode(rep, nullptr, &count, &range_deletions);
  if (!s.ok()) return s;
  AppendEntries(rep, count, range_deletions);
  return Status::OK();
}

void WriteBatch::Append(const WriteBatch& other) {
  AppendEntries(other.rep_, other.count_, other.range_deletions_);
}

void WriteBatch::AppendEntries(std::string_view rep, size_t count, size_t range_deletions) {
  uint32_t skipped = 0;
  GetVarint32(&rep, &skipped);  // its count: the entries follow
  rep_.append(rep);
  count_ += count;
  range_deletions_ += range_deletions;
  SetCount(&rep_, count_);
}

}  // namespace ebb::storage
