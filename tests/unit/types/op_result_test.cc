// OpResult: a value or an outcome, and failures passed on between result types.
#include "types/op_result.h"

#include <gtest/gtest.h>

#include <string>

namespace ebb::types {
namespace {

TEST(OpResultTest, ValueOutcomeOrEngineError) {
  OpResult<std::string> value = std::string("v");
  ASSERT_TRUE(value.ok());
  EXPECT_EQ(*value, "v");
  EXPECT_EQ(value->size(), 1u);
  EXPECT_TRUE(value.engine_status().ok());

  OpResult<std::string> absent = OpStatus::kNotFound;
  EXPECT_FALSE(absent.ok());
  EXPECT_EQ(absent.status(), OpStatus::kNotFound);

  OpResult<std::string> failed = storage::Status::IOError("write 000007.log: No space left");
  EXPECT_EQ(failed.status(), OpStatus::kEngineError);
  EXPECT_TRUE(failed.engine_status().IsIOError());
}

TEST(OpResultTest, VoidResultsFollowTheEngineStatus) {
  EXPECT_TRUE(OpResult<void>().ok());
  EXPECT_TRUE(OpResult<void>(storage::Status::OK()).ok());
  OpResult<void> failed = storage::Status::Corruption("bad block");
  EXPECT_EQ(failed.status(), OpStatus::kEngineError);
  EXPECT_EQ(OpResult<void>(OpStatus::kWrongType).status(), OpStatus::kWrongType);
}

TEST(OpResultTest, FailuresPassOnToAnotherResultType) {
  OpResult<int> wrong = OpStatus::kWrongType;
  OpResult<std::string> passed = FailureOf(wrong);
  EXPECT_EQ(passed.status(), OpStatus::kWrongType);

  OpResult<void> engine = storage::Status::IOError("fsync: EIO");
  OpResult<bool> as_bool = FailureOf(engine);
  EXPECT_EQ(as_bool.status(), OpStatus::kEngineError);
  EXPECT_EQ(as_bool.engine_status().ToString(), engine.engine_status().ToString());
}

}  // namespace
}  // namespace ebb::types
