// The DUMP payload (types/dump_codec.h): the worked examples of docs/dump-format.md byte for
// byte, round trips of every type, and what a reader refuses.
#include "types/dump_codec.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <utility>

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

TEST(DumpCodec, WorkedExamples) {
  EXPECT_EQ(Hex(EncodeDump(StringExample())),
            "45 42 42 01 00 02 03 64 00 00 00 00 00 00 00 02 00 68 e5 cf 8b 01 00 00 03 62 61 "
            "72 d8 8e ed 28");
  EXPECT_EQ(Hex(EncodeDump(TlogExample())),
            "45 42 42 01 02 00 68 e5 cf 8b 01 00 00 64 00 00 00 00 00 00 00 00 00 00 00 00 00 "
            "00 00 00 02 c8 00 00 00 00 00 00 00 02 68 69 96 00 00 00 00 00 00 00 01 61 6e 0a "
            "ee 5a");
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
  KeyDump no_ts;
  no_ts.versions = {{.value = ""}};
  for (const KeyDump& d : {StringExample(), TlogExample(), treg, windowed, no_ts}) {
    KeyDump back;
    ASSERT_EQ(DecodeDump(EncodeDump(d), &back), DumpDecode::kOk);
    EXPECT_EQ(EncodeDump(back), EncodeDump(d));
    EXPECT_EQ(back.type, d.type);
    EXPECT_EQ(back.log, d.log);
    EXPECT_EQ(back.treg_value, d.treg_value);
    EXPECT_EQ(back.versions.size(), d.versions.size());
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
  KeyDump empty = StringExample();
  empty.versions.clear();
  EXPECT_EQ(DecodeDump(EncodeDump(empty), &d), DumpDecode::kBadFormat);
}

}  // namespace
}  // namespace ebb::types
