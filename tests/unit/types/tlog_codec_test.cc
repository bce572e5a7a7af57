// TLOG encodings: element order equals the newest-first entry order; round trips; malformed input.
#include "types/tlog_codec.h"

#include <gtest/gtest.h>

#include <limits>
#include <random>
#include <string>

#include "tests/support/test_constants.h"
#include "types/tlog_state.h"

namespace ebb::types {
namespace {

std::string Element(uint64_t ts, std::string_view value) {
  std::string out;
  AppendTlogElement(&out, ts, value);
  return out;
}

TEST(TlogCodecTest, MetaRoundTrip) {
  TlogMeta meta{.version = 1234567, .cutoff = test::kMaxTimestamp, .size = 42};
  TlogMeta decoded;
  ASSERT_TRUE(DecodeTlogMeta(EncodeTlogMeta(meta), &decoded));
  EXPECT_EQ(decoded, meta);
}

// docs/key-encoding.md, "TLOG": a log kept under a retention window carries it and its newest
// timestamp after the size; a log without one has no such tail (older payloads decode alike).
TEST(TlogCodecTest, MetaWithARetentionWindow) {
  const TlogMeta meta{
      .version = 7, .cutoff = 100, .size = 3, .window_ms = 60000, .newest = 1700000000000};
  const std::string payload = EncodeTlogMeta(meta);
  EXPECT_EQ(payload, std::string("\x07"
                                 "\x64\x00\x00\x00\x00\x00\x00\x00"
                                 "\x03"
                                 "\xe0\xd4\x03"
                                 "\x00\x68\xe5\xcf\x8b\x01\x00\x00",
                                 21));
  TlogMeta decoded;
  ASSERT_TRUE(DecodeTlogMeta(payload, &decoded));
  EXPECT_EQ(decoded, meta);
  EXPECT_EQ(EncodeTlogMeta({.version = 7, .cutoff = 100, .size = 3}).size(), 10u);
  EXPECT_FALSE(DecodeTlogMeta(payload.substr(0, payload.size() - 1), &decoded));
}

// docs/key-encoding.md, "TLOG": an active-active expiry register follows the window tail (its
// window 0 when the log has none); a window of 0 with no register after it is malformed.
TEST(TlogCodecTest, MetaWithAnExpiryRegister) {
  const TlogMeta meta{
      .version = 7,
      .cutoff = 100,
      .size = 3,
      .newest = 1700000000000,
      .expiry_register = TlogMeta::Register{.ts = 1700000000001, .expire_at = 1700000060000}};
  const std::string payload = EncodeTlogMeta(meta);
  EXPECT_EQ(payload, std::string("\x07"
                                 "\x64\x00\x00\x00\x00\x00\x00\x00"
                                 "\x03"
                                 "\x00"
                                 "\x00\x68\xe5\xcf\x8b\x01\x00\x00"
                                 "\x01\x68\xe5\xcf\x8b\x01\x00\x00"
                                 "\x01"
                                 "\x60\x52\xe6\xcf\x8b\x01\x00\x00",
                                 36));
  TlogMeta decoded;
  ASSERT_TRUE(DecodeTlogMeta(payload, &decoded));
  EXPECT_EQ(decoded, meta);

  TlogMeta persisted = meta;
  persisted.window_ms = 60000;
  persisted.expiry_register->expire_at.reset();
  ASSERT_TRUE(DecodeTlogMeta(EncodeTlogMeta(persisted), &decoded));
  EXPECT_EQ(decoded, persisted);

  for (size_t cut = 1; cut < payload.size() - 10; cut++) {
    EXPECT_FALSE(DecodeTlogMeta(payload.substr(0, payload.size() - cut), &decoded)) << cut;
  }
  EXPECT_FALSE(DecodeTlogMeta(payload + "x", &decoded));
  std::string bad_flag = payload;
  bad_flag[27] = 2;
  EXPECT_FALSE(DecodeTlogMeta(bad_flag, &decoded));
}

TEST(TlogCodecTest, MetaRejectsTruncatedAndTrailingBytes) {
  std::string payload = EncodeTlogMeta({.version = 1, .cutoff = 2, .size = 3});
  TlogMeta decoded;
  EXPECT_FALSE(DecodeTlogMeta(payload.substr(0, payload.size() - 1), &decoded));
  EXPECT_FALSE(DecodeTlogMeta(payload + "x", &decoded));
  EXPECT_FALSE(DecodeTlogMeta("", &decoded));
}

TEST(TlogCodecTest, ElementRoundTripIncludingBinaryAndExtremes) {
  const std::string values[] = {"", std::string("\0", 1), std::string("\xff\x00\xfe\x01", 4),
                                "hello", std::string(300, '\0')};
  for (uint64_t ts : {uint64_t{0}, uint64_t{1}, test::kMaxTimestamp - 1, test::kMaxTimestamp}) {
    for (const std::string& v : values) {
      uint64_t got_ts = 7;
      std::string got;
      ASSERT_TRUE(DecodeTlogElement(Element(ts, v), &got_ts, &got));
      EXPECT_EQ(got_ts, ts);
      EXPECT_EQ(got, v);
      ASSERT_TRUE(DecodeTlogElementTs(Element(ts, v), &got_ts));
      EXPECT_EQ(got_ts, ts);
    }
  }
}

TEST(TlogCodecTest, ExtensionSortsBeforeItsPrefix) {
  EXPECT_LT(Element(5, "ab"), Element(5, "a"));
  EXPECT_LT(Element(5, std::string("a\0", 2)), Element(5, "a"));
  EXPECT_LT(Element(5, "a"), Element(5, ""));
  EXPECT_LT(Element(5, std::string("\xff", 1)), Element(5, "a"));
  EXPECT_LT(Element(6, ""), Element(5, std::string("\xff", 1)));
}

TEST(TlogCodecTest, ElementOrderIsEntryOrderOnRandomPairs) {
  std::mt19937_64 rng(99);
  auto random_value = [&] {
    std::string v(rng() % 4, '\0');
    for (char& c : v)
      c = static_cast<char>(
          "\x00\x01\xfe\xff"
          "a"[rng() % 5]);
    return v;
  };
  for (int i = 0; i < 20000; ++i) {
    uint64_t ta = rng() % 3 == 0 ? test::kMaxTimestamp - rng() % 2 : rng() % 3;
    uint64_t tb = rng() % 3 == 0 ? test::kMaxTimestamp - rng() % 2 : rng() % 3;
    std::string va = random_value(), vb = random_value();
    std::string ea = Element(ta, va), eb = Element(tb, vb);
    ASSERT_EQ(ea < eb, EntryBefore(ta, va, tb, vb)) << "iteration " << i;
    ASSERT_EQ(ea == eb, ta == tb && va == vb) << "iteration " << i;
  }
}

TEST(TlogCodecTest, SeekTsPositionsAtFirstEntryNotNewerThanTs) {
  std::string seek = TlogElementSeekTs(10);
  EXPECT_LT(Element(11, ""), seek);
  EXPECT_LT(seek, Element(10, std::string("\xff\xff", 2)));
  EXPECT_LT(seek, Element(10, ""));
  EXPECT_LT(seek, Element(9, "z"));
}

TEST(TlogCodecTest, MalformedElementsRejected) {
  uint64_t ts;
  std::string v;
  EXPECT_FALSE(DecodeTlogElement("short", &ts, &v));
  std::string good = Element(3, "abc");
  EXPECT_FALSE(DecodeTlogElement(good.substr(0, good.size() - 1), &ts, &v));  // no terminator
  EXPECT_FALSE(DecodeTlogElement(good + "x", &ts, &v));                       // trailing bytes
  EXPECT_FALSE(DecodeTlogElement(good.substr(0, 8) + "\xff\x05", &ts, &v));   // bad escape
  EXPECT_FALSE(DecodeTlogElementTs("1234567", &ts));
}

}  // namespace
}  // namespace ebb::types
