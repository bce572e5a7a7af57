#include "types/sample_block.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace ebb::types {
namespace {

std::vector<Sample> ReadAll(std::string_view block, bool* corrupt = nullptr) {
  SampleBlockReader reader(block);
  std::vector<Sample> out;
  Sample s;
  while (reader.Next(&s)) out.push_back(s);
  if (corrupt != nullptr) *corrupt = reader.corrupt();
  return out;
}

std::string Write(const std::vector<Sample>& samples) {
  SampleBlockWriter writer;
  for (const Sample& s : samples) writer.Add(s.ts, s.value);
  return writer.Finish();
}

// Bit-exact: NaN payloads and -0.0 compare by their bits.
void ExpectSame(const std::vector<Sample>& want, const std::vector<Sample>& got) {
  ASSERT_EQ(want.size(), got.size());
  for (size_t i = 0; i < want.size(); i++) {
    EXPECT_EQ(want[i].ts, got[i].ts) << i;
    EXPECT_EQ(std::bit_cast<uint64_t>(want[i].value), std::bit_cast<uint64_t>(got[i].value)) << i;
  }
}

TEST(SampleBlockTest, EmptyBlock) {
  const std::string block = SampleBlockWriter().Finish();
  EXPECT_EQ(block, std::string(1, '\0'));
  bool corrupt = true;
  EXPECT_TRUE(ReadAll(block, &corrupt).empty());
  EXPECT_FALSE(corrupt);
}

TEST(SampleBlockTest, EveryTimestampAndDoubleRoundTrips) {
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  const std::vector<Sample> samples = {
      {kMin, 0.0},
      {kMax, -0.0},
      {0, std::numeric_limits<double>::infinity()},
      {-1, -std::numeric_limits<double>::infinity()},
      {-1, std::numeric_limits<double>::quiet_NaN()},
      {5, std::bit_cast<double>(uint64_t{0x7FF0000000000001})},  // a signalling NaN's payload
      {6, std::numeric_limits<double>::denorm_min()},
      {1'700'000'000'000, 1e308},
      {1'700'000'000'001, -1e-308},
      {kMax, 1.0},
      {kMin, 1.0}};
  ExpectSame(samples, ReadAll(Write(samples)));
}

TEST(SampleBlockTest, EachTimestampBucketAndValueForm) {
  std::vector<Sample> samples;
  int64_t ts = 1000;
  int64_t delta = 10;
  // Deltas of deltas at the edges of each bucket, both signs.
  for (int64_t dod : {0L, 63L, -64L, 64L, 255L, -256L, 256L, 2047L, -2048L, 2048L, 2147483647L,
                      -2147483648L, 2147483648L, -2147483649L}) {
    delta += dod;
    ts += delta;
    samples.push_back({ts, static_cast<double>(samples.size())});
  }
  // Values: the same (x == 0), inside the previous window, a new window, all 64 bits.
  for (double v : {3.0, 3.0, 3.5, 3.25, -3.25, 1e-300, 1e300}) {
    ts += 1000;
    samples.push_back({ts, v});
  }
  ExpectSame(samples, ReadAll(Write(samples)));
}

TEST(SampleBlockTest, RandomSeriesRoundTrip) {
  std::mt19937_64 rng(42);
  for (int round = 0; round < 200; round++) {
    std::vector<Sample> samples;
    int64_t ts = static_cast<int64_t>(rng());
    const int n = static_cast<int>(rng() % 300);
    for (int i = 0; i < n; i++) {
      switch (rng() % 4) {
        case 0:
          ts += 1000;
          break;
        case 1:
          ts += static_cast<int64_t>(rng() % 5000);
          break;
        case 2:
          ts = static_cast<int64_t>(rng());
          break;
        default:
          break;  // a duplicate timestamp
      }
      const double value =
          rng() % 3 == 0 ? std::bit_cast<double>(rng()) : static_cast<double>(rng() % 100) / 4;
      samples.push_back({ts, value});
    }
    ExpectSame(samples, ReadAll(Write(samples)));
  }
}

// A writer that continues a block a reader read to its end writes the very bytes one writer
// adding every sample would have.
TEST(SampleBlockTest, ContinuingABlockWritesTheSameBytesAsOneWriter) {
  std::mt19937_64 rng(7);
  for (int round = 0; round < 300; round++) {
    std::vector<Sample> samples;
    int64_t ts = static_cast<int64_t>(rng() % 100000);
    const int n = 1 + static_cast<int>(rng() % 200);
    for (int i = 0; i < n; i++) {
      ts += rng() % 2 == 0 ? 1000 : static_cast<int64_t>(rng() % 70000);
      const double value =
          rng() % 4 == 0 ? std::bit_cast<double>(rng()) : static_cast<double>(rng() % 100) / 8;
      samples.push_back({ts, value});
    }
    const size_t split = rng() % samples.size() + 1;  // at least one sample before it
    SampleBlockWriter head;
    for (size_t i = 0; i < split; i++) head.Add(samples[i].ts, samples[i].value);
    const std::string block = head.Finish();
    SampleBlockReader reader(block);
    Sample sample;
    while (reader.Next(&sample)) {
    }
    ASSERT_FALSE(reader.corrupt());
    SampleBlockWriter continued = SampleBlockWriter::ContinueAfter(reader);
    for (size_t i = split; i < samples.size(); i++) continued.Add(samples[i].ts, samples[i].value);
    ASSERT_EQ(continued.Finish(), Write(samples)) << "round " << round << " split " << split;
    EXPECT_EQ(continued.count(), samples.size());
  }
}

// Padding bits a hostile block sets are not carried into the samples written after them.
TEST(SampleBlockTest, ContinuingClearsThePadding) {
  std::string block = Write({{1000, 1.5}});
  const std::string clean = block;
  block.back() = static_cast<char>(static_cast<uint8_t>(block.back()) | 0x01);
  SampleBlockReader reader(block);
  Sample sample;
  while (reader.Next(&sample)) {
  }
  ASSERT_FALSE(reader.corrupt());
  SampleBlockWriter continued = SampleBlockWriter::ContinueAfter(reader);
  continued.Add(2000, 2.5);
  EXPECT_EQ(continued.Finish(), Write({{1000, 1.5}, {2000, 2.5}}));
  ASSERT_NE(block, clean);  // the padding was set: the test saw a hostile block
}

// The compression the encoding exists for: a reading every second whose value moves a little.
TEST(SampleBlockTest, ARegularSeriesTakesAboutTwoBytesASample) {
  SampleBlockWriter writer;
  double value = 20.0;
  for (int i = 0; i < 10'000; i++) {
    if (i % 10 == 0) value += 0.5;
    writer.Add(1'700'000'000'000 + i * 1000, value);
  }
  const std::string block = writer.Finish();
  EXPECT_LT(block.size(), 2 * 10'000u);
  EXPECT_EQ(ReadAll(block).size(), 10'000u);
}

TEST(SampleBlockTest, TruncatedAndDamagedBlocksAreRefused) {
  std::vector<Sample> samples;
  for (int i = 0; i < 50; i++) samples.push_back({i * 997L, i * 1.5});
  const std::string block = Write(samples);
  for (size_t cut = 0; cut < block.size(); cut++) {
    bool corrupt = false;
    const std::vector<Sample> got = ReadAll(block.substr(0, cut), &corrupt);
    EXPECT_TRUE(corrupt) << cut;
    EXPECT_LT(got.size(), samples.size()) << cut;
  }
  bool corrupt = false;
  ReadAll(block + "\x01", &corrupt);  // a whole byte after the last sample
  EXPECT_TRUE(corrupt);
  // A count larger than its bits: refused once the bits run out.
  std::string inflated = block;
  inflated[0] = static_cast<char>(0x7F);
  ReadAll(inflated, &corrupt);
  EXPECT_TRUE(corrupt);
  // Any bytes at all: read without reading past them.
  std::mt19937_64 rng(7);
  for (int round = 0; round < 2000; round++) {
    std::string bytes(rng() % 40, '\0');
    for (char& c : bytes) c = static_cast<char>(rng());
    ReadAll(bytes);
  }
}

// A window header that claims more than 64 bits is malformed, not read.
TEST(SampleBlockTest, AValueWindowWiderThanADoubleIsRefused) {
  // count 1 | ts '0' | value '11' lead=63 width-1=63 ...
  // bits: 0 11 111111 111111 -> 0b0111_1111 0b1111_1110 (then padding)
  const std::string block = std::string("\x01", 1) + "\x7F\xFE" + std::string(8, '\xFF');
  bool corrupt = false;
  EXPECT_TRUE(ReadAll(block, &corrupt).empty());
  EXPECT_TRUE(corrupt);
}

}  // namespace
}  // namespace ebb::types
