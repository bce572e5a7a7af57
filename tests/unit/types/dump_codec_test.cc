// The DUMP payload (types/dump_codec.h): the worked examples of docs/dump-format.md byte for
// byte (format 2 written, format 1 still read), round trips of every type, and what a reader
// refuses.
#include "types/dump_codec.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

#include "storage/util/coding.h"
#include "storage/util/crc32c.h"

namespace ebb::types {
namespace {

std::string Hex(const std::string& bytes) {
  static const char* kDigits = "0123456789abcdef";
  std::string out;
  for (unsigned char c : bytes) {
    if (!out.empty()) out.push_back(' ');
    out.push_back(kDigits[c >> 4]);
    out.push_back(kDigits[c & 15]);
  }
  return out;
}

// The checksum trailer of `bytes` (fixed32-LE crc32c).
std::string Checksummed(const std::string& bytes) {
  std::string out;
  storage::PutFixed32(&out, storage::crc32c::Value(bytes));
  return out;
}

KeyDump StringExample() {
  KeyDump d;
  d.type = KeyType::kString;
  d.versions = {{.tombstone = true, .ts = 100}, {.ts = 1700000000000, .value = "bar"}};
  return d;
}

KeyDump TlogExample() {
  KeyDump d;
  d.type = KeyType::kTlog;
  d.meta_ts = 1700000000000;
  d.log.cutoff = 100;
  d.entries = {{.ts = 200, .value = "hi"}, {.ts = 150, .value = "a"}};
  return d;
}

std::string Bytes(std::string_view hex) {
  std::string out;
  for (size_t i = 0; i + 1 < hex.size(); i += 3) {
    out.push_back(static_cast<char>(std::stoi(std::string(hex.substr(i, 2)), nullptr, 16)));
  }
  return out;
}

// docs/dump-format.md's format 1 examples, as servers without expiries in the payload wrote them.
constexpr std::string_view kStringFormat1 =
    "45 42 42 01 00 02 03 64 00 00 00 00 00 00 00 02 00 68 e5 cf 8b 01 00 00 03 62 61 72 d8 8e "
    "ed 28";
constexpr std::string_view kTlogFormat1 =
    "45 42 42 01 02 00 68 e5 cf 8b 01 00 00 64 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 "
    "02 c8 00 00 00 00 00 00 00 02 68 69 96 00 00 00 00 00 00 00 01 61 6e 0a ee 5a";

TEST(DumpCodec, WorkedExamples) {
  KeyDump string = StringExample();
  string.versions[1].expire_at = 1700000060000;
  EXPECT_EQ(Hex(EncodeDump(string)),
            "45 42 42 02 00 02 03 64 00 00 00 00 00 00 00 06 00 68 e5 cf 8b 01 00 00 60 52 e6 cf "
            "8b 01 00 00 03 62 61 72 a1 df 9e 80");
  KeyDump tlog = TlogExample();
  tlog.meta_expire_at = 1700000060000;
  EXPECT_EQ(Hex(EncodeDump(tlog)),
            "45 42 42 02 02 01 60 52 e6 cf 8b 01 00 00 00 68 e5 cf 8b 01 00 00 64 00 00 00 00 00 "
            "00 00 00 00 00 00 00 00 00 00 00 02 c8 00 00 00 00 00 00 00 02 68 69 96 00 00 00 00 "
            "00 00 00 01 61 7d f1 89 37");
}

TEST(DumpCodec, Format1PayloadsStillDecodeWithoutExpiries) {
  KeyDump d;
  ASSERT_EQ(DecodeDump(Bytes(kStringFormat1), &d), DumpDecode::kOk);
  EXPECT_EQ(EncodeDump(d), EncodeDump(StringExample()));
  EXPECT_FALSE(d.versions[1].expire_at.has_value());
  ASSERT_EQ(DecodeDump(Bytes(kTlogFormat1), &d), DumpDecode::kOk);
  EXPECT_EQ(EncodeDump(d), EncodeDump(TlogExample()));
  EXPECT_FALSE(d.meta_expire_at.has_value());
}

TEST(DumpCodec, RoundTripsEveryType) {
  KeyDump treg;
  treg.type = KeyType::kTreg;
  treg.meta_ts = -5;
  treg.treg_ts = UINT64_MAX;
  treg.treg_value = std::string("a\0b", 3);
  KeyDump windowed = TlogExample();
  windowed.log.window_ms = 60000;
  windowed.log.newest = 200;
  treg.meta_expire_at = -7;
  KeyDump no_ts;
  no_ts.versions = {{.value = ""}, {.value = "x", .expire_at = 5}, {.ts = 3, .value = "y"}};
  for (const KeyDump& d : {StringExample(), TlogExample(), treg, windowed, no_ts}) {
    KeyDump back;
    ASSERT_EQ(DecodeDump(EncodeDump(d), &back), DumpDecode::kOk);
    EXPECT_EQ(EncodeDump(back), EncodeDump(d));
    EXPECT_EQ(back.type, d.type);
    EXPECT_EQ(back.log, d.log);
    EXPECT_EQ(back.treg_value, d.treg_value);
    EXPECT_EQ(back.meta_expire_at, d.meta_expire_at);
    ASSERT_EQ(back.versions.size(), d.versions.size());
    for (size_t i = 0; i < d.versions.size(); ++i) {
      EXPECT_EQ(back.versions[i].expire_at, d.versions[i].expire_at) << i;
      EXPECT_EQ(back.versions[i].ts, d.versions[i].ts) << i;
    }
    EXPECT_EQ(back.entries.size(), d.entries.size());
  }
}

TEST(DumpCodec, RefusesDamageOtherFormatsAndBadBodies) {
  const std::string good = EncodeDump(TlogExample());
  KeyDump d;
  for (size_t i = 0; i < good.size(); ++i) {
    std::string bad = good;
    bad[i] = static_cast<char>(bad[i] ^ 1);
    EXPECT_EQ(DecodeDump(bad, &d), DumpDecode::kBadVersionOrChecksum) << i;
  }
  EXPECT_EQ(DecodeDump(good.substr(0, 8), &d), DumpDecode::kBadVersionOrChecksum);
  EXPECT_EQ(DecodeDump("", &d), DumpDecode::kBadVersionOrChecksum);
  // Entries out of order, below the cutoff, twice; an unknown type: checksummed, yet refused.
  KeyDump unordered = TlogExample();
  std::swap(unordered.entries[0], unordered.entries[1]);
  EXPECT_EQ(DecodeDump(EncodeDump(unordered), &d), DumpDecode::kBadFormat);
  KeyDump below = TlogExample();
  below.entries[1].ts = 99;
  EXPECT_EQ(DecodeDump(EncodeDump(below), &d), DumpDecode::kBadFormat);
  KeyDump twice = TlogExample();
  twice.entries[1] = twice.entries[0];
  EXPECT_EQ(DecodeDump(EncodeDump(twice), &d), DumpDecode::kBadFormat);
  KeyDump unknown = StringExample();
  unknown.type = static_cast<KeyType>(7);
  EXPECT_EQ(DecodeDump(EncodeDump(unknown), &d), DumpDecode::kBadFormat);
  // A tombstone with an expiry; a metadata expiry flag other than 0 or 1; format 1 with an expiry
  // flag.
  KeyDump expiring_tombstone = StringExample();
  expiring_tombstone.versions[0].expire_at = 1;
  EXPECT_EQ(DecodeDump(EncodeDump(expiring_tombstone), &d), DumpDecode::kBadFormat);
  std::string flag2 = EncodeDump(TlogExample());
  flag2[5] = 2;
  flag2.resize(flag2.size() - 4);
  flag2 += Checksummed(flag2);
  EXPECT_EQ(DecodeDump(flag2, &d), DumpDecode::kBadFormat);
  KeyDump expiring = StringExample();
  expiring.versions[1].expire_at = 1;
  std::string old_with_expiry = EncodeDump(expiring);
  old_with_expiry[3] = 1;
  old_with_expiry.resize(old_with_expiry.size() - 4);
  old_with_expiry += Checksummed(old_with_expiry);
  EXPECT_EQ(DecodeDump(old_with_expiry, &d), DumpDecode::kBadFormat);
  std::string format3 = EncodeDump(StringExample());
  format3[3] = 3;
  format3.resize(format3.size() - 4);
  format3 += Checksummed(format3);
  EXPECT_EQ(DecodeDump(format3, &d), DumpDecode::kBadVersionOrChecksum);
  KeyDump empty = StringExample();
  empty.versions.clear();
  EXPECT_EQ(DecodeDump(EncodeDump(empty), &d), DumpDecode::kBadFormat);
}

}  // namespace
}  // namespace ebb::types
