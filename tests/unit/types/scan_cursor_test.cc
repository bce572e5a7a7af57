// ScanCursors and ParseScanCursor (types/scan_cursor.h): the two cursor forms, the table's bounds
// and what is refused.
#include "types/scan_cursor.h"

#include <gtest/gtest.h>

#include <string>

namespace ebb::types {
namespace {

constexpr uint64_t kJsSafe = uint64_t{1} << 53;  // JavaScript's Number holds every integer below

TEST(ParseScanCursorTest, ReadsAnUnsigned64BitDecimal) {
  EXPECT_EQ(ParseScanCursor("0"), 0u);
  EXPECT_EQ(ParseScanCursor("007"), 7u);
  EXPECT_EQ(ParseScanCursor("18446744073709551615"), UINT64_MAX);
  for (const char* bad : {"", "-1", "+1", " 1", "1 ", "1.5", "abc", "18446744073709551616",
                          "99999999999999999999999"}) {
    EXPECT_EQ(ParseScanCursor(bad), std::nullopt) << bad;
  }
}

TEST(ScanCursorsTest, ShortPositionsAreHeldByTheCursorItself) {
  ScanCursors cursors;
  const uint64_t c = cursors.Save("key:12");
  EXPECT_EQ(c, (uint64_t{6} << 48) | 0x6b65793a3132);
  EXPECT_EQ(cursors.entries(), 0u);
  // Another process (a restart, another server) reads it alike.
  EXPECT_EQ(ScanCursors().Find(c), "key:12");
  for (const std::string& position :
       {std::string("a"), std::string("\0\xff", 2), std::string(6, '\xff'), std::string(6, '\0')}) {
    const uint64_t cursor = cursors.Save(position);
    EXPECT_NE(cursor, 0u);
    EXPECT_LT(cursor, ScanCursors::kTableBase);
    EXPECT_EQ(ScanCursors().Find(cursor), position);
  }
  EXPECT_EQ(cursors.entries(), 0u);
}

TEST(ScanCursorsTest, ZeroStartsAndMalformedCompactCursorsAreRefused) {
  ScanCursors cursors;
  EXPECT_EQ(cursors.Find(0), "");
  EXPECT_EQ(cursors.Find(1), std::nullopt);                              // length 0
  EXPECT_EQ(cursors.Find((uint64_t{7} << 48) | 1), std::nullopt);        // length 7
  EXPECT_EQ(cursors.Find((uint64_t{1} << 48) | 0x100), std::nullopt);    // bytes beyond length
  EXPECT_EQ(cursors.Find((uint64_t{15} << 48) | 0xffff), std::nullopt);  // length 15
  EXPECT_EQ(cursors.Find(UINT64_MAX), std::nullopt);
  EXPECT_EQ(cursors.Find(kJsSafe), std::nullopt);
}

TEST(ScanCursorsTest, LongPositionsAreKeptInTheTable) {
  ScanCursors cursors;
  const std::string long_key(300, 'k');
  const uint64_t a = cursors.Save(long_key);
  const uint64_t b = cursors.Save("seven b");
  const uint64_t c = cursors.Save("");
  for (const uint64_t cursor : {a, b, c}) {
    EXPECT_GE(cursor, ScanCursors::kTableBase);
    EXPECT_LT(cursor, kJsSafe);
  }
  EXPECT_EQ(b, a + 1);
  EXPECT_EQ(cursors.Find(a), long_key);
  EXPECT_EQ(cursors.Find(b), "seven b");
  EXPECT_EQ(cursors.Find(c), "");
  EXPECT_EQ(cursors.Find(c + 1), std::nullopt);  // not handed out yet
  EXPECT_EQ(cursors.entries(), 3u);
  EXPECT_EQ(cursors.bytes(), 307u);
  // A fresh table (a restart) has not handed them out.
  const ScanCursors restarted;
  EXPECT_EQ(restarted.Find(a), std::nullopt);
  EXPECT_EQ(restarted.Find(b), std::nullopt);
}

TEST(ScanCursorsTest, TheOldestEntriesAreEvictedPastEitherBound) {
  ScanCursors by_count(3, 1000);
  const uint64_t first = by_count.Save("position-0");
  for (int i = 1; i < 5; ++i) by_count.Save("position-" + std::to_string(i));
  EXPECT_EQ(by_count.entries(), 3u);
  EXPECT_EQ(by_count.Find(first), std::nullopt);
  EXPECT_EQ(by_count.Find(first + 1), std::nullopt);
  EXPECT_EQ(by_count.Find(first + 2), "position-2");
  EXPECT_EQ(by_count.Find(first + 4), "position-4");

  ScanCursors by_bytes(100, 25);
  const uint64_t a = by_bytes.Save(std::string(10, 'a'));
  const uint64_t b = by_bytes.Save(std::string(10, 'b'));
  const uint64_t c = by_bytes.Save(std::string(10, 'c'));  // 30 bytes: `a` goes
  EXPECT_EQ(by_bytes.Find(a), std::nullopt);
  EXPECT_EQ(by_bytes.Find(b), std::string(10, 'b'));
  EXPECT_EQ(by_bytes.bytes(), 20u);
  // A position above the byte bound is kept alone.
  const uint64_t big = by_bytes.Save(std::string(40, 'z'));
  EXPECT_EQ(by_bytes.Find(c), std::nullopt);
  EXPECT_EQ(by_bytes.Find(big), std::string(40, 'z'));
  EXPECT_EQ(by_bytes.entries(), 1u);
  EXPECT_EQ(by_bytes.bytes(), 40u);
}

}  // namespace
}  // namespace ebb::types
