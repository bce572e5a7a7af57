// WireLog: the origin log's deltas as kept in memory (ActiveActive::log_), oldest first, each in
// its wire form (the bytes a peer's stream carries) with its offset.
//
// The wire bytes are appended to large blocks rather than held one heap block per delta: a node
// keeps up to peer-backlog-size deltas (a million by default), and with a block each, every
// write allocated one and freed the one leaving the log, long cold by then. A block goes once
// every delta whose bytes it holds has left. A delta rewritten in place (its value reduced once
// it expired) gets its new bytes at the end of the newest block; its old bytes stay until their
// block goes.
// Thread-safety: none (the io thread's).
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <string_view>

namespace ebb::server {

class WireLog {
 public:
  struct Entry {
    uint64_t offset = 0;
    // For a value row (LoggedValueOf): the offset of the row before it under the same
    // ValueRowsKey when it was noted (0: none), the link value_row_heads_ starts from.
    uint64_t prev_value_row = 0;
    std::string_view wire() const { return {data, size}; }

   private:
    friend class WireLog;
    const char* data = nullptr;
    size_t size = 0;
  };

  bool empty() const { return entries_.empty(); }
  size_t size() const { return entries_.size(); }
  uint64_t bytes() const { return bytes_; }         // the wire bytes of the deltas held
  size_t blocks() const { return blocks_.size(); }  // blocks in use (the spare not counted)
  const Entry& operator[](size_t index) const { return entries_[index]; }
  Entry& operator[](size_t index) { return entries_[index]; }
  const Entry& front() const { return entries_.front(); }
  Entry& back() { return entries_.back(); }

  // REQUIRES: `offset` follows back()'s, or the log is empty.
  void Append(uint64_t offset, std::string_view wire);
  // Gives the delta at `index` the wire form `wire`.
  void Rewrite(size_t index, std::string_view wire);
  void PopFront();
  void Clear();

 private:
  struct Block {
    std::unique_ptr<char[]> bytes;
    size_t capacity = 0;
    size_t used = 0;
    uint64_t last_offset = 0;  // the greatest offset of a delta whose bytes it holds
  };
  static constexpr size_t kBlockBytes = 1 << 20;
  // Room for `n` bytes at the end of the newest block (a new block when it has none); the bytes
  // written there belong to the delta at `offset`.
  char* Reserve(size_t n, uint64_t offset);
  // Copies `wire` into room Reserve gives and points `entry` (its offset set) at it.
  void Store(Entry* entry, std::string_view wire);

  std::deque<Entry> entries_;
  std::deque<Block> blocks_;
  Block spare_;  // the last block freed, kept for the next one: no allocation per megabyte
  uint64_t bytes_ = 0;
};

}  // namespace ebb::server
