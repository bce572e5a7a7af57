// The observed-remove codecs (types/or_context.h, types/or_string_ext.h): a delta's context and a
// string row's extension round-trip in their documented bytes, and every malformed form is refused
// — wrong version, flags or entry kind, order, duplicates, zero offsets, long varints, truncation,
// trailing bytes.
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <string_view>

#include "types/or_context.h"
#include "types/or_string_ext.h"

namespace ebb::types {
namespace {

// A literal's bytes, NULs included.
template <size_t N>
std::string B(const char (&s)[N]) {
  return std::string(s, N - 1);
}

const OriginId kOwn(std::string(kOriginIdSize, '\x33'));
const OriginId kLow(std::string(kOriginIdSize, '\x11'));
const OriginId kHigh(std::string(kOriginIdSize, '\x77'));

OrContext Context(std::initializer_list<Dot> dots) {
  OrContext c;
  for (const Dot& d : dots) c.Raise(d.origin, d.offset);
  return c;
}

bool Decodes(std::string_view bytes) {
  OrContext c;
  return DecodeOrContext(bytes, kOwn, &c);
}

bool ExtDecodes(std::string bytes) {
  std::string_view in = bytes;
  OrStringExt ext;
  return ConsumeOrStringExt(&in, &ext) && in.empty();
}

TEST(OriginIdTest, OrdersAndComparesAsItsBytes) {
  // Bytes compare unsigned, as the std::string of the same bytes does (0x80 above 0x7f), so a
  // context's entries and a key's slots keep the order their wire forms and rows were written in.
  const std::string below(kOriginIdSize, '\x7f');
  const std::string above(kOriginIdSize, '\x80');
  ASSERT_LT(below, above);
  EXPECT_LT(OriginId(below), OriginId(above));
  EXPECT_LT(OriginId(below), std::string_view(above));
  EXPECT_GT(std::string_view(above), OriginId(below));
  EXPECT_EQ(OriginId(above), std::string_view(above));
  EXPECT_EQ(OriginId(above).view(), above);
  EXPECT_EQ(OriginId(), std::string(kOriginIdSize, '\0'));
  // Its hex form: exactly 2 * kOriginIdSize digits, either case.
  const std::optional<OriginId> id = OriginId::FromHex(std::string(2 * kOriginIdSize, 'F'));
  ASSERT_TRUE(id);
  EXPECT_EQ(*id, std::string(kOriginIdSize, '\xff'));
  EXPECT_FALSE(OriginId::FromHex(std::string(2 * kOriginIdSize - 1, 'f')));
  EXPECT_FALSE(OriginId::FromHex(std::string(2 * kOriginIdSize - 1, 'f') + "x"));
}

TEST(OrContextTest, HoldsTheGreatestOffsetPerOrigin) {
  OrContext c;
  EXPECT_EQ(c.At(kOwn), 0u);
  EXPECT_TRUE(c.Raise(kOwn, 5));
  EXPECT_FALSE(c.Raise(kOwn, 3));
  EXPECT_TRUE(c.Raise(kLow, 2));
  EXPECT_EQ(c.At(kOwn), 5u);
  EXPECT_EQ(c.entries().front().origin, kLow);  // ascending
  EXPECT_TRUE(c.Join(Context({{kOwn, 6}, {kHigh, 1}})));
  EXPECT_FALSE(c.Join(Context({{kOwn, 6}})));
  EXPECT_EQ(c, Context({{kLow, 2}, {kOwn, 6}, {kHigh, 1}}));
  c.Erase(kOwn);
  EXPECT_EQ(c.At(kOwn), 0u);
}

// docs/active-active.md: the usual context, the writer's own previous version, is 3 bytes and its
// offset's varint.
TEST(OrContextTest, TheUsualContextIsThreeBytesAndAVarint) {
  EXPECT_EQ(EncodeOrContext(Context({{kOwn, 300}}), kOwn), std::string("\x01\x01\x00\xac\x02", 5));
  EXPECT_EQ(EncodeOrContext(OrContext(), kOwn), std::string("\x01\x00", 2));
}

TEST(OrContextTest, RoundTripsWithTheOwnEntryFirst) {
  for (const OrContext& c :
       {OrContext(), Context({{kOwn, 1}}), Context({{kLow, 7}, {kHigh, 1ull << 40}}),
        Context({{kLow, 1}, {kOwn, ~0ull}, {kHigh, 128}})}) {
    const std::string bytes = EncodeOrContext(c, kOwn);
    OrContext back;
    ASSERT_TRUE(DecodeOrContext(bytes, kOwn, &back));
    EXPECT_EQ(back, c);
  }
  const std::string mixed = EncodeOrContext(Context({{kLow, 1}, {kOwn, 2}}), kOwn);
  EXPECT_EQ(mixed, B("\x01\x02\x00\x02\x01") + std::string(kLow) + "\x01");
  // Another origin's view of the same context names kOwn by its id.
  OrContext back;
  ASSERT_TRUE(DecodeOrContext(EncodeOrContext(Context({{kOwn, 2}}), kLow), kLow, &back));
  EXPECT_EQ(back, Context({{kOwn, 2}}));
}

TEST(OrContextTest, RefusesEveryMalformedForm) {
  const std::string own = std::string("\x00\x05", 2);
  const std::string low = "\x01" + std::string(kLow) + "\x05";
  const std::string high = "\x01" + std::string(kHigh) + "\x05";
  EXPECT_TRUE(Decodes("\x01\x03" + own + low + high));
  EXPECT_FALSE(Decodes(""));
  EXPECT_FALSE(Decodes(B("\x02\x00")));                                // version
  EXPECT_FALSE(Decodes(std::string("\x01\x80\x00", 3)));               // count not shortest
  EXPECT_FALSE(Decodes("\x01\x02" + low));                             // fewer entries than counted
  EXPECT_FALSE(Decodes("\x01\x01" + low + high));                      // trailing bytes
  EXPECT_FALSE(Decodes("\x01\x02" + low + own));                       // own entry not first
  EXPECT_FALSE(Decodes("\x01\x02" + own + own));                       // own entry twice
  EXPECT_FALSE(Decodes("\x01\x02" + high + low));                      // ids descending
  EXPECT_FALSE(Decodes("\x01\x02" + low + low));                       // duplicate id
  EXPECT_FALSE(Decodes("\x01\x01\x01" + std::string(kOwn) + "\x05"));  // own id spelled out
  EXPECT_FALSE(Decodes("\x01\x01\x02" + std::string(kLow) + "\x05"));  // unknown entry kind
  EXPECT_FALSE(Decodes(std::string("\x01\x01\x00\x00", 4)));           // offset 0
  EXPECT_FALSE(Decodes("\x01\x01\x01" + std::string(kLow) + std::string("\x00", 1)));
  EXPECT_FALSE(Decodes(std::string("\x01\x01\x00\x85\x00", 5)));  // offset not shortest
  EXPECT_FALSE(Decodes(B("\x01\x01\x00") + std::string(10, '\xff') + "\x01"));  // too long
  // Ten bytes whose last one holds bits above 64.
  EXPECT_TRUE(Decodes(B("\x01\x01\x00") + std::string(9, '\xff') + "\x01"));
  EXPECT_FALSE(Decodes(B("\x01\x01\x00") + std::string(9, '\xff') + "\x03"));
  EXPECT_FALSE(Decodes(std::string("\x01\xff\xff\xff\xff\x7f", 6)));  // count, no entries
  const std::string whole = "\x01\x03" + own + low + high;
  for (size_t n = 0; n < whole.size(); ++n) EXPECT_FALSE(Decodes(whole.substr(0, n))) << n;
}

// Whatever decodes is the only encoding of what it decodes to.
TEST(OrContextTest, EveryAcceptedFormIsCanonical) {
  const std::string whole =
      B("\x01\x03\x00\x05\x01") + std::string(kLow) + "\x85\x01\x01" + std::string(kHigh) + "\x05";
  for (size_t i = 0; i < whole.size(); ++i) {
    for (int bit = 0; bit < 8; ++bit) {
      std::string bytes = whole;
      bytes[i] = static_cast<char>(bytes[i] ^ (1 << bit));
      OrContext c;
      if (DecodeOrContext(bytes, kOwn, &c)) {
        EXPECT_EQ(EncodeOrContext(c, kOwn), bytes);
      }
    }
  }
}

TEST(OrStringExtTest, ASingleOriginKeyTakesAbout26Bytes) {
  const OrStringExt ext{.dot = Dot{kOwn, 1000}};
  std::string row;
  EncodeOrStringRow(ext, std::string("\x00v", 2), &row);
  EXPECT_EQ(row, "\x05\x01\x02" + std::string(kOwn) + "\xe8\x07" + std::string("\x00\x00v", 3));
  OrStringExt back;
  std::string_view inner;
  ASSERT_TRUE(DecodeOrStringRow(row, &back, &inner));
  EXPECT_EQ(back, ext);
  EXPECT_EQ(inner, std::string("\x00v", 2));
  EXPECT_EQ(row.size() - inner.size(), 26u);
}

TEST(OrStringExtTest, RoundTrips) {
  for (const OrStringExt& ext :
       {OrStringExt{}, OrStringExt{.removed = Context({{kLow, 3}, {kHigh, 9}})},
        OrStringExt{.siblings_live = true, .dot = Dot{kOwn, 1}, .removed = Context({{kLow, 2}})},
        OrStringExt{.dot = Dot{kHigh, ~0ull}}}) {
    for (std::string_view inner : {std::string_view(), std::string_view("\x03raw", 4)}) {
      std::string row;
      EncodeOrStringRow(ext, inner, &row);
      OrStringExt back;
      std::string_view back_inner;
      ASSERT_TRUE(DecodeOrStringRow(row, &back, &back_inner));
      EXPECT_EQ(back, ext);
      EXPECT_EQ(back_inner, inner);
    }
  }
}

// R's count is a varint: one byte below 128 entries, two from 128 (every incarnation of every
// origin may add one).
TEST(OrStringExtTest, CountsRemovedEntriesInAVarint) {
  OrStringExt ext;
  for (int i = 0; i < 300; ++i) {
    std::string id(kOriginIdSize, '\0');
    id[0] = static_cast<char>(i / 256);
    id[1] = static_cast<char>(i % 256);
    ext.removed.Raise(OriginId(id), 1);
    if (i != 126 && i != 127 && i != 299) continue;
    std::string row;
    EncodeOrStringRow(ext, "", &row);
    const size_t entries = ext.removed.entries().size();
    EXPECT_EQ(row.size(), 3 + (entries < 128 ? 1 : 2) + entries * (kOriginIdSize + 1)) << entries;
    OrStringExt back;
    std::string_view inner;
    ASSERT_TRUE(DecodeOrStringRow(row, &back, &inner)) << entries;
    EXPECT_EQ(back, ext);
    EXPECT_TRUE(inner.empty());
  }
}

TEST(OrStringExtTest, RefusesEveryMalformedForm) {
  const std::string dot = std::string(kOwn) + "\x05";
  const std::string low = std::string(kLow) + "\x05";
  const std::string high = std::string(kHigh) + "\x05";
  EXPECT_TRUE(ExtDecodes("\x01\x03" + dot + "\x02" + low + high));
  EXPECT_FALSE(ExtDecodes(""));
  EXPECT_FALSE(ExtDecodes(B("\x02\x00\x00")));               // version
  EXPECT_FALSE(ExtDecodes(std::string("\x01\x04\x00", 3)));  // unknown flag
  EXPECT_FALSE(ExtDecodes(std::string("\x01\x01\x00", 3)));  // siblings without a dot
  EXPECT_FALSE(
      ExtDecodes("\x01\x02" + std::string(kOwn) + std::string("\x00\x00", 2)));  // dot offset 0
  EXPECT_FALSE(ExtDecodes("\x01\x02" + std::string(kOwn) + "\x85" + std::string("\x00\x00", 2)));
  EXPECT_FALSE(ExtDecodes("\x01\x02" + dot + "\x01" + std::string(kOwn) +
                          "\x02"));                          // R names the dot's origin
  EXPECT_FALSE(ExtDecodes(B("\x01\x00\x02") + high + low));  // descending
  EXPECT_FALSE(ExtDecodes(B("\x01\x00\x02") + low + low));   // duplicate
  EXPECT_FALSE(
      ExtDecodes(B("\x01\x00\x01") + std::string(kLow) + std::string("\x00", 1)));  // offset 0
  EXPECT_FALSE(ExtDecodes(B("\x01\x00\x02") + low));      // fewer than counted
  EXPECT_FALSE(ExtDecodes(B("\x01\x00\x81\x00") + low));  // a count not in its shortest form
  EXPECT_FALSE(ExtDecodes(B("\x01\x00\xff\xff\xff\xff\x0f") + low));  // a huge count, one entry
  EXPECT_FALSE(
      ExtDecodes("\x01\x02" + std::string(kOwn) + std::string(9, '\xc1') + "\x2f" + B("\x00")));
  const std::string whole = "\x01\x03" + dot + "\x02" + low + high;
  for (size_t n = 0; n < whole.size(); ++n) EXPECT_FALSE(ExtDecodes(whole.substr(0, n))) << n;
  // The row: its tag, then an inner value that is a string's or nothing.
  OrStringExt ext;
  std::string_view inner;
  EXPECT_FALSE(DecodeOrStringRow(B("\x04\x01\x00\x00"), &ext, &inner));
  EXPECT_FALSE(DecodeOrStringRow(std::string("\x05\x01\x00\x00\x01v", 6), &ext, &inner));
  EXPECT_TRUE(DecodeOrStringRow(std::string("\x05\x01\x00\x00\x00v", 6), &ext, &inner));
  EXPECT_FALSE(DecodeOrStringRow("", &ext, &inner));
}

TEST(OrStringExtTest, EveryAcceptedFormIsCanonical) {
  const std::string whole = "\x05\x01\x03" + std::string(kOwn) + "\x85\x01\x02" +
                            std::string(kLow) + "\x05" + std::string(kHigh) +
                            std::string("\x05\x00v", 3);
  for (size_t i = 0; i < whole.size(); ++i) {
    for (int bit = 0; bit < 8; ++bit) {
      std::string bytes = whole;
      bytes[i] = static_cast<char>(bytes[i] ^ (1 << bit));
      OrStringExt ext;
      std::string_view inner;
      if (!DecodeOrStringRow(bytes, &ext, &inner)) continue;
      std::string again;
      EncodeOrStringRow(ext, inner, &again);
      EXPECT_EQ(again, bytes);
    }
  }
}

}  // namespace
}  // namespace ebb::types
