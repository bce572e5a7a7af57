#include "server/core/result.h"

#include <gtest/gtest.h>

#include <string>

namespace ebb::server {
namespace {

enum class SampleCode { kOk, kUnknownThing, kBusy };

Result<SampleCode> Check(int n) {
  if (n < 0) return {SampleCode::kUnknownThing, "minus"};
  if (n == 0) return SampleCode::kBusy;
  return {};
}

Result<SampleCode, std::string> Name(int n) {
  Result<SampleCode> checked = Check(n);
  if (!checked.ok()) return checked;
  return std::string(static_cast<size_t>(n), 'x');
}

TEST(ResultTest, SuccessHasNoDetail) {
  Result<SampleCode> r = Check(1);
  EXPECT_TRUE(r.ok());
  EXPECT_EQ(r.code(), SampleCode::kOk);
  EXPECT_EQ(r.detail(), "");
}

TEST(ResultTest, AnOutcomeKeepsItsCodeAndDetail) {
  Result<SampleCode> r = Check(-1);
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.code(), SampleCode::kUnknownThing);
  EXPECT_EQ(r.detail(), "minus");
  EXPECT_EQ(Check(0).code(), SampleCode::kBusy);
  EXPECT_EQ(Check(0).detail(), "");
}

TEST(ResultTest, AValueOrTheFailurePassedOn) {
  Result<SampleCode, std::string> ok = Name(3);
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(*ok, "xxx");
  EXPECT_EQ(ok->size(), 3u);

  Result<SampleCode, std::string> failed = Name(-2);
  EXPECT_FALSE(failed.ok());
  EXPECT_EQ(failed.code(), SampleCode::kUnknownThing);
  EXPECT_EQ(failed.failure().detail(), "minus");
}

}  // namespace
}  // namespace ebb::server
