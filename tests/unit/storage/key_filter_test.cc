// KeyFilter: no false negatives, few false positives, and a tiny filter still answers safely.
#include "storage/db/key_filter.h"

#include <gtest/gtest.h>

#include <string>

namespace ebb::storage {
namespace {

std::string Key(int i) { return "0x02|user:" + std::to_string(i) + "|entry"; }

TEST(KeyFilterTest, EveryAddedKeyMayBeContained) {
  KeyFilter filter(10 * 20000);
  for (int i = 0; i < 20000; i++) filter.Add(Key(i));
  for (int i = 0; i < 20000; i++) ASSERT_TRUE(filter.MayContain(Key(i))) << i;
}

TEST(KeyFilterTest, AtTenBitsPerKeyFewAbsentKeysPass) {
  KeyFilter filter(10 * 20000);
  for (int i = 0; i < 20000; i++) filter.Add(Key(i));
  int passed = 0;
  for (int i = 20000; i < 120000; i++) passed += filter.MayContain(Key(i)) ? 1 : 0;
  EXPECT_LT(passed, 3000);  // under 3% of 100,000 absent keys (about 1% expected)
}

TEST(KeyFilterTest, AnEmptyFilterRulesOutEverythingAndATinyOneStaysSafe) {
  KeyFilter empty(0);
  EXPECT_FALSE(empty.MayContain("k"));
  KeyFilter tiny(0);  // one block, overfilled: false positives, never a false negative
  for (int i = 0; i < 5000; i++) tiny.Add(Key(i));
  for (int i = 0; i < 5000; i++) ASSERT_TRUE(tiny.MayContain(Key(i))) << i;
}

}  // namespace
}  // namespace ebb::storage
