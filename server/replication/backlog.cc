#include "server/replication/backlog.h"

#include <algorithm>
#include <cstring>

namespace ebb::server {

ReplicationBacklog::ReplicationBacklog(size_t capacity, uint64_t end_offset)
    : ring_(capacity, '\0'), end_offset_(end_offset) {}

void ReplicationBacklog::Append(std::string_view bytes) {
  const size_t cap = ring_.size();
  histlen_ = std::min<uint64_t>(cap, histlen_ + bytes.size());
  // Only the last `cap` bytes can stay; the ones before are counted and dropped.
  if (bytes.size() > cap) {
    end_offset_ += bytes.size() - cap;
    bytes.remove_prefix(bytes.size() - cap);
  }
  while (!bytes.empty()) {
    const size_t pos = end_offset_ % cap;  // where byte end_offset_ + 1 goes
    const size_t n = std::min(bytes.size(), cap - pos);
    std::memcpy(ring_.data() + pos, bytes.data(), n);
    bytes.remove_prefix(n);
    end_offset_ += n;
  }
}

void ReplicationBacklog::CopyFrom(uint64_t offset, std::string* out) const {
  const size_t cap = ring_.size();
  uint64_t left = end_offset_ + 1 - offset;
  size_t pos = (offset - 1) % cap;
  while (left > 0) {
    const size_t n = std::min<uint64_t>(left, cap - pos);
    out->append(ring_, pos, n);
    left -= n;
    pos = 0;
  }
}

void ReplicationBacklog::Resize(size_t capacity) {
  if (capacity == ring_.size()) return;
  const uint64_t keep = std::min<uint64_t>(histlen_, capacity);
  std::string held;
  CopyFrom(end_offset_ + 1 - keep, &held);
  ring_.assign(capacity, '\0');
  const uint64_t end = end_offset_;
  end_offset_ = end - keep;
  histlen_ = 0;
  Append(held);
}

}  // namespace ebb::server
