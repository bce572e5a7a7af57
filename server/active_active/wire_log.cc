#include "server/active_active/wire_log.h"

#include <algorithm>
#include <cstring>

namespace ebb::server {

char* WireLog::Reserve(size_t n, uint64_t offset) {
  if (blocks_.empty() || blocks_.back().capacity - blocks_.back().used < n) {
    Block block;
    if (n <= kBlockBytes && spare_.bytes != nullptr) {
      block = std::move(spare_);
      spare_ = Block();
    } else {
      block.capacity = std::max(n, kBlockBytes);
      block.bytes = std::make_unique_for_overwrite<char[]>(block.capacity);  // not zeroed
    }
    block.used = 0;
    block.last_offset = 0;
    blocks_.push_back(std::move(block));
  }
  Block& block = blocks_.back();
  char* at = block.bytes.get() + block.used;
  block.used += n;
  block.last_offset = std::max(block.last_offset, offset);
  return at;
}

void WireLog::Store(Entry* entry, std::string_view wire) {
  char* at = Reserve(wire.size(), entry->offset);
  std::memcpy(at, wire.data(), wire.size());
  entry->data = at;
  entry->size = wire.size();
  bytes_ += wire.size();
}

void WireLog::Append(uint64_t offset, std::string_view wire) {
  Entry& entry = entries_.emplace_back();
  entry.offset = offset;
  Store(&entry, wire);
}

void WireLog::Rewrite(size_t index, std::string_view wire) {
  Entry& entry = entries_[index];
  bytes_ -= entry.size;
  Store(&entry, wire);
}

void WireLog::PopFront() {
  bytes_ -= entries_.front().size;
  const uint64_t gone = entries_.front().offset;
  entries_.pop_front();
  // Every delta whose bytes the oldest block holds has left once the log's front is past them.
  while (!blocks_.empty() && blocks_.front().last_offset <= gone) {
    if (blocks_.front().capacity == kBlockBytes) spare_ = std::move(blocks_.front());
    blocks_.pop_front();
  }
}

void WireLog::Clear() {
  entries_.clear();
  blocks_.clear();
  bytes_ = 0;
}

}  // namespace ebb::server
