// The observed-remove rule of a string key (types/or_string.h): the examples of
// docs/active-active.md ("Status", "observed-remove deletes of string keys"), the origin's side,
// and a property test — deltas from three origins, each made from its origin's own state, applied
// by replicas in per-origin order, in any order with repeats, and as two halves joined like a
// snapshot: every replica ends in the state computed from the set of deltas alone, with the same
// read.
#include "types/or_string.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "tests/support/or_test_values.h"
#include "types/string_rank.h"

namespace ebb::types {
namespace {

constexpr int64_t kNow = 1000;

// One origin: its state of the key and its log of deltas.
struct Origin {
  OriginId id;
  OrStringState state;
  uint64_t next = 1;
  std::vector<OrStringDelta> log;

  // A client write; false when it lost to the winner held here (nothing logged).
  bool Write(StringVersion v) {
    std::optional<OrContext> context = OrLocalWriteContext(state, v);
    if (!context) return false;
    Log({.context = *context, .write = MakeOrSlot({id, next}, v)});
    return true;
  }
  bool Put(std::string_view value, int64_t ts) { return Write({.ts = ts, .value = value}); }
  void Del() { Log({.context = OrLocalDeleteContext(state)}); }
  void Log(OrStringDelta delta) {
    ++next;
    ApplyOrDelta(&state, delta);
    log.push_back(std::move(delta));
  }
  void Receive(const Origin& from) {
    for (const OrStringDelta& d : from.log) ApplyOrDelta(&state, d);
  }
};

// The value a read at kNow answers, or "(nil)".
std::string Read(const OrStringState& state, const std::map<std::string, std::string>& values) {
  const OrSlot* slot = OrRead(state, kNow);
  return slot ? values.at(slot->Ranked().Digest()) : "(nil)";
}

class OrStringTest : public ::testing::Test {
 protected:
  Origin a_{test::kOriginA}, b_{test::kOriginB}, c_{test::kOriginC};
  std::map<std::string, std::string> values_;  // digest -> value, for reads

