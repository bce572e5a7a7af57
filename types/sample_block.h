// A block of time-series samples — (timestamp, double) pairs in timestamp order — compressed as
// Facebook's Gorilla compresses them (Pelkonen et al., VLDB 2015, section 4.1): timestamps as the
// delta of their deltas, values as the XOR of each double with the one before it. A regular
// series (a reading every second, values that change slowly) takes one or two bytes a sample.
// on-disk: never change.
//
//   block = varint32 count | bits
//
// `bits` is a bit stream, most significant bit of each byte first, zero-padded to a whole byte.
// For each sample, with prev_ts = prev_delta = 0 and prev_value = +0.0 before the first:
//
//   timestamp: delta = ts - prev_ts, dod = delta - prev_delta (two's complement, mod 2^64), as
//     '0'                      dod == 0
//     '10'    + 7 bits         dod in [-64, 63]
//     '110'   + 9 bits         dod in [-256, 255]
//     '1110'  + 12 bits        dod in [-2048, 2047]
//     '11110' + 32 bits        dod in [-2^31, 2^31 - 1]
//     '11111' + 64 bits        any other
//   (each value in two's complement of its width);
//   value: x = bits(value) XOR bits(prev_value), as
//     '0'                      x == 0
//     '10' + w bits            x's significant bits fit the previous window (lead, w): the
//                              previous '11' sample's leading zeros and width
//     '11' + 6 bits lead + 6 bits (w - 1) + w bits
//                              x has `lead` leading zeros and its w bits from there on hold
//                              every 1 bit (lead + w <= 64).
//
// The first sample's timestamp is its delta from 0, so its encoding costs up to 69 bits; every
// timestamp and double round-trips exactly (NaN payloads, -0.0, infinities included).
// Thread-safety: value types; a reader only reads the bytes it was given.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace ebb::types {

struct Sample {
  int64_t ts = 0;
  double value = 0;
};

class SampleBlockReader;

// Appends samples to a block. Timestamps should ascend (any order round-trips; ascending ones
// compress).
class SampleBlockWriter {
 public:
  SampleBlockWriter() = default;
  // A writer holding the block `reader` has read to its end, which goes on after its last
  // sample: what it Finishes is the block as if every sample had been added here, without
  // encoding them again. REQUIRES: reader.Next() returned false and !reader.corrupt().
  static SampleBlockWriter ContinueAfter(const SampleBlockReader& reader);
  void Add(int64_t ts, double value);
  // The block: its count, then its bits. The writer may go on adding.
  std::string Finish() const;
  uint32_t count() const { return count_; }
  // The size of the block Finish would return, in bytes.
  size_t size() const;

 private:
  void PutBits(uint64_t bits, int width);  // the low `width` bits of `bits`, 1 <= width <= 64
  void PutTimestamp(int64_t ts);
  void PutValue(double value);

  std::string bytes_;
  int free_bits_ = 0;  // unused low bits of bytes_.back()
  uint32_t count_ = 0;
  uint64_t prev_ts_ = 0;
  uint64_t prev_delta_ = 0;
  uint64_t prev_value_ = 0;
  int window_lead_ = -1;  // no window yet
  int window_width_ = 0;
};

// Reads a block's samples in order. Hostile bytes are refused, never read past: Next returns
// false at the end or at the first malformed sample, and corrupt() tells which (a block with
// whole bytes left after its last sample is corrupt too).
class SampleBlockReader {
  friend class SampleBlockWriter;  // ContinueAfter takes the state the reading ended in

 public:
  explicit SampleBlockReader(std::string_view block);
  // The sample count the block claims (0 for a block whose header is malformed).
  uint32_t count() const { return count_; }
  bool Next(Sample* sample);
  bool corrupt() const { return corrupt_; }

 private:
  // The next 64 bits of the stream from bit_pos_, the first in the most significant bit; bits
  // past the end read as 0 (the callers check the end with Skip or GetBits).
  uint64_t PeekBits() const;
  bool Skip(int width);                     // false, nothing skipped, past the end
  bool GetBits(int width, uint64_t* bits);  // 1 <= width <= 64
  bool GetTimestamp(int64_t* ts);
  bool GetValue(double* value);

  std::string_view bits_;
  uint64_t bit_pos_ = 0;
  uint32_t count_ = 0;
  uint32_t read_ = 0;
  bool corrupt_ = false;
  uint64_t prev_ts_ = 0;
  uint64_t prev_delta_ = 0;
  uint64_t prev_value_ = 0;
  int window_lead_ = -1;
  int window_width_ = 0;
};

}  // namespace ebb::types
