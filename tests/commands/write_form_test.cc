// The write forms of the command rows (server/core/write_form.h): what a client's write becomes
// as an active-active delta, made from the row's own Parse step — its timestamp and absolute
// expiry written out from the node's clock and TTL policy, the forms the mode has no merge for
// refused, malformed requests left to the handler.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <string>
#include <string_view>
#include <vector>

#include "server/core/command.h"
#include "server/core/errors.h"
#include "server/services/server_context.h"
#include "tests/support/command_runner.h"
#include "tests/support/test_constants.h"
#include "types/keyspace.h"
#include "types/series_merge.h"

namespace ebb::test {
namespace {

using server::WriteForm;

class WriteFormTest : public CommandTest {
 protected:
  std::vector<std::string> RunnerOptions() const override {
    return {"--ttl-rule", "session:*", "1m"};
  }
  void SetUp() override {
    CommandTest::SetUp();
    PinClock(kPinnedNowMs);
  }
  // The form of request `args` on its row; the row must have one.
  WriteForm Form(std::vector<std::string_view> args) {
    server::ServerContext& context = ebb_->context();
    const auto [spec, flags, first_arg] = context.commands().Resolve(args);
    EXPECT_NE(spec, nullptr);
    if (spec == nullptr || spec->write_form == nullptr) {
      ADD_FAILURE() << args[0] << " has no write form";
      return WriteForm::Invalid();
    }
    return spec->write_form(args, first_arg, {kPinnedNowMs, context.keyspace()});
  }
  static std::string Joined(const WriteForm& form) {
    std::string out;
    for (const std::string& arg : form.args) out += (out.empty() ? "" : " ") + arg;
    return out;
  }
  static const std::string kNowText;
};
const std::string WriteFormTest::kNowText = std::to_string(kPinnedNowMs);

TEST_F(WriteFormTest, PutWritesOutItsTimestampAndExpiry) {
  WriteForm form = Form({"PUT", "k", "v", "TS", "5", "TTL", "10s"});
  ASSERT_EQ(form.kind, WriteForm::Kind::kDelta);
  EXPECT_EQ(Joined(form), "put k v TS 5 PXAT 10005");
  EXPECT_EQ(form.client_ts, 5);

  form = Form({"put", "k", "v"});
  EXPECT_EQ(Joined(form), "put k v TS " + kNowText + " NOTTL");
  EXPECT_EQ(form.client_ts, std::nullopt);  // the node's clock is not checked for skew

  EXPECT_EQ(Joined(Form({"PUT", "session:1", "v", "TS", "100"})),
            "put session:1 v TS 100 PXAT 60100");
  EXPECT_EQ(Joined(Form({"PUT", "session:1", "v", "NOTTL"})),
            "put session:1 v TS " + kNowText + " NOTTL");
  EXPECT_EQ(Joined(Form({"PUT", "k", "v", "EXAT", "2000000000"})),
            "put k v TS " + kNowText + " PXAT 2000000000000");
}

// TTL unlimited is a version that never expires (its duration is no number of milliseconds).
TEST_F(WriteFormTest, PutWithAnUnlimitedTtlNeverExpires) {
  EXPECT_EQ(Joined(Form({"PUT", "session:2", "v", "TS", "7", "TTL", "unlimited"})),
            "put session:2 v TS 7 NOTTL");
}

TEST_F(WriteFormTest, MalformedRequestsAreTheHandlersToAnswer) {
  for (const std::vector<std::string_view>& args :
       std::vector<std::vector<std::string_view>>{{"PUT", "k", "v", "TS", "x"},
                                                  {"PUT", "k", "v", "TTL", "forever"},
                                                  {"PUT", "k", "v", "PXAT", "0"},
                                                  {"PUT", "k", "v", "NOTTL", "PXAT", "5"},
                                                  {"SET", "k", "v", "EX", "-1"},
                                                  {"SET", "k", "v", "BOGUS"},
                                                  {"DELETE", "k", "TS", "soon"},
                                                  {"TLOG", "INS", "log", "v", "-1"},
                                                  {"TREG", "SET", "r", "v", "x"}}) {
    EXPECT_EQ(Form(args).kind, WriteForm::Kind::kInvalid) << args[0] << " " << args.back();
  }
  // A TS that puts the expiry at or before the epoch has no form either.
  EXPECT_EQ(Form({"PUT", "k", "v", "TS", "-5000", "TTL", "1s"}).kind, WriteForm::Kind::kInvalid);
}

TEST_F(WriteFormTest, SetIsAVersionAtTheNodesClock) {
  EXPECT_EQ(Joined(Form({"SET", "k", "v", "EX", "10"})),
            "put k v TS " + kNowText + " PXAT " + std::to_string(kPinnedNowMs + 10'000));
  EXPECT_EQ(Joined(Form({"SET", "k", "v", "PXAT", "1950000000000"})),
            "put k v TS " + kNowText + " PXAT 1950000000000");
  EXPECT_EQ(Joined(Form({"SET", "session:3", "v"})),
            "put session:3 v TS " + kNowText + " PXAT " + std::to_string(kPinnedNowMs + 60'000));
  for (const auto& [option, word] : std::vector<std::pair<std::string_view, std::string_view>>{
           {"NX", "nx"}, {"xx", "xx"}, {"GET", "get"}, {"KEEPTTL", "keepttl"}}) {
    const WriteForm form = Form({"SET", "k", "v", option});
    EXPECT_EQ(form.kind, WriteForm::Kind::kRefused) << option;
    EXPECT_EQ(form.error, server::ConditionalSetError(word));
  }
}

TEST_F(WriteFormTest, DeleteTlogAndTregCarryTheClientsTimestamp) {
  WriteForm form = Form({"DELETE", "k", "TS", "42"});
  EXPECT_EQ(Joined(form), "delete k TS 42");
  EXPECT_EQ(form.client_ts, 42);
  EXPECT_EQ(Joined(Form({"DELETE", "k"})), "delete k TS " + kNowText);

  form = Form({"TLOG", "INS", "log", "entry", "007"});
  EXPECT_EQ(Joined(form), "tlog ins log entry 7");
  EXPECT_EQ(form.client_ts, 7);
  EXPECT_EQ(Joined(Form({"tlog", "trimat", "log", "9"})), "tlog trimat log 9");
  // A log timestamp beyond any clock reading is not checked for skew.
  EXPECT_EQ(Form({"TLOG", "INS", "log", "e", "18446744073709551615"}).client_ts, std::nullopt);

  form = Form({"TREG", "SET", "r", "v", "3"});
  EXPECT_EQ(Joined(form), "treg set r v 3");
  EXPECT_EQ(form.client_ts, 3);
}

// A register the TTL policy gives a TTL would be renewed from each node's own clock.
TEST_F(WriteFormTest, TregSetUnderATtlRuleIsRefused) {
  const WriteForm form = Form({"TREG", "SET", "session:r", "v", "3"});
  EXPECT_EQ(form.kind, WriteForm::Kind::kRefused);
  EXPECT_EQ(form.error, server::kTregSetWithTtl);
  EXPECT_EQ(form.client_ts, 3);  // max-clock-skew is checked first
}

// Whole-key forms leave T to the mode, which takes it from what the keys hold.
TEST_F(WriteFormTest, WholeKeyFormsLeaveTheirTimestampToTheMode) {
  EXPECT_EQ(Joined(Form({"DEL", "a", "b", "a"})), "del-at  a b");
  EXPECT_EQ(Joined(Form({"unlink", "b"})), "del-at  b");
  EXPECT_EQ(Joined(Form({"FLUSHDB", "ASYNC"})), "flushdb-at ");
  EXPECT_EQ(Joined(Form({"FLUSHALL"})), "flushall-at ");
  EXPECT_EQ(Form({"FLUSHALL", "LATER"}).kind, WriteForm::Kind::kInvalid);

  WriteForm form = Form({"EXPIRE", "k", "10", "XX", "GT"});
  EXPECT_EQ(Joined(form), "expiry-at  k " + std::to_string(kPinnedNowMs + 10'000));
  EXPECT_EQ(form.expire_flags, types::kExpireXx | types::kExpireGt);
  EXPECT_EQ(Joined(Form({"PEXPIREAT", "k", "5"})), "expiry-at  k 5");
  EXPECT_EQ(Joined(Form({"EXPIREAT", "k", "5"})), "expiry-at  k 5000");
  EXPECT_EQ(Joined(Form({"PERSIST", "k"})), "expiry-at  k persist");
  EXPECT_EQ(Form({"EXPIRE", "k", "9223372036854775807"}).kind, WriteForm::Kind::kInvalid);
  EXPECT_EQ(Form({"EXPIRE", "k", "10", "NX", "XX"}).kind, WriteForm::Kind::kInvalid);

  EXPECT_EQ(Joined(Form({"TLOG", "TRIM", "log", "3"})), "tlog trim log 3");
  EXPECT_EQ(Joined(Form({"TLOG", "CLR", "log"})), "tlog clr log");
}

// Writes with no form are refused in the mode; every write row that has one is listed here, so a
// new write row is a decision, not an accident.
TEST_F(WriteFormTest, TheRowsWithAWriteForm) {
  std::vector<std::string> with_form;
  for (const auto& [name, row] : ebb_->context().commands().rows()) {
    if (row.write_form != nullptr) with_form.push_back(row.full_name);
    for (const server::CommandSpec& sub : row.subcommands) {
      if (sub.write_form != nullptr) with_form.push_back(sub.full_name);
    }
  }
  std::sort(with_form.begin(), with_form.end());
  // clang-format off
  EXPECT_EQ(with_form, (std::vector<std::string>{
      "decr", "decrby", "del", "delete", "expire", "expireat", "flushall", "flushdb", "incr",
      "incrby", "incrbyfloat", "persist", "pexpire", "pexpireat", "put", "set", "tlog|clr",
      "tlog|ins", "tlog|trim", "tlog|trimat", "treg|set", "ts.add", "ts.alter", "ts.create",
      "ts.createrule", "ts.decrby", "ts.del", "ts.deleterule", "ts.incrby", "ts.madd", "unlink"}));
  // clang-format on
}

// The TS writes' forms (server/core/write_form.h): `*` resolved to the clock, values as the
// decimal of their IEEE bits, the settings a register's bytes (the TTL policy's window resolved);
// a request RedisTimeSeries refuses is the handler's, and a TS.MADD triple carries its error.
TEST_F(WriteFormTest, SeriesFormsResolveTheirTimestampsAndSettings) {
  const auto bits = [](double v) { return std::to_string(std::bit_cast<uint64_t>(v)); };
  WriteForm add = Form({"TS.ADD", "s", "*", "1.5", "ON_DUPLICATE", "SUM"});
  ASSERT_EQ(add.kind, WriteForm::Kind::kDelta);
  ASSERT_EQ(add.args.size(), 6u);
  EXPECT_EQ(add.args[0], "ts-add");
  EXPECT_EQ(add.args[2], kNowText);
  EXPECT_EQ(add.args[3], bits(1.5));
  EXPECT_EQ(add.args[4], "6");  // SUM
  EXPECT_FALSE(add.client_ts.has_value());
  types::SeriesRegister created;
  ASSERT_TRUE(
      types::DecodeSeriesRegister(Form({"TS.ADD", "session:x", "5", "1"}).args[5], &created));
  EXPECT_EQ(created.settings.retention_ms, 60'000u);  // the ttl-rule's window, resolved here
  EXPECT_EQ(Form({"TS.ADD", "s", "5", "1"}).client_ts, 5);
  EXPECT_EQ(Form({"TS.ADD", "s", "*", "abc"}).kind, WriteForm::Kind::kInvalid);
  EXPECT_EQ(Form({"TS.ADD", "s", "-1", "1"}).kind, WriteForm::Kind::kInvalid);
  EXPECT_EQ(Form({"TS.ADD", "s", "1", "1", "ON_DUPLICATE", "NOPE"}).kind,
            WriteForm::Kind::kInvalid);

  EXPECT_EQ(Joined(Form({"TS.MADD", "a", "*", "1", "b", "x", "2", "c", "3", "y"})),
            "ts-madd a " + kNowText + " " + bits(1) + " b ! " +
                std::string(server::kTsInvalidTimestamp) + " c ! " +
                std::string(server::kTsInvalidValue));
  WriteForm decr = Form({"TS.DECRBY", "s", "2", "TIMESTAMP", "7"});
  ASSERT_EQ(decr.args.size(), 6u);
  EXPECT_EQ(decr.args[0], "ts-incrby");
  EXPECT_EQ(decr.args[2], "7");
  EXPECT_EQ(decr.args[3], bits(-2));
  EXPECT_EQ(decr.args[5], "ts.decrby");
  EXPECT_EQ(Form({"TS.INCRBY", "s", "x"}).kind, WriteForm::Kind::kInvalid);
  WriteForm alter = Form({"TS.ALTER", "s", "LABELS", "a", "b"});
  ASSERT_EQ(alter.args.size(), 4u);
  EXPECT_EQ(alter.args[2], "8");  // labels only
  EXPECT_EQ(Form({"TS.CREATE", "s"}).args[0], "ts-create");
  // TS.DEL: its bounds, "-" and "+" resolved; a bad bound is the handler's to answer.
  EXPECT_EQ(Joined(Form({"TS.DEL", "s", "-", "+"})), "ts-del s 0 9223372036854775807");
  EXPECT_EQ(Joined(Form({"TS.DEL", "s", "5", "7"})), "ts-del s 5 7");
  EXPECT_EQ(Form({"TS.DEL", "s", "x", "7"}).kind, WriteForm::Kind::kInvalid);
  EXPECT_EQ(Form({"TS.DEL", "s", "5", "-1"}).kind, WriteForm::Kind::kInvalid);
}

// The rules' forms: the aggregator as its number (AVG 0, ..., MAX 3), the bucket and the align;
// a malformed request is the handler's. TWA (12) is a rule like the others.
TEST_F(WriteFormTest, RuleFormsCarryTheRule) {
  EXPECT_EQ(Joined(Form({"TS.CREATERULE", "s", "d", "AGGREGATION", "max", "60", "7"})),
            "ts-createrule s d 3 60 7");
  EXPECT_EQ(Joined(Form({"TS.CREATERULE", "s", "d", "AGGREGATION", "AVG", "10"})),
            "ts-createrule s d 0 10 0");
  EXPECT_EQ(Form({"TS.CREATERULE", "s", "d", "AGGREGATION", "nope", "10"}).kind,
            WriteForm::Kind::kInvalid);
  EXPECT_EQ(Form({"TS.CREATERULE", "s", "d", "AGGREGATION", "sum", "0"}).kind,
            WriteForm::Kind::kInvalid);
  EXPECT_EQ(Joined(Form({"TS.CREATERULE", "s", "d", "AGGREGATION", "twa", "10", "3"})),
            "ts-createrule s d 12 10 3");
  EXPECT_EQ(Joined(Form({"TS.DELETERULE", "s", "d"})), "ts-deleterule s d");
}

// The INCR family's form is the increment, which the mode settles against the key's counter
// (server/active_active/counters.h); a malformed request is the handler's to answer.
TEST_F(WriteFormTest, TheIncrFamilyIsItsIncrement) {
  EXPECT_EQ(Joined(Form({"INCR", "n"})), "counter-incr n 1");
  EXPECT_EQ(Joined(Form({"DECR", "n"})), "counter-incr n -1");
  EXPECT_EQ(Joined(Form({"INCRBY", "n", "-7"})), "counter-incr n -7");
  EXPECT_EQ(Joined(Form({"DECRBY", "n", "7"})), "counter-incr n -7");
  EXPECT_EQ(Joined(Form({"INCRBYFLOAT", "n", "1.5e1"})), "counter-incrbyfloat n 1.5e1");
  EXPECT_EQ(Form({"INCRBY", "n", "x"}).kind, WriteForm::Kind::kInvalid);
  EXPECT_EQ(Form({"DECRBY", "n", "-9223372036854775808"}).kind, WriteForm::Kind::kInvalid);
}

}  // namespace
}  // namespace ebb::test
