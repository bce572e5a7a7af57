#include "types/scan_cursor.h"

#include <random>

#include "common/strings.h"

namespace ebb::types {

namespace {

constexpr int kLengthShift = 48;
constexpr uint64_t kBytesMask = (uint64_t{1} << kLengthShift) - 1;

}  // namespace

std::optional<uint64_t> ParseScanCursor(std::string_view text) {
  uint64_t value = 0;
  if (!ParseDigits(text, &value)) return std::nullopt;
  return value;
}

ScanCursors::ScanCursors(size_t max_entries, size_t max_bytes)
    : max_entries_(max_entries), max_bytes_(max_bytes) {
  // A random start below 2^51: table cursors of an earlier process name no entry of this one,
  // and 2^51 cursors can be handed out before the sequence reaches 2^52.
  std::random_device device;
  const uint64_t seed = (uint64_t{device()} << 32) | device();
  first_ = seed & ((uint64_t{1} << 51) - 1);
}

uint64_t ScanCursors::Save(std::string_view position) {
  if (!position.empty() && position.size() <= kMaxCompactBytes) {
    uint64_t bytes = 0;
    for (const char c : position) bytes = (bytes << 8) | static_cast<unsigned char>(c);
    return (uint64_t{position.size()} << kLengthShift) | bytes;
  }
  positions_.emplace_back(position);
  bytes_ += position.size();
  while (positions_.size() > 1 && (positions_.size() > max_entries_ || bytes_ > max_bytes_)) {
    bytes_ -= positions_.front().size();
    positions_.pop_front();
    ++first_;
  }
  return kTableBase + first_ + positions_.size() - 1;
}

std::optional<std::string> ScanCursors::Find(uint64_t cursor) const {
  if (cursor == 0) return std::string();
  if (cursor < kTableBase) {
    const uint64_t length = cursor >> kLengthShift;
    const uint64_t bytes = cursor & kBytesMask;
    if (length == 0 || length > kMaxCompactBytes) return std::nullopt;
    if (length < kMaxCompactBytes && bytes >> (8 * length) != 0) return std::nullopt;
    std::string position(length, '\0');
    for (uint64_t i = 0; i < length; ++i) {
      position[length - 1 - i] = static_cast<char>((bytes >> (8 * i)) & 0xff);
    }
    return position;
  }
  const uint64_t sequence = cursor - kTableBase;
  if (sequence < first_ || sequence - first_ >= positions_.size()) return std::nullopt;
  return positions_[sequence - first_];
}

}  // namespace ebb::types