  std::string Read(const OrStringState& state) { return ebb::types::Read(state, values_); }
  void Know(std::initializer_list<std::string_view> values) {
    for (std::string_view v : values) values_[StringDigest(v)] = std::string(v);
  }
  // Every order of the three logs' deltas, applied to a fresh state, reads `want`.
  void EveryOrderReads(const std::string& want) {
    std::vector<OrStringDelta> all;
    for (const Origin* o : {&a_, &b_, &c_}) all.insert(all.end(), o->log.begin(), o->log.end());
    std::vector<int> order(all.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int>(i);
    do {
      OrStringState state;
      for (int i : order) ApplyOrDelta(&state, all[i]);
      EXPECT_EQ(Read(state), want);
    } while (std::next_permutation(order.begin(), order.end()));
  }
};

// `PUT k a TS 5`, `DEL k`, `PUT k b TS 3` leaves b, as on a lone node.
TEST_F(OrStringTest, AWriteAfterADeleteSurvivesItWhateverItsTimestamp) {
  Know({"a", "b"});
  ASSERT_TRUE(a_.Put("a", 5));
  a_.Del();
  ASSERT_TRUE(a_.Put("b", 3));
  EXPECT_EQ(Read(a_.state), "b");
  EveryOrderReads("b");
}

// B deletes what it saw (A's a); C's write, made without seeing a, survives the delete on every
// node, its older timestamp notwithstanding.
TEST_F(OrStringTest, AConcurrentWriteSurvivesADeleteThatDidNotSeeIt) {
  Know({"a", "c"});
  ASSERT_TRUE(a_.Put("a", 5));
  b_.Receive(a_);
  b_.Del();
  ASSERT_TRUE(c_.Put("c", 4));
  EXPECT_EQ(b_.log[0].context.At(test::kOriginA), 1u);
  EveryOrderReads("c");
}

// A delete removes what its context named, even a write with a later timestamp, and that write
// arriving after the delete is dropped.
TEST_F(OrStringTest, ADeleteRemovesWhatItsContextNamed) {
  Know({"a"});
  ASSERT_TRUE(a_.Put("a", 1'000'000));
  b_.Receive(a_);
  b_.Del();
  EXPECT_EQ(Read(b_.state), "(nil)");
  OrStringState late;
  EXPECT_TRUE(ApplyOrDelta(&late, b_.log[0]).removed_grew);
  const OrApplied applied = ApplyOrDelta(&late, a_.log[0]);
  EXPECT_FALSE(applied.changed());
  EXPECT_TRUE(late.slots.empty());
  EveryOrderReads("(nil)");
}

// Writes that did not observe each other end as siblings; the read takes the greatest; a delete
// that saw only the winner promotes the other.
TEST_F(OrStringTest, ADeleteOfTheWinnerPromotesASibling) {
  Know({"a", "b"});
  ASSERT_TRUE(a_.Put("a", 5));
  ASSERT_TRUE(b_.Put("b", 7));
  c_.Receive(b_);
  c_.Del();
  a_.Receive(b_);
  EXPECT_EQ(a_.state.slots.size(), 2u);
  EXPECT_EQ(Read(a_.state), "b");
  a_.Receive(c_);
  EXPECT_EQ(Read(a_.state), "a");
  EveryOrderReads("a");
}

// On its origin a write ranks against the winner held there: one that loses is not logged; one
// that wins names every slot held, so it replaces them everywhere.
TEST_F(OrStringTest, TheOriginRanksAWriteAgainstTheWinnerItHolds) {
  Know({"a", "b", "c"});
  ASSERT_TRUE(a_.Put("a", 5));
  ASSERT_TRUE(b_.Put("b", 7));
  a_.Receive(b_);
  EXPECT_FALSE(a_.Put("c", 6));
  EXPECT_FALSE(a_.Put("b", 7));  // the same version
  EXPECT_EQ(a_.log.size(), 1u);
  ASSERT_TRUE(a_.Put("c", 8));
  const OrContext& context = a_.log.back().context;
  EXPECT_EQ(context.At(test::kOriginA), 1u);
  EXPECT_EQ(context.At(test::kOriginB), 1u);
  EXPECT_EQ(a_.state.slots.size(), 1u);
  EveryOrderReads("c");
}

TEST_F(OrStringTest, ATombstoneOrExpiredWinnerReadsAsAbsent) {
  Know({"v"});
  OrStringState state;
  ApplyOrDelta(&state, {.write = MakeOrSlot({test::kOriginA, 1},
                                            {.ts = 5, .value = "v", .expire_at = kNow})});
  EXPECT_EQ(Read(state), "(nil)");
  EXPECT_NE(OrRead(state, kNow - 1), nullptr);
  ApplyOrDelta(&state, {.write = MakeOrSlot({test::kOriginB, 1}, {.ts = 9, .tombstone = true})});
  EXPECT_EQ(OrWinner(state)->dot, (Dot{test::kOriginB, 1}));
  EXPECT_EQ(OrRead(state, 0), nullptr);
  EXPECT_EQ(OrRead(OrStringState(), 0), nullptr);
}

// An origin's later write replaces its earlier one whatever the order; a repeat changes nothing;
// R keeps no entry for an origin that holds a slot.
TEST_F(OrStringTest, AnOriginsLaterWriteReplacesItsEarlierOne) {
  Know({"x", "y"});
  ASSERT_TRUE(a_.Put("x", 5));
  EXPECT_FALSE(a_.Put("y", 4));  // loses to x at 5 on its origin
  ASSERT_TRUE(a_.Put("y", 6));
  OrStringState reversed;
  ApplyOrDelta(&reversed, a_.log[1]);
  const OrApplied old = ApplyOrDelta(&reversed, a_.log[0]);
  EXPECT_FALSE(old.changed());
  EXPECT_TRUE(SameOrState(reversed, a_.state));
  EXPECT_TRUE(reversed.removed.empty());
  EXPECT_FALSE(ApplyOrDelta(&reversed, a_.log[1]).changed());
  EXPECT_EQ(Read(reversed), "y");
}

// --- Property test --------------------------------------------------------------------------

// The state the rule defines from the set of deltas alone: R the join of every context, each
// origin's slot its greatest write above R, canonical.
OrStringState FromTheSet(const std::vector<OrStringDelta>& deltas) {
  OrStringState state;
  for (const OrStringDelta& d : deltas) state.removed.Join(d.context);
  std::map<OriginId, OrSlot> best;
  for (const OrStringDelta& d : deltas) {
    if (!d.write || d.write->dot.offset <= state.removed.At(d.write->dot.origin)) continue;
    auto [it, fresh] = best.try_emplace(d.write->dot.origin, *d.write);
    if (!fresh && it->second.dot.offset < d.write->dot.offset) it->second = *d.write;
  }
  for (auto& [origin, slot] : best) {
    state.removed.Erase(origin);
    state.slots.push_back(slot);
  }
  return state;
}

struct Simulation {
  std::mt19937_64 rng;
  std::vector<Origin> origins{{test::kOriginA}, {test::kOriginB}, {test::kOriginC}};
  std::vector<std::vector<size_t>> delivered{3, std::vector<size_t>(3, 0)};  // [to][from]
  std::vector<std::string> values{"x", "y", "z"};

