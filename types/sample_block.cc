#include "types/sample_block.h"

#include <algorithm>
#include <bit>
#include <cstring>

#include "storage/util/coding.h"

namespace ebb::types {
namespace {

// The timestamp buckets: a prefix of `ones` 1 bits (then a 0 unless ones == 5) and a value of
// `width` bits, for a delta of deltas in [-2^(width-1), 2^(width-1) - 1].
struct Bucket {
  int ones;
  int width;
};
constexpr Bucket kBuckets[] = {{1, 7}, {2, 9}, {3, 12}, {4, 32}, {5, 64}};

bool FitsSigned(int64_t v, int width) {
  if (width >= 64) return true;
  const int64_t limit = int64_t{1} << (width - 1);
  return v >= -limit && v < limit;
}

// The low `width` bits of `bits` read as a two's complement number of that width.
int64_t SignExtend(uint64_t bits, int width) {
  if (width >= 64) return static_cast<int64_t>(bits);
  const uint64_t sign = uint64_t{1} << (width - 1);
  return static_cast<int64_t>((bits ^ sign) - sign);
}

uint64_t LowBits(uint64_t v, int width) {
  return width >= 64 ? v : v & ((uint64_t{1} << width) - 1);
}

}  // namespace

// ---- writing

void SampleBlockWriter::PutBits(uint64_t bits, int width) {
  bits = LowBits(bits, width);
  while (width > 0) {
    if (free_bits_ == 0) {
      bytes_.push_back('\0');
      free_bits_ = 8;
    }
    const int take = width < free_bits_ ? width : free_bits_;
    const uint64_t chunk = (bits >> (width - take)) & ((uint64_t{1} << take) - 1);
    bytes_.back() = static_cast<char>(static_cast<uint8_t>(bytes_.back()) |
                                      static_cast<uint8_t>(chunk << (free_bits_ - take)));
    free_bits_ -= take;
    width -= take;
  }
}

void SampleBlockWriter::PutTimestamp(int64_t ts) {
  const uint64_t delta = static_cast<uint64_t>(ts) - prev_ts_;
  const int64_t dod = static_cast<int64_t>(delta - prev_delta_);
  prev_ts_ = static_cast<uint64_t>(ts);
  prev_delta_ = delta;
  if (dod == 0) return PutBits(0, 1);
  for (const Bucket& b : kBuckets) {
    if (!FitsSigned(dod, b.width)) continue;
    // `ones` 1 bits, then a 0 bit except after the fifth.
    PutBits(b.ones == 5 ? 0x1F : ((uint64_t{1} << b.ones) - 1) << 1, b.ones == 5 ? 5 : b.ones + 1);
    return PutBits(static_cast<uint64_t>(dod), b.width);
  }
}

void SampleBlockWriter::PutValue(double value) {
  const uint64_t bits = std::bit_cast<uint64_t>(value);
  const uint64_t x = bits ^ prev_value_;
  prev_value_ = bits;
  if (x == 0) return PutBits(0, 1);
  const int lead = std::countl_zero(x);
  const int trail = std::countr_zero(x);
  if (window_lead_ >= 0 && lead >= window_lead_ &&
      64 - window_lead_ - window_width_ <= trail) {  // the 1 bits lie inside the window
    PutBits(0b10, 2);
    return PutBits(x >> (64 - window_lead_ - window_width_), window_width_);
  }
  window_lead_ = lead;
  window_width_ = 64 - lead - trail;
  PutBits(0b11, 2);
  PutBits(static_cast<uint64_t>(lead), 6);
  PutBits(static_cast<uint64_t>(window_width_ - 1), 6);
  PutBits(x >> trail, window_width_);
}

SampleBlockWriter SampleBlockWriter::ContinueAfter(const SampleBlockReader& reader) {
  SampleBlockWriter writer;
  writer.bytes_ = std::string(reader.bits_);
  writer.free_bits_ = static_cast<int>(reader.bits_.size() * 8 - reader.bit_pos_);
  if (writer.free_bits_ > 0) {  // the padding is written over: clear whatever it held
    writer.bytes_.back() = static_cast<char>(static_cast<uint8_t>(writer.bytes_.back()) &
                                             static_cast<uint8_t>(0xFF << writer.free_bits_));
  }
  writer.count_ = reader.read_;
  writer.prev_ts_ = reader.prev_ts_;
  writer.prev_delta_ = reader.prev_delta_;
  writer.prev_value_ = reader.prev_value_;
  writer.window_lead_ = reader.window_lead_;
  writer.window_width_ = reader.window_width_;
  return writer;
}

void SampleBlockWriter::Add(int64_t ts, double value) {
  PutTimestamp(ts);
  PutValue(value);
  count_++;
}

std::string SampleBlockWriter::Finish() const {
  std::string block;
  storage::PutVarint32(&block, count_);
  block += bytes_;
  return block;
}

size_t SampleBlockWriter::size() const {
  return static_cast<size_t>(storage::VarintLength(count_)) + bytes_.size();
}

// ---- reading

SampleBlockReader::SampleBlockReader(std::string_view block) {
  const char* p = storage::GetVarint32Ptr(block.data(), block.data() + block.size(), &count_);
  if (p == nullptr) {
    count_ = 0;
    corrupt_ = true;
    return;
  }
  bits_ = block.substr(static_cast<size_t>(p - block.data()));
}

uint64_t SampleBlockReader::PeekBits() const {
  // The 8 bytes from the one bit_pos_ is in, big-endian (missing ones read as 0), shifted to
  // bit_pos_, then the ninth byte's high bits into the room the shift made.
  const size_t first = static_cast<size_t>(bit_pos_ / 8);
  const int offset = static_cast<int>(bit_pos_ % 8);
  uint64_t word = 0;
  const size_t available = bits_.size() - first;
  if (available >= 8) {
    std::memcpy(&word, bits_.data() + first, 8);
    if constexpr (std::endian::native == std::endian::little) word = __builtin_bswap64(word);
  } else {
    for (size_t i = 0; i < 8; ++i) {
      word = (word << 8) | (i < available ? static_cast<uint8_t>(bits_[first + i]) : 0u);
    }
  }
  if (offset == 0) return word;
  const uint64_t next = available > 8 ? static_cast<uint8_t>(bits_[first + 8]) : 0u;
  return (word << offset) | (next >> (8 - offset));
}

bool SampleBlockReader::Skip(int width) {
  if (bit_pos_ + static_cast<uint64_t>(width) > bits_.size() * 8) return false;
  bit_pos_ += static_cast<uint64_t>(width);
  return true;
}

bool SampleBlockReader::GetBits(int width, uint64_t* bits) {
  const uint64_t peeked = PeekBits();
  if (!Skip(width)) return false;
  *bits = width >= 64 ? peeked : peeked >> (64 - width);
  return true;
}

bool SampleBlockReader::GetTimestamp(int64_t* ts) {
  // Up to five 1 bits, then (unless five) the 0 that ends them.
  const int ones = std::min(std::countl_one(PeekBits()), 5);
  if (!Skip(ones == 5 ? 5 : ones + 1)) return false;
  int64_t dod = 0;
  if (ones > 0) {
    const int width = kBuckets[ones - 1].width;
    uint64_t bits = 0;
    if (!GetBits(width, &bits)) return false;
    dod = SignExtend(bits, width);
  }
  prev_delta_ += static_cast<uint64_t>(dod);
  prev_ts_ += prev_delta_;
  *ts = static_cast<int64_t>(prev_ts_);
  return true;
}

bool SampleBlockReader::GetValue(double* value) {
  const uint64_t control = PeekBits() >> 62;  // the first two bits
  if ((control & 2) == 0) {                   // '0': the value repeats
    if (!Skip(1)) return false;
  } else {
    if (!Skip(2)) return false;
    if (control == 3) {
      uint64_t lead = 0, width_minus_one = 0;
      if (!GetBits(6, &lead) || !GetBits(6, &width_minus_one)) return false;
      if (lead + width_minus_one + 1 > 64) return false;
      window_lead_ = static_cast<int>(lead);
      window_width_ = static_cast<int>(width_minus_one) + 1;
    } else if (window_lead_ < 0) {
      return false;  // a window reused before any was set
    }
    uint64_t significant = 0;
    if (!GetBits(window_width_, &significant)) return false;
    const int shift = 64 - window_lead_ - window_width_;
    prev_value_ ^= shift >= 64 ? 0 : significant << shift;
  }
  *value = std::bit_cast<double>(prev_value_);
  return true;
}

bool SampleBlockReader::Next(Sample* sample) {
  if (corrupt_) return false;
  if (read_ >= count_) {
    // Only the last byte's padding may follow the last sample.
    if (bits_.size() * 8 - bit_pos_ >= 8) corrupt_ = true;
    return false;
  }
  if (!GetTimestamp(&sample->ts) || !GetValue(&sample->value)) {
    corrupt_ = true;
    return false;
  }
  read_++;
  return true;
}

}  // namespace ebb::types
