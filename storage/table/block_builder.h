// BlockBuilder: builds one block in the format described in block.h (prefix-compressed keys,
// a restart point every kRestartInterval entries).
// Thread-safety: not thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ebb::storage {

inline constexpr int kRestartInterval = 16;

class BlockBuilder {
 public:
  explicit BlockBuilder(int restart_interval = kRestartInterval);

  // REQUIRES: Finish() not called since the last Reset(); key > every key added before (in the
  // block's order).
  void Add(std::string_view key, std::string_view value);
  // Appends the restart array; the returned view is valid until Reset().
  std::string_view Finish();
  void Reset();

  // The size of the block Finish() would produce now.
  size_t CurrentSizeEstimate() const;
  bool empty() const { return buffer_.empty(); }
  std::string_view last_key() const { return last_key_; }

 private:
  const int restart_interval_;
  std::string buffer_;
  std::vector<uint32_t> restarts_;
  int counter_ = 0;  // entries since the last restart
  bool finished_ = false;
  std::string last_key_;
};

}  // namespace ebb::storage
