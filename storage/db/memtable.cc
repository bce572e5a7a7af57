#include "storage/db/memtable.h"

#include <cstring>
#include <string>

#include "storage/util/coding.h"

namespace ebb::storage {
namespace {

// Decodes a varint32-prefixed slice at p. Entries were written by Add, so they are well formed.
std::string_view GetPrefixed(const char* p, const char** end) {
  uint32_t len = 0;
  for (int shift = 0; shift <= 28; shift += 7) {  // stops at the last varint byte
    const uint8_t byte = static_cast<uint8_t>(*p++);
    len |= static_cast<uint32_t>(byte & 0x7f) << shift;
    if ((byte & 0x80) == 0) break;
  }
  const char* data = p;
  if (end != nullptr) *end = data + len;
  return std::string_view(data, len);
}

}  // namespace

int MemTable::KeyComparator::operator()(const char* a, const char* b) const {
  return CompareInternalKeys(GetPrefixed(a, nullptr), GetPrefixed(b, nullptr));
}

MemTable::MemTable() : table_(KeyComparator(), &arena_) {}

void MemTable::Add(uint64_t sequence, RowKind kind, std::string_view user_key,
                   std::string_view encoded_row) {
  const size_t ikey_len = user_key.size() + kInternalKeyTrailer;
  std::string buf;
  buf.reserve(ikey_len + encoded_row.size() + 10);
  PutVarint32(&buf, static_cast<uint32_t>(ikey_len));
  AppendInternalKey(&buf, user_key, sequence, kind);
  PutLengthPrefixed(&buf, encoded_row);
  char* mem = arena_.Allocate(buf.size());
  std::memcpy(mem, buf.data(), buf.size());
  table_.Insert(mem);
  num_entries_.fetch_add(1, std::memory_order_relaxed);
}

class MemTable::Iter final : public InternalIterator {
 public:
  explicit Iter(std::shared_ptr<const MemTable> mem) : mem_(std::move(mem)), iter_(&mem_->table_) {}

  bool Valid() const override { return iter_.Valid(); }
  void SeekToFirst() override { iter_.SeekToFirst(); }
  void SeekToLast() override { iter_.SeekToLast(); }
  void Seek(std::string_view target) override {
    scratch_.clear();
    PutLengthPrefixed(&scratch_, target);
    iter_.Seek(scratch_.data());
  }
  void Next() override { iter_.Next(); }
  void Prev() override { iter_.Prev(); }
  std::string_view key() const override { return GetPrefixed(iter_.key(), nullptr); }
  std::string_view value() const override {
    const char* end;
    GetPrefixed(iter_.key(), &end);
    return GetPrefixed(end, nullptr);
  }
  Status status() const override { return Status::OK(); }

 private:
  std::shared_ptr<const MemTable> mem_;
  Table::Iterator iter_;
  std::string scratch_;
};

std::unique_ptr<InternalIterator> MemTable::NewIterator(std::shared_ptr<const MemTable> mem) {
  return std::make_unique<Iter>(std::move(mem));
}

}  // namespace ebb::storage
