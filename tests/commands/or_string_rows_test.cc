// Rows of an observed-remove string key (docs/key-encoding.md, "String rows", tag 0x05) read
// through the command layer: a tag-5 data row (written by types/or_string_rows.h's Store) answers
// every reader exactly as the plain string row it wraps — GET, STRLEN, TYPE, TTL, OBJECT
// ENCODING, EXISTS, SCAN TYPE, DUMP — and the server, which does not write them yet, reads them.
#include "types/or_string_rows.h"

#include <gtest/gtest.h>

#include <string>

#include "server/services/server_context.h"
#include "tests/support/command_runner.h"
#include "tests/support/test_constants.h"

namespace ebb::test {
namespace {

const types::OriginId kA(std::string(types::kOriginIdSize, 'a'));
const types::OriginId kB(std::string(types::kOriginIdSize, 'b'));

class OrStringRowsCommandTest : public CommandTest {
 protected:
  void SetUp() override {
    CommandTest::SetUp();
    PinClock(kPinnedNowMs);
  }
  // Writes `key` as a tag-5 row holding `inner` (tag and bytes) at `ts`, with a sibling from
  // another origin below it, so that its extension carries bit 0.
  void StoreTagged(std::string_view key, std::string inner, int64_t ts,
                   std::optional<int64_t> expire_at) {
    types::Keyspace& keyspace = ebb_->context().keyspace();
    types::OrStringRows rows;
    ASSERT_TRUE(types::LoadOrString(keyspace, 0, key, &rows).ok());
    ApplyOrWrite(&rows, {}, {kB, 4},
                 types::OrSlotRow::Value(std::string("\0sib", 4), {ts - 1, {}}));
    const types::OrApplied applied = ApplyOrWrite(
        &rows, {}, {kA, 7}, types::OrSlotRow::Value(std::move(inner), {ts, expire_at}));
    ASSERT_TRUE(StoreOrString(keyspace, 0, key, rows, applied).ok());
  }
};

TEST_F(OrStringRowsCommandTest, ATaggedRowReadsAsTheRowItWraps) {
  EXPECT_EQ(Do({"SET", "plain", "hello", "PX", "50000"}), "+OK");
  StoreTagged("k", std::string("\0hello", 6), kPinnedNowMs, kPinnedNowMs + 50000);
  for (const char* key : {"plain", "k"}) {
    SCOPED_TRACE(key);
    EXPECT_EQ(Do({"GET", key}), "$hello");
    EXPECT_EQ(Do({"STRLEN", key}), ":5");
    EXPECT_EQ(Do({"TYPE", key}), "+string");
    EXPECT_EQ(Do({"PTTL", key}), ":50000");
    EXPECT_EQ(Do({"OBJECT", "ENCODING", key}), "$embstr");
    EXPECT_EQ(Do({"EXISTS", key}), ":1");
    EXPECT_EQ(Do({"GETRANGE", key, "1", "3"}), "$ell");
  }
  EXPECT_EQ(Do({"DUMP", "k"}), Do({"DUMP", "plain"}));
  EXPECT_EQ(Do({"SCAN", "0", "TYPE", "string"}), Do({"SCAN", "0"}));
  EXPECT_EQ(Do({"SCAN", "0", "TYPE", "tlog"}), "[$0,[]]");
  // A raw string and an integer keep their encodings through the extension.
  StoreTagged("raw", std::string("\x03hello", 6), kPinnedNowMs, std::nullopt);
  EXPECT_EQ(Do({"OBJECT", "ENCODING", "raw"}), "$raw");
  EXPECT_EQ(Do({"TTL", "raw"}), ":-1");
  StoreTagged("n",
              std::string("\0"
                          "12",
                          3),
              kPinnedNowMs, std::nullopt);
  EXPECT_EQ(Do({"OBJECT", "ENCODING", "n"}), "$int");
  // Expired: absent, as the plain row would be.
  Advance(50000);
  EXPECT_EQ(Do({"GET", "k"}), "nil");
  EXPECT_EQ(Do({"TYPE", "k"}), "+none");
  EXPECT_EQ(Do({"EXISTS", "k"}), ":0");
}

}  // namespace
}  // namespace ebb::test