  explicit Simulation(uint64_t seed) : rng(seed) {}
  uint64_t Pick(uint64_t n) { return std::uniform_int_distribution<uint64_t>(0, n - 1)(rng); }

  // An origin writes, deletes, or takes the next delta of another origin's log.
  void Step() {
    const size_t to = Pick(3);
    Origin& o = origins[to];
    const uint64_t what = Pick(10);
    if (what < 4) {
      const size_t from = Pick(3);
      size_t& next = delivered[to][from];
      if (from != to && next < origins[from].log.size()) {
        ApplyOrDelta(&o.state, origins[from].log[next++]);
      }
    } else if (what < 8) {
      StringVersion v{.ts = static_cast<int64_t>(Pick(12)),
                      .tombstone = Pick(8) == 0,
                      .value = values[Pick(3)]};
      if (Pick(4) == 0) v.expire_at = kNow - 5 + static_cast<int64_t>(Pick(10));
      o.Write(v);
    } else if (!o.state.slots.empty()) {
      o.Del();
    }
  }

  std::vector<OrStringDelta> All() const {
    std::vector<OrStringDelta> all;
    for (const Origin& o : origins) all.insert(all.end(), o.log.begin(), o.log.end());
    return all;
  }

  // Each origin's log in its order, interleaved at random.
  OrStringState InOriginOrder() {
    OrStringState state;
    std::vector<size_t> next(3, 0);
    for (;;) {
      std::vector<size_t> open;
      for (size_t i = 0; i < 3; ++i) {
        if (next[i] < origins[i].log.size()) open.push_back(i);
      }
      if (open.empty()) return state;
      const size_t from = open[Pick(open.size())];
      ApplyOrDelta(&state, origins[from].log[next[from]++]);
    }
  }

  // Every delta in a random order, some twice.
  OrStringState InAnyOrder() {
    std::vector<OrStringDelta> all = All();
    const size_t n = all.size();
    for (size_t i = 0; i < n / 4; ++i) all.push_back(all[Pick(n)]);
    std::shuffle(all.begin(), all.end(), rng);
    OrStringState state;
    for (const OrStringDelta& d : all) ApplyOrDelta(&state, d);
    return state;
  }

