// The dispatcher's WritePlanner seam (server/dispatch/write_planner.h), against a fake planner:
// a refused write, a write answered +OK with nothing written, a write run in another form inside
// a keyspace batch the planner commits, a form run only for its error, and a planner that is off.
#include "server/dispatch/write_planner.h"

#include <gtest/gtest.h>

#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "server/core/command.h"
#include "server/services/server_context.h"
#include "tests/support/command_runner.h"
#include "types/keyspace.h"

namespace ebb::test {
namespace {

using server::WritePlanner;

// DEL: refused; APPEND: +OK with nothing written; SET rewrite <v>: runs as SET rewritten <v>;
// SET dropped <v> and SET unsaved <v>: run, then dropped by Finish, or failing in it; INCR:
// validated only; anything else passes.
class FakePlanner : public WritePlanner {
 public:
  explicit FakePlanner(types::Keyspace* keyspace) : keyspace_(keyspace) {}

  bool on = true;
  int finished = 0;
  bool last_succeeded = false;

  bool enabled() const override { return on; }
  Plan PlanWrite(const server::CommandSpec& spec, size_t, std::span<const std::string_view> args,
                 const server::Client&) override {
    if (spec.full_name == "del") return {.kind = Kind::kRefuse, .error = "ERR planned refusal"};
    if (spec.full_name == "append") return {.kind = Kind::kReplyOk};
    if (spec.full_name == "incr") return {.kind = Kind::kValidate};
    if (spec.full_name == "set" && args.size() == 3 && args[1] == "rewrite") {
      canonical_ = {"SET", "rewritten", std::string(args[2])};
      views_.assign(canonical_.begin(), canonical_.end());
      return {.kind = Kind::kRun, .args = views_};
    }
    if (spec.full_name == "set" && (args[1] == "dropped" || args[1] == "unsaved")) {
      finish_ = args[1] == "dropped" ? Finishing::kDrop : Finishing::kFail;
      return {.kind = Kind::kRun, .args = args};
    }
    return {};
  }
  bool RunHere(server::Client&, protocol::ReplyWriter&) override { return false; }
  storage::Status Finish(bool succeeded, bool* dropped) override {
    finished++;
    last_succeeded = succeeded;
    const Finishing finish = std::exchange(finish_, Finishing::kCommit);
    if (finish == Finishing::kCommit) return keyspace_->CommitBatch();
    keyspace_->DiscardBatch();
    if (finish == Finishing::kFail) return storage::Status::IOError("planned failure");
    *dropped = true;
    return storage::Status::OK();
  }

 private:
  enum class Finishing { kCommit, kDrop, kFail };
  types::Keyspace* keyspace_;
  Finishing finish_ = Finishing::kCommit;
  std::vector<std::string> canonical_;
  std::vector<std::string_view> views_;
};

class WritePlannerTest : public CommandTest {
 protected:
  void SetUp() override {
    CommandTest::SetUp();
    planner_ = std::make_unique<FakePlanner>(&ebb_->context().keyspace());
    ebb_->context().set_write_planner(planner_.get());
  }
  void TearDown() override { ebb_->context().set_write_planner(nullptr); }

  std::unique_ptr<FakePlanner> planner_;
};

TEST_F(WritePlannerTest, RefusesWhatThePlanRefuses) {
  EXPECT_EQ(Do({"SET", "k", "v"}), "+OK");
  EXPECT_EQ(Do({"DEL", "k"}), "-ERR planned refusal");
  EXPECT_EQ(Do({"GET", "k"}), "$v");
}

TEST_F(WritePlannerTest, RepliesOkWithoutWriting) {
  EXPECT_EQ(Do({"APPEND", "k", "v"}), "+OK");
  EXPECT_EQ(Do({"EXISTS", "k"}), ":0");
  EXPECT_EQ(planner_->finished, 0);
}

TEST_F(WritePlannerTest, RunsThePlannedFormAndFinishes) {
  EXPECT_EQ(Do({"SET", "rewrite", "v"}), "+OK");
  EXPECT_EQ(planner_->finished, 1);
  EXPECT_TRUE(planner_->last_succeeded);
  EXPECT_EQ(Do({"GET", "rewritten"}), "$v");
  EXPECT_EQ(Do({"EXISTS", "rewrite"}), ":0");
}

// A planned write's keyspace events go out once Finish kept it: a run Finish dropped (its reply
// stands) or failed to commit (its error replaces the reply) published nothing.
TEST_F(WritePlannerTest, PublishesEventsOnlyForWhatFinishKept) {
  const size_t sub = ebb_->AddClient();
  ASSERT_EQ(Do({"CONFIG", "SET", "notify-keyspace-events", "KEA"}), "+OK");
  ebb_->DoAs(sub, {"PSUBSCRIBE", "__keyevent@*__:*"});
  ebb_->TakePushed(sub);
  EXPECT_EQ(Do({"SET", "dropped", "v"}), "+OK");
  EXPECT_EQ(Do({"SET", "unsaved", "v"}), "-ERR IO error: planned failure");
  EXPECT_EQ(planner_->finished, 2);
  EXPECT_EQ(Pushed(sub), "");
  EXPECT_EQ(Do({"EXISTS", "dropped", "unsaved"}), ":0");
  EXPECT_EQ(Do({"SET", "rewrite", "v"}), "+OK");
  EXPECT_EQ(Pushed(sub), "[$pmessage,$__keyevent@*__:*,$__keyevent@0__:set,$rewritten]");
}

TEST_F(WritePlannerTest, ValidatesAFormForItsErrorOnly) {
  EXPECT_EQ(Do({"SET", "n", "abc"}), "+OK");
  EXPECT_EQ(Do({"INCR", "n"}), "-ERR value is not an integer or out of range");
  EXPECT_EQ(Do({"INCR", "fresh"}), "-ERR this form of 'incr' is not allowed in active-active mode");
  EXPECT_EQ(Do({"EXISTS", "fresh"}), ":0");
  EXPECT_EQ(planner_->finished, 0);
}

TEST_F(WritePlannerTest, AskedNothingWhileOff) {
  planner_->on = false;
  EXPECT_EQ(Do({"DEL", "k"}), ":0");
  EXPECT_EQ(Do({"APPEND", "k", "v"}), ":1");
  EXPECT_EQ(Do({"GET", "k"}), "$v");
}

}  // namespace
}  // namespace ebb::test
