#include "storage/table/block_builder.h"

#include <algorithm>

#include "storage/util/coding.h"

namespace ebb::storage {

BlockBuilder::BlockBuilder(int restart_interval) : restart_interval_(restart_interval) { Reset(); }

void BlockBuilder::Reset() {
  buffer_.clear();
  restarts_.assign(1, 0);  // the first entry is always a restart point
  counter_ = 0;
  finished_ = false;
  last_key_.clear();
}

size_t BlockBuilder::CurrentSizeEstimate() const {
  if (finished_) return buffer_.size();
  return buffer_.size() + restarts_.size() * 4 + 4;
}

void BlockBuilder::Add(std::string_view key, std::string_view value) {
  size_t shared = 0;
  if (counter_ < restart_interval_) {
    const size_t limit = std::min(last_key_.size(), key.size());
    while (shared < limit && last_key_[shared] == key[shared]) ++shared;
  } else {
    restarts_.push_back(static_cast<uint32_t>(buffer_.size()));
    counter_ = 0;
  }
  const size_t non_shared = key.size() - shared;
  PutVarint32(&buffer_, static_cast<uint32_t>(shared));
  PutVarint32(&buffer_, static_cast<uint32_t>(non_shared));
  PutVarint32(&buffer_, static_cast<uint32_t>(value.size()));
  buffer_.append(key.data() + shared, non_shared);
  buffer_.append(value.data(), value.size());
  last_key_.resize(shared);
  last_key_.append(key.data() + shared, non_shared);
  ++counter_;
}

std::string_view BlockBuilder::Finish() {
  if (!finished_) {
    for (uint32_t r : restarts_) PutFixed32(&buffer_, r);
    PutFixed32(&buffer_, static_cast<uint32_t>(restarts_.size()));
    finished_ = true;
  }
  return buffer_;
}

}  // namespace ebb::storage