  // Two halves applied apart, then one joined into the other as a snapshot.
  OrStringState AsTwoHalvesJoined() {
    std::vector<OrStringDelta> all = All();
    std::shuffle(all.begin(), all.end(), rng);
    OrStringState left, right;
    for (const OrStringDelta& d : all) ApplyOrDelta(Pick(2) ? &left : &right, d);
    JoinOrState(&left, right);
    return left;
  }
};

std::string Describe(const OrStringState& s) {
  std::string out = "R{";
  for (const Dot& d : s.removed.entries())
    out += std::string(d.origin).substr(0, 1) + std::to_string(d.offset) + " ";
  out += "} slots{";
  for (const OrSlot& slot : s.slots) {
    out += std::string(slot.dot.origin).substr(0, 1) + std::to_string(slot.dot.offset) + "@" +
           std::to_string(slot.version.ts) + " ";
  }
  return out + "}";
}

TEST(OrStringPropertyTest, EveryReplicaEndsInTheStateOfTheSetOfDeltas) {
  std::map<std::string, std::string> values;
  for (std::string_view v : {"x", "y", "z"}) values[StringDigest(v)] = std::string(v);
  int siblings = 0, removed = 0, absent = 0;  // what the runs ended with: they cover each
  for (uint64_t seed = 1; seed <= 400; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    Simulation run(seed);
    const int steps = 10 + static_cast<int>(run.Pick(60));
    for (int i = 0; i < steps; ++i) run.Step();
    const OrStringState want = FromTheSet(run.All());
    siblings += want.slots.size() > 1;
    removed += !want.removed.empty();
    absent += !want.slots.empty() && OrRead(want, kNow) == nullptr;
    std::vector<OrStringState> replicas;
    for (size_t to = 0; to < 3; ++to) {  // each origin takes the rest of the others' logs
      for (size_t from = 0; from < 3; ++from) {
        const std::vector<OrStringDelta>& log = run.origins[from].log;
        for (size_t i = from == to ? log.size() : run.delivered[to][from]; i < log.size(); ++i) {
          ApplyOrDelta(&run.origins[to].state, log[i]);
        }
      }
      replicas.push_back(run.origins[to].state);
    }
    for (int i = 0; i < 3; ++i) {
      replicas.push_back(run.InOriginOrder());
      replicas.push_back(run.InAnyOrder());
      replicas.push_back(run.AsTwoHalvesJoined());
    }
    for (const OrStringState& r : replicas) {
      ASSERT_TRUE(SameOrState(r, want)) << Describe(r) << " vs " << Describe(want);
      ASSERT_EQ(Read(r, values), Read(want, values));
      ASSERT_EQ(OrWinner(r) ? OrWinner(r)->dot : Dot{},
                OrWinner(want) ? OrWinner(want)->dot : Dot{});
    }
  }
  EXPECT_GT(siblings, 40);
  EXPECT_GT(removed, 40);
  EXPECT_GT(absent, 10);
}

// Two versions named by one dot (the pre-mode dot of data two nodes held before the mode): the
// greater stays, whichever arrives first, and a context naming the dot removes it.
TEST(OrStringDotTwiceTest, TheGreaterVersionAtOneDotStaysInEveryOrder) {
  const OrSlot lower = MakeOrSlot({test::kOriginA, 1}, {.ts = 5, .value = "lower"});
  const OrSlot greater = MakeOrSlot({test::kOriginA, 1}, {.ts = 6, .value = "greater"});
  for (bool greater_first : {false, true}) {
    OrStringState state;
    ApplyOrDelta(&state, {.write = greater_first ? greater : lower});
    const OrApplied second = ApplyOrDelta(&state, {.write = greater_first ? lower : greater});
    EXPECT_EQ(second.written, !greater_first);
    ASSERT_EQ(state.slots.size(), 1u);
    EXPECT_TRUE(SameOrSlot(state.slots[0], greater));
    OrContext removed;
    removed.Raise(test::kOriginA, 1);
    ApplyOrDelta(&state, {.context = removed});
    EXPECT_TRUE(state.slots.empty());
    EXPECT_FALSE(ApplyOrDelta(&state, {.write = greater}).written);
  }
}

// --- Collection -----------------------------------------------------------------------------

// Nodes that collect, as docs/active-active.md ("Collection of observed-remove deletes") says. A
// node's context K is what it has observed: each origin's offset applied here (deltas of one
// origin arrive in offset order) joined with the vector of every snapshot it joined. A key whose
// state OrCollectable says K covers is dropped whole, R and all. A snapshot is joined with both
// contexts (OrRemovedBySender, OrRemovedHere) and raises the receiver's K to the sender's; a
// snapshot of a collected key carries nothing, as the server's sweep then takes it. A delta's
// write at or below K that the node does not hold is not taken (OrRemovedHere): the node removed
// it, or a snapshot it joined came from a node that had.
//
// A snapshot is not joined at once: taken when it starts, the receiver's other streams deliver
// while its pieces arrive, and the receiver passes the key (its piece, or the sweep) before the
// snapshot ends and raises K. A delta reaching a key the snapshot has passed is judged by the
// sender's vector too: the sender held none of its slots there that the receiver does not now.
struct CollectingRun {
  // A snapshot on its way from `from`: what it carries, and whether the receiver passed the key.
  struct InFlight {
    size_t from = 0;
    OrStringState sent;
    OrContext sender_context;
    size_t sender_log_size = 0;
    bool passed = false;
  };
  Simulation sim;
  std::vector<OrContext> known = std::vector<OrContext>(3);  // from snapshots joined
  std::vector<std::optional<InFlight>> in_flight = std::vector<std::optional<InFlight>>(3);
  explicit CollectingRun(uint64_t seed) : sim(seed) {}

