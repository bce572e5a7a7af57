#include "protocol/parsed_ahead.h"

namespace ebb::protocol {

bool ParsedAhead::TakeNext(std::string_view input, size_t offset, const ParserLimits& limits,
                           Taken* taken) {
  // Entries an inline request (not kept) or a request run from elsewhere went past.
  while (next_ < entries_.size() && entries_[next_].begin < offset) ++next_;
  if (next_ == entries_.size()) return false;
  const Entry& entry = entries_[next_];
  if (entry.begin != offset || input.data() != base_ || input.size() < entry.end ||
      !(limits == limits_)) {
    return false;
  }
  taken->args = std::span<const std::string_view>(args_.data() + entry.first, entry.count);
  taken->consumed = entry.end - entry.begin;
  taken->index = next_;
  ++next_;
  return true;
}

void ParsedAhead::Clear() {
  entries_.clear();
  args_.clear();
  next_ = 0;
  base_ = nullptr;
}

size_t ParsedAhead::MemoryUsage() const {
  return parser_.MemoryUsage() + entries_.capacity() * sizeof(Entry) +
         args_.capacity() * sizeof(std::string_view);
}

void ParsedAhead::ReleaseMemory() {
  Clear();
  parser_.ReleaseMemory();
  std::vector<Entry>().swap(entries_);
  std::vector<std::string_view>().swap(args_);
}

}  // namespace ebb::protocol
