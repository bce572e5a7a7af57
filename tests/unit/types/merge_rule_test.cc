// The data types' merge rules (types/merge_rule.h): a string version against the newest one a key
// holds, and writes of two types to one key by precedence.
#include "types/merge_rule.h"

#include <gtest/gtest.h>

#include <string>

#include "tests/unit/types/types_fixture.h"
#include "types/kv.h"
#include "types/string_rank.h"
#include "types/tlog.h"
#include "types/treg.h"

namespace ebb::types {
namespace {

class MergeRuleTest : public TypesTest {
 protected:
  MergeVerdict JudgeString(StringVersion incoming, std::string_view key = "k") {
    return Value(JudgeWrite(*ks_, 0, key, KeyType::kString, &incoming));
  }
  MergeVerdict Judge(KeyType type, std::string_view key = "k") {
    return Value(JudgeWrite(*ks_, 0, key, type, nullptr));
  }
  void Put(std::string_view value, int64_t ts, std::optional<int64_t> expire_at = std::nullopt) {
    ASSERT_TRUE(Kv(*ks_, 0, 0).Put({"k", value, ts, expire_at}).ok());
  }
};

TEST_F(MergeRuleTest, TheOrderIsTimestampTombstoneDigestExpiry) {
  StringVersion a{.ts = 5, .value = "a"};
  StringVersion later{.ts = 6, .value = "a"};
  StringVersion tomb{.ts = 5, .tombstone = true};
  EXPECT_TRUE(RanksBelow(a, later));
  EXPECT_TRUE(RanksBelow(a, tomb));  // at one timestamp a delete wins
  EXPECT_FALSE(RanksBelow(tomb, a));
  StringVersion b{.ts = 5, .value = "b"};
  EXPECT_NE(RanksBelow(a, b), RanksBelow(b, a));  // by digest, one way
  StringVersion expiring{.ts = 5, .value = "a", .expire_at = 100};
  EXPECT_TRUE(RanksBelow(expiring, a));  // never expiring is greatest
  StringVersion reduced{.ts = 5, .digest = StringDigest("a"), .expire_at = 100};
  EXPECT_FALSE(RanksBelow(reduced, expiring));  // a reduced version ranks as the whole one
  EXPECT_FALSE(RanksBelow(expiring, reduced));
}

TEST_F(MergeRuleTest, EqualBytesTieWithoutHashing) {
  StringVersion a{.ts = 5, .value = "same"};
  StringVersion b{.ts = 5, .value = "same"};
  EXPECT_FALSE(RanksBelow(a, b));
  EXPECT_FALSE(RanksBelow(b, a));
  EXPECT_FALSE(a.digest.has_value());  // equal bytes: equal digests, neither computed
  EXPECT_FALSE(b.digest.has_value());
  StringVersion expiring{.ts = 5, .value = "same", .expire_at = 100};
  EXPECT_TRUE(RanksBelow(expiring, a));  // the expiry still decides
  // Against a reduced version (a digest, no bytes) the digests are compared.
  StringVersion reduced{.ts = 5, .digest = StringDigest("same")};
  EXPECT_FALSE(RanksBelow(reduced, a));
  EXPECT_FALSE(RanksBelow(a, reduced));
  EXPECT_EQ(a.digest, StringDigest("same"));
  StringVersion other{.ts = 5, .value = "other"};
  EXPECT_NE(RanksBelow(other, a), RanksBelow(a, other));
  EXPECT_EQ(RanksBelow(other, a), StringDigest("other") < StringDigest("same"));
}

TEST_F(MergeRuleTest, AStringVersionIsWrittenOnlyAboveTheNewest) {
  EXPECT_EQ(JudgeString({.ts = 10, .value = "x"}), MergeVerdict::kWrite);  // nothing held
  Put("held", 10);
  EXPECT_EQ(JudgeString({.ts = 9, .value = "x"}), MergeVerdict::kLoses);
  EXPECT_EQ(JudgeString({.ts = 10, .value = "held"}), MergeVerdict::kLoses);  // the same version
  EXPECT_EQ(JudgeString({.ts = 10, .tombstone = true}), MergeVerdict::kWrite);
  EXPECT_EQ(JudgeString({.ts = 11, .value = "x"}), MergeVerdict::kWrite);
  ASSERT_TRUE(Kv(*ks_, 0, 0).Delete("k", 12).ok());
  EXPECT_EQ(JudgeString({.ts = 12, .value = "x"}), MergeVerdict::kLoses);  // below the tombstone
  EXPECT_EQ(JudgeString({.ts = 13, .value = "x"}), MergeVerdict::kWrite);
}

// An expired version still ranks: a node whose clock is behind holds it live.
TEST_F(MergeRuleTest, AnExpiredVersionStillRanks) {
  Put("old", 10, clock_->NowMs() - 1);
  EXPECT_EQ(JudgeString({.ts = 9, .value = "x"}), MergeVerdict::kLoses);
  EXPECT_EQ(JudgeString({.ts = 11, .value = "x"}), MergeVerdict::kWrite);
}

TEST_F(MergeRuleTest, TypesResolveByPrecedence) {
  ASSERT_TRUE(Treg(*ks_, 0).Set("k", "v", 5).ok());
  EXPECT_EQ(JudgeString({.ts = 100, .value = "x"}), MergeVerdict::kOtherTypeWins);
  EXPECT_EQ(Judge(KeyType::kTreg), MergeVerdict::kWrite);
  EXPECT_EQ(Judge(KeyType::kTlog), MergeVerdict::kReplaceFirst);
  ASSERT_TRUE(Tlog(*ks_, 0).Insert("log", "e", 5).ok());
  EXPECT_EQ(Judge(KeyType::kTreg, "log"), MergeVerdict::kOtherTypeWins);
  EXPECT_EQ(Judge(KeyType::kTlog, "log"), MergeVerdict::kWrite);
  std::optional<KeyType> held;
  ASSERT_TRUE(HeldType(*ks_, 0, "log", &held).ok());
  EXPECT_EQ(held, KeyType::kTlog);
  ASSERT_TRUE(HeldType(*ks_, 0, "free", &held).ok());
  EXPECT_EQ(held, std::nullopt);
}

}  // namespace
}  // namespace ebb::types