  OrContext ContextOf(size_t node) const {
    OrContext context = known[node];
    for (size_t o = 0; o < 3; ++o) {
      const uint64_t n = o == node ? sim.origins[o].log.size() : sim.delivered[node][o];
      if (n > 0) context.Raise(sim.origins[o].id, n);
    }
    return context;
  }
  // `node` takes the next delta of `from`'s log, if any (none while `from`'s snapshot is on its
  // way: the snapshot is that stream).
  void Deliver(size_t node, size_t from) {
    size_t& next = sim.delivered[node][from];
    if (from == node || next >= sim.origins[from].log.size()) return;
    const std::optional<InFlight>& snapshot = in_flight[node];
    if (snapshot && snapshot->from == from) return;
    const OrStringDelta& delta = sim.origins[from].log[next++];
    OrStringState& state = sim.origins[node].state;
    OrContext observed = known[node];
    if (snapshot && snapshot->passed) observed.Join(snapshot->sender_context);
    if (delta.write && OrRemovedHere(state, delta.write->dot, observed)) {
      ApplyOrDelta(&state, {.context = delta.context});
    } else {
      ApplyOrDelta(&state, delta);
    }
  }
  // A key with no slot goes whole; one with slots drops its R (both once K covers R).
  void MaybeCollect(size_t node, int* collected) {
    OrStringState& state = sim.origins[node].state;
    if (state.removed.empty() || !OrRemovedCovered(state, ContextOf(node))) return;
    state.removed = OrContext();
    ++*collected;
  }
  // `from` starts a snapshot to `to`: its state and context as of now.
  void StartSnapshot(size_t from, size_t to) {
    in_flight[to] = InFlight{.from = from,
                             .sent = sim.origins[from].state,
                             .sender_context = ContextOf(from),
                             .sender_log_size = sim.origins[from].log.size()};
  }
  // `to` reaches the key in the snapshot on its way and joins it with both contexts.
  void PassKey(size_t to) {
    InFlight& snapshot = *in_flight[to];
    OrStringState& held = sim.origins[to].state;
    OrContext gone = snapshot.sent.removed;
    gone.Join(OrRemovedBySender(held, snapshot.sent, snapshot.sender_context));
    const OrContext own = ContextOf(to);
    std::vector<OrSlot> taken;
    for (const OrSlot& slot : snapshot.sent.slots) {
      if (!OrRemovedHere(held, slot.dot, own)) taken.push_back(slot);
    }
    ApplyOrDelta(&held, {.context = gone});
    for (const OrSlot& slot : taken) ApplyOrDelta(&held, {.write = slot});
    snapshot.passed = true;
  }
  // The snapshot's end: `to`'s K takes the sender's, its vector entry for the sender at the
  // sender's offset when the snapshot started.
  void EndSnapshot(size_t to) {
    InFlight& snapshot = *in_flight[to];
    if (!snapshot.passed) PassKey(to);
    known[to].Join(snapshot.sender_context);
    size_t& next = sim.delivered[to][snapshot.from];
    next = std::max(next, snapshot.sender_log_size);
    in_flight[to].reset();
  }
  // `to` joins `from`'s state as a snapshot with nothing between its start and its end.
  void Snapshot(size_t from, size_t to) {
    StartSnapshot(from, to);
    EndSnapshot(to);
  }
  void Step(int* collected, int* snapshots) {
    const uint64_t what = sim.Pick(20);
    const size_t node = sim.Pick(3);
    Origin& o = sim.origins[node];
    if (what < 7) {
      Deliver(node, sim.Pick(3));
    } else if (what < 12) {
      StringVersion v{.ts = static_cast<int64_t>(sim.Pick(12)), .value = sim.values[sim.Pick(3)]};
      o.Write(v);
    } else if (what < 14) {
      if (!o.state.slots.empty()) o.Del();
    } else if (what < 16) {
      MaybeCollect(node, collected);
    } else if (in_flight[node]) {
      if (in_flight[node]->passed || sim.Pick(2) == 0) {
        EndSnapshot(node);
      } else {
        PassKey(node);
      }
    } else {
      const size_t from = sim.Pick(3);
      if (from != node) {
        StartSnapshot(from, node);
        ++*snapshots;
      }
    }
  }
};

// Without both halves of the join a collected delete comes back: the stale node's slot survives
// a snapshot of the node that collected, and returns to it in the stale node's snapshot.
// The two scenarios' start: a writes x; b takes it and deletes it; `c_first`: c takes a's write
// before b deletes it, and a learns of the delete.
struct DeletedWrite : CollectingRun {
  explicit DeletedWrite(bool c_first) : CollectingRun(1) {
    EXPECT_TRUE(sim.origins[0].Put("x", 5));
    Deliver(1, 0);
    if (c_first) Deliver(2, 0);
    sim.origins[1].Del();
    if (c_first) Deliver(0, 1);
  }
};

TEST(OrStringCollectionTest, ASnapshotJoinedWithTheContextsKeepsACollectedDeleteDone) {
  DeletedWrite run(/*c_first=*/true);  // b and c hold a's write; b removes it; a learns, c not
  Origin& a = run.sim.origins[0];
  Origin& c = run.sim.origins[2];
  int collected = 0;
  run.MaybeCollect(0, &collected);
  run.MaybeCollect(1, &collected);
  ASSERT_EQ(collected, 2);
  EXPECT_FALSE(OrCollectable(c.state, run.ContextOf(2)));  // c still holds the write

  EXPECT_TRUE(OrRemovedHere(a.state, a.log[0].write->dot, run.ContextOf(0)));
  EXPECT_EQ(OrRemovedBySender(c.state, a.state, run.ContextOf(0)).At(test::kOriginA), 1u);
  EXPECT_EQ(OrRemovedBySender(c.state, a.state, OrContext()).At(test::kOriginA),
            0u);  // a context naming none

  run.Snapshot(2, 0);  // the stale node's snapshot does not bring it back to a
  EXPECT_TRUE(a.state.slots.empty());
  run.Snapshot(0, 2);  // and a's snapshot, which carries nothing of the key, removes it from c
  EXPECT_TRUE(c.state.slots.empty());
  ASSERT_TRUE(a.Put("y", 1));  // a later write survives everywhere, whatever its timestamp
  run.Deliver(2, 0);
  EXPECT_EQ(OrRead(c.state, kNow)->value, "y");
}

// A write that reaches a node after a snapshot from a node that had removed it and collected the
// delete: the snapshot's context says the sender had observed it, so it is not taken.
TEST(OrStringCollectionTest, AWriteArrivingAfterASnapshotThatRemovedItIsNotTaken) {
  DeletedWrite run(/*c_first=*/false);
  Origin& c = run.sim.origins[2];
  int collected = 0;
  run.MaybeCollect(1, &collected);
  ASSERT_EQ(collected, 1);
  run.Snapshot(1, 2);  // c joins b's state before a's write reaches it: nothing of the key
  run.Deliver(2, 0);   // then a's write arrives
  EXPECT_TRUE(c.state.slots.empty());
}

// The same write arriving while that snapshot is on its way, after the receiver passed the key:
// the sender's vector judges it as the snapshot's end would.
TEST(OrStringCollectionTest, AWriteArrivingOnceTheSnapshotPassedItsKeyIsNotTaken) {
  for (bool passed : {false, true}) {
    DeletedWrite run(/*c_first=*/false);
    Origin& c = run.sim.origins[2];
    int collected = 0;
    run.MaybeCollect(1, &collected);
    ASSERT_EQ(collected, 1);
    run.StartSnapshot(1, 2);
    if (passed) run.PassKey(2);
    run.Deliver(2, 0);  // a's write: taken while the key is still ahead, then swept
    EXPECT_EQ(c.state.slots.size(), passed ? 0u : 1u);
    run.EndSnapshot(2);
    EXPECT_TRUE(c.state.slots.empty());
  }
}

// Random runs: three nodes write, delete, take each other's deltas in per-origin order, collect
// what their contexts cover and exchange snapshots; once every delta has reached every node, each
// holds the slots the set of deltas defines (R may differ: collection drops it).
TEST(OrStringCollectionTest, CollectingNodesEndWithTheSlotsOfTheSetOfDeltas) {
  int collected = 0, snapshots = 0;
  for (uint64_t seed = 1; seed <= 1000; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    CollectingRun run(seed);
    const int steps = 10 + static_cast<int>(run.sim.Pick(120));
    for (int i = 0; i < steps; ++i) run.Step(&collected, &snapshots);
    for (size_t to = 0; to < 3; ++to) {
      if (run.in_flight[to]) run.EndSnapshot(to);
    }
    const OrStringState want = FromTheSet(run.sim.All());
    for (size_t to = 0; to < 3; ++to) {  // the rest of the others' logs, in order
      for (size_t from = 0; from < 3; ++from) {
        while (from != to && run.sim.delivered[to][from] < run.sim.origins[from].log.size()) {
          run.Deliver(to, from);
        }
      }
      run.MaybeCollect(to, &collected);
      OrStringState got = run.sim.origins[to].state;
      OrStringState slots_only = want;
      got.removed = slots_only.removed = OrContext();
      ASSERT_TRUE(SameOrState(got, slots_only))
          << "node " << to << ": " << Describe(run.sim.origins[to].state) << " vs "
          << Describe(want);
    }
  }
  EXPECT_GT(collected, 300);
  EXPECT_GT(snapshots, 300);
}

}  // namespace
}  // namespace ebb::types
