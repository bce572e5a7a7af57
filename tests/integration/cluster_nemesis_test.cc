// A seeded nemesis against Redis Cluster, Jepsen-style: three ebb masters (`wal-fsync always`)
// holding a third of the slots each, a client that follows MOVED and ASK as a cluster client
// does and writes versioned rows — PUT (a third with a TTL) and timestamped DELETE with
// timestamps out of order (each above every DELETE of its key before it), DEL, TREG SET and TLOG
// INS — over eight hash tags, while a schedule drawn
// from the seed moves a tag's slot to another node (IMPORTING/MIGRATING, GETKEYSINSLOT and MIGRATE,
// SETSLOT NODE: what `redis-cli --cluster reshard` does), kills a node with SIGKILL or cuts its
// power (DEBUG POWER-CUT) and restarts it on its data, and jumps a node's clock forward.
//
// The checker, once every node is back and they agree on who serves each slot: every key
// answers, at full grace, what the writes it could have applied leave (a version with its TTL, a
// TREG its greatest pair, a TLOG every entry) — the acknowledged ones
// surely, one whose reply was lost (a node killed under it) maybe, one refused (-MOVED, -ASK,
// -TRYAGAIN, -CLUSTERDOWN, resent elsewhere) not — so no acknowledged version is lost and no
// deleted one comes back through a slot move, a kill or a power cut; every key lives only on
// the node serving its slot (COUNTKEYSINSLOT counts hidden versions too); no other key exists.
//
// Bounds: EBB_NEMESIS_STEPS steps (default 8; `make soak` runs more), each a fault then 200 ms
// of writes; every wait is a bounded poll. EBB_TEST_SEED picks the schedule; a failure prints
// the seed and the schedule that reproduces it.
#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "common/key_slot.h"
#include "tests/support/eventually.h"
#include "tests/support/test_seed.h"
#include "tests/support/test_server.h"

namespace ebb::test {
namespace {

using std::chrono::milliseconds;

constexpr int kNodes = 3;
constexpr int kTags = 8;
constexpr int kKeysPerTag = 10;
constexpr const char* kFullGrace = "9223372036854775807";
constexpr const char* kTtlMs = "3600000";  // outlives the run, whatever the clock jumps

// One write the client sent, and what it knows of its fate.
struct Op {
  enum Kind { kPut, kDelete, kDel, kTregSet, kTlogIns } kind;
  bool ttl = false;   // PUT ... TTL kTtlMs
  int64_t ts = 0;     // PUT and DELETE
  std::string value;  // PUT
  enum Fate { kApplied, kRefused, kUnknown } fate = kUnknown;
};

// The full-grace answer a sequence of applied writes leaves: the version with the greatest
// timestamp since the last DEL (timestamps are unique), nil for none or a tombstone. For a TREG
// the same rule is its merge: the greatest timestamp wins.
std::optional<std::string> Answer(const std::vector<const Op*>& applied) {
  const Op* best = nullptr;
  for (const Op* op : applied) {
    if (op->kind == Op::kDel) {
      best = nullptr;
    } else if (best == nullptr || op->ts > best->ts) {
      best = op;
    }
  }
  if (best == nullptr || best->kind == Op::kDelete) return std::nullopt;
  return best->value;
}

// Every answer the key may give: the applied writes always, each unknown one or not. Unknown
// writes are the few a kill cut the reply of; more than 12 on one key is a test of its own.
std::set<std::optional<std::string>> PossibleAnswers(const std::vector<Op>& ops) {
  std::vector<size_t> unknown;
  for (size_t i = 0; i < ops.size(); i++) {
    if (ops[i].fate == Op::kUnknown) unknown.push_back(i);
  }
  EXPECT_LE(unknown.size(), 12u) << "too many writes of one key with a lost reply to enumerate";
  std::set<std::optional<std::string>> out;
  for (uint64_t mask = 0; mask < (uint64_t{1} << std::min<size_t>(unknown.size(), 12)); mask++) {
    std::vector<const Op*> applied;
    size_t u = 0;
    for (size_t i = 0; i < ops.size(); i++) {
      bool take = ops[i].fate == Op::kApplied;
      if (ops[i].fate == Op::kUnknown) take = (mask >> u++) & 1;
      if (take) applied.push_back(&ops[i]);
    }
    out.insert(Answer(applied));
  }
  return out;
}

std::string Show(const std::optional<std::string>& answer) { return answer ? *answer : "nil"; }

// The last writes of a key, oldest first, for a failure message.
std::string Tail(const std::vector<Op>& ops) {
  std::string out;
  for (size_t i = ops.size() > 8 ? ops.size() - 8 : 0; i < ops.size(); i++) {
    const Op& op = ops[i];
    out += std::string(" [") + (op.kind == Op::kPut       ? "PUT " + op.value
                                : op.kind == Op::kTregSet ? "TREG SET " + op.value
                                : op.kind == Op::kTlogIns ? "TLOG INS " + op.value
                                : op.kind == Op::kDelete  ? std::string("DELETE")
                                                          : std::string("DEL"));
    if (op.kind != Op::kDel) out += " TS " + std::to_string(op.ts);
    out += op.fate == Op::kApplied ? " ok]" : op.fate == Op::kRefused ? " refused]" : " unknown]";
  }
  return out;
}

class ClusterNemesisTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::signal(SIGPIPE, SIG_IGN);  // writes to a node the nemesis just killed
    for (int i = 0; i < kNodes; i++) {
      nodes_.push_back(std::make_unique<TestServer>());
      bus_ports_.push_back(TestServer::FreePort());
      ASSERT_TRUE(nodes_[i]->Start(Args(i))) << nodes_[i]->error();
      ports_[i] = nodes_[i]->port();
      ids_.push_back(Cmd(nodes_[i]->Connect().get(), {"CLUSTER", "MYID"}).str());
    }
    for (int i = 0; i < kNodes; i++) {
      RedisConnection c = nodes_[i]->Connect();
      const int first = i * 16384 / kNodes, last = (i + 1) * 16384 / kNodes - 1;
      ASSERT_EQ(
          Cmd(c.get(), {"CLUSTER", "ADDSLOTSRANGE", std::to_string(first), std::to_string(last)})
              .str(),
          "OK");
      ASSERT_EQ(Cmd(c.get(), {"CLUSTER", "SET-CONFIG-EPOCH", std::to_string(i + 1)}).str(), "OK");
      if (i > 0) {
        ASSERT_EQ(Cmd(nodes_[0]->Connect().get(),
                      {"CLUSTER", "MEET", "127.0.0.1", std::to_string(ports_[i]),
                       std::to_string(bus_ports_[i])})
                      .str(),
                  "OK");
      }
    }
    ASSERT_TRUE(AllAgree()) << LogTails();
    for (int t = 0; t < kTags; t++) {
      tags_.push_back("{t" + std::to_string(t) + "}");
      for (int k = 0; k < kKeysPerTag; k++) keys_.push_back(tags_[t] + "k" + std::to_string(k));
      for (int k = 0; k < 3; k++) registers_.push_back(tags_[t] + "r" + std::to_string(k));
      for (int k = 0; k < 3; k++) logs_.push_back(tags_[t] + "l" + std::to_string(k));
    }
  }

  std::vector<std::string> Args(int i) const {
    return {"--cluster-enabled",      "yes",  "--cluster-port", std::to_string(bus_ports_[i]),
            "--cluster-node-timeout", "1500", "--wal-fsync",    "always",
            "--memtable-size",        "65536"};
  }

  void Note(const std::string& what) {
    std::lock_guard lock(mu_);
    schedule_ += "  " + what + "\n";
  }

  // The node serving `slot` by `asked`'s CLUSTER SLOTS (-1 when it does not say).
  int OwnerBy(redisContext* asked, int slot) {
    const Reply slots = Cmd(asked, {"CLUSTER", "SLOTS"});
    for (size_t i = 0; i < slots.size(); i++) {
      if (slots[i][0].integer() <= slot && slot <= slots[i][1].integer()) {
        return NodeOfPort(static_cast<int>(slots[i][2][1].integer()));
      }
    }
    return -1;
  }
  int NodeOfPort(int port) const {
    for (int i = 0; i < kNodes; i++) {
      if (ports_[i] == port) return i;
    }
    return -1;
  }

  // Every node answers, says cluster_state:ok, and names the same owner for each tag's slot.
  bool AllAgree(int seconds = 30) {
    return Eventually(
        [&] {
          std::vector<RedisConnection> c;
          for (int i = 0; i < kNodes; i++) {
            c.push_back(nodes_[i]->Connect());
            if (c.back() == nullptr || c.back()->err != 0) return false;
            const std::string info = Cmd(c.back().get(), {"CLUSTER", "INFO"}).str();
            if (info.find("cluster_state:ok") == std::string::npos ||
                info.find("cluster_known_nodes:3") == std::string::npos) {
              return false;
            }
          }
          for (const std::string& tag : tags_) {
            const int slot = KeySlot(tag);
            const int owner = OwnerBy(c[0].get(), slot);
            for (int i = 1; i < kNodes; i++) {
              if (OwnerBy(c[i].get(), slot) != owner) return false;
            }
          }
          return true;
        },
        seconds);
  }

  // The client: writes until `stop_` to the node serving each key, as a cluster client.
  void Write(uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::array<int, 16384> owner{};
    owner.fill(-1);
    std::array<RedisConnection, kNodes> conns;
    std::set<int64_t> used_ts;
    std::map<std::string, int64_t> delete_floor;  // by key: the greatest DELETE timestamp sent
    const int64_t start_ms = std::chrono::duration_cast<milliseconds>(
                                 std::chrono::system_clock::now().time_since_epoch())
                                 .count();
    auto connection = [&](int node) -> redisContext* {
      if (conns[node] == nullptr || conns[node]->err != 0) conns[node] = nodes_[node]->Connect();
      return conns[node] != nullptr && conns[node]->err == 0 ? conns[node].get() : nullptr;
    };
    for (int n = 0; n < 20000 && !stop_.load(); n++) {
      Op op;
      const uint64_t pick = rng() % 15;
      op.kind = pick < 6    ? Op::kPut
                : pick < 9  ? Op::kDelete
                : pick < 10 ? Op::kDel
                : pick < 12 ? Op::kTregSet
                            : Op::kTlogIns;
      const std::vector<std::string>& names = op.kind == Op::kTregSet   ? registers_
                                              : op.kind == Op::kTlogIns ? logs_
                                                                        : keys_;
      const std::string& key = names[rng() % names.size()];
      const int slot = KeySlot(key);
      // Out of order, but above every DELETE the key was sent: a tombstone with nothing under it
      // may be forgotten by compaction (docs/expiry.md), after which an older write would show.
      // From now on, so that a TTL counted from the timestamp outlives the run.
      int64_t& floor = delete_floor.try_emplace(key, start_ms).first->second;
      do {
        op.ts = floor + 1 + static_cast<int64_t>(rng() % 1'000'000'000);
      } while (!used_ts.insert(op.ts).second);
      if (op.kind == Op::kDelete) floor = op.ts;
      op.value = "v" + std::to_string(n);
      std::vector<std::string> args;
      op.ttl = op.kind == Op::kPut && rng() % 3 == 0;
      if (op.kind == Op::kPut) args = {"PUT", key, op.value, "TS", std::to_string(op.ts)};
      if (op.ttl) args.insert(args.end(), {"TTL", kTtlMs});
      if (op.kind == Op::kTregSet) args = {"TREG", "SET", key, op.value, std::to_string(op.ts)};
      if (op.kind == Op::kTlogIns) args = {"TLOG", "INS", key, op.value, std::to_string(op.ts)};
      if (op.kind == Op::kDelete) args = {"DELETE", key, "TS", std::to_string(op.ts)};
      if (op.kind == Op::kDel) args = {"DEL", key};
      if (owner[slot] < 0) {
        RedisConnection any = nodes_[rng() % kNodes]->Connect();
        if (any == nullptr || any->err != 0) continue;
        owner[slot] = OwnerBy(any.get(), slot);
        if (owner[slot] < 0) continue;
      }
      int node = owner[slot];
      bool asking = false;
      op.fate = Op::kRefused;
      for (int hop = 0; hop < 5 && op.fate == Op::kRefused; hop++) {
        redisContext* c = connection(node);
        if (c == nullptr) {  // down: nothing was sent
          std::this_thread::sleep_for(milliseconds(20));
          owner[slot] = -1;
          break;
        }
        if (asking && Cmd(c, {"ASKING"}).str() != "OK") break;
        const Reply reply = Cmd(c, args);
        if (c->err != 0 || reply.is_io_error()) {
          op.fate = Op::kUnknown;
          owner[slot] = -1;
          break;
        }
        if (!reply.is_error()) {
          op.fate = Op::kApplied;
          break;
        }
        const std::string error = reply.str();
        asking = error.rfind("ASK ", 0) == 0;
        if (asking || error.rfind("MOVED ", 0) == 0) {
          node = NodeOfPort(std::atoi(error.substr(error.rfind(':') + 1).c_str()));
          if (node < 0) break;
          if (!asking) owner[slot] = node;
        } else if (error.rfind("TRYAGAIN", 0) == 0 || error.rfind("CLUSTERDOWN", 0) == 0) {
          std::this_thread::sleep_for(milliseconds(20));
        } else {
          std::lock_guard lock(mu_);
          unexpected_errors_.push_back(key + ": " + error);
          break;
        }
      }
      std::lock_guard lock(mu_);
      model_[key].push_back(op);
    }
  }

  // Moves `slot` from the node serving it to `to`, as redis-cli's reshard does.
  void MoveSlot(int slot, int to) {
    RedisConnection any = nodes_[to]->Connect();
    ASSERT_TRUE(any != nullptr);
    const int from = OwnerBy(any.get(), slot);
    ASSERT_GE(from, 0);
    if (from == to) return;
    Note("move slot " + std::to_string(slot) + " from node " + std::to_string(from) + " to node " +
         std::to_string(to));
    RedisConnection source = nodes_[from]->Connect();
    RedisConnection target = nodes_[to]->Connect();
    const std::string s = std::to_string(slot);
    ASSERT_EQ(Cmd(target.get(), {"CLUSTER", "SETSLOT", s, "IMPORTING", ids_[from]}).str(), "OK");
    ASSERT_EQ(Cmd(source.get(), {"CLUSTER", "SETSLOT", s, "MIGRATING", ids_[to]}).str(), "OK");
    for (int round = 0; round < 50; round++) {
      const Reply keys = Cmd(source.get(), {"CLUSTER", "GETKEYSINSLOT", s, "100"});
      if (keys.size() == 0) break;
      std::vector<std::string> migrate = {
          "MIGRATE", "127.0.0.1", std::to_string(ports_[to]), "", "0", "5000", "KEYS"};
      for (size_t i = 0; i < keys.size(); i++) migrate.push_back(keys[i].str());
      ASSERT_EQ(Cmd(source.get(), migrate).str(), "OK");
    }
    ASSERT_EQ(Cmd(target.get(), {"CLUSTER", "SETSLOT", s, "NODE", ids_[to]}).str(), "OK");
    ASSERT_EQ(Cmd(source.get(), {"CLUSTER", "SETSLOT", s, "NODE", ids_[to]}).str(), "OK");
    for (int i = 0; i < kNodes; i++) {
      if (i == from || i == to) continue;
      RedisConnection other = nodes_[i]->Connect();
      ASSERT_TRUE(other != nullptr);
      ASSERT_EQ(Cmd(other.get(), {"CLUSTER", "SETSLOT", s, "NODE", ids_[to]}).str(), "OK");
    }
  }

  void Step(std::mt19937_64& rng) {
    const int node = static_cast<int>(rng() % kNodes);
    switch (rng() % 5) {
      case 0:
      case 1:
        MoveSlot(KeySlot(tags_[rng() % kTags]), node);
        break;
      case 2:
      case 3: {
        const bool power_cut = rng() % 2 == 0;
        Note(std::string(power_cut ? "power cut" : "kill -9") + " of node " + std::to_string(node) +
             ", restart");
        if (power_cut) {
          RedisConnection c = nodes_[node]->Connect();
          if (c != nullptr) Cmd(c.get(), {"DEBUG", "POWER-CUT"});
          nodes_[node]->WaitExit(5000);
        }
        nodes_[node]->Kill();
        std::this_thread::sleep_for(milliseconds(100));  // writes meet a node that is down
        ASSERT_TRUE(nodes_[node]->Start(Args(node))) << nodes_[node]->error();
        break;
      }
      case 4: {
        const int64_t ms = 1000 + static_cast<int64_t>(rng() % 60000);
        Note("clock of node " + std::to_string(node) + " forward " + std::to_string(ms) + " ms");
        RedisConnection c = nodes_[node]->Connect();
        ASSERT_TRUE(c != nullptr);
        EXPECT_EQ(Cmd(c.get(), {"DEBUG", "CLOCK", "ADVANCE", std::to_string(ms)}).str(), "OK");
        break;
      }
    }
    ASSERT_TRUE(AllAgree()) << "the nodes do not agree after: " << schedule_ << LogTails();
  }

  std::string LogTails() const { return ebb::test::LogTails(nodes_); }

  // A TLOG holds every entry an applied TLOG INS wrote, and only entries some TLOG INS sent.
  void CheckLog(redisContext* owner, const std::string& key, const std::vector<Op>& ops) {
    const Reply got = Cmd(owner, {"TLOG", "GET", key});
    ASSERT_FALSE(got.is_error()) << key << ": " << got.str();
    std::set<std::string> held;
    for (size_t i = 0; i < got.size(); i++) held.insert(got[i][0].str());
    std::set<std::string> sent;
    for (const Op& op : ops) {
      if (op.fate != Op::kRefused) sent.insert(op.value);
      if (op.fate == Op::kApplied) {
        EXPECT_EQ(held.count(op.value), 1u) << key << " lost the entry " << op.value;
      }
    }
    for (const std::string& value : held) {
      EXPECT_EQ(sent.count(value), 1u) << key << " holds " << value << ", never written to it";
    }
  }

  void CheckTheModel() {
    std::vector<RedisConnection> c;
    for (int i = 0; i < kNodes; i++) c.push_back(nodes_[i]->Connect());
    std::lock_guard lock(mu_);
    EXPECT_TRUE(unexpected_errors_.empty())
        << unexpected_errors_.size()
        << " writes got an error no cluster client expects, first: " << unexpected_errors_.front();
    size_t applied = 0, unknown = 0, live = 0;
    for (const auto& [key, ops] : model_) {
      const int slot = KeySlot(key);
      const int owner = OwnerBy(c[0].get(), slot);
      ASSERT_GE(owner, 0);
      for (const Op& op : ops) {
        applied += op.fate == Op::kApplied;
        unknown += op.fate == Op::kUnknown;
      }
      if (ops.front().kind == Op::kTlogIns) {
        CheckLog(c[owner].get(), key, ops);
        live++;
        continue;
      }
      const bool is_register = ops.front().kind == Op::kTregSet;
      const Reply got =
          Cmd(c[owner].get(), is_register
                                  ? std::vector<std::string>{"TREG", "GET", key}
                                  : std::vector<std::string>{"GETMETA", key, "GRACE", kFullGrace});
      ASSERT_FALSE(got.is_error()) << key << ": " << got.str();
      const std::optional<std::string> answer =
          got.size() == 0 ? std::nullopt
                          : std::optional<std::string>(got[is_register ? 0 : 1].str());
      const std::set<std::optional<std::string>> possible = PossibleAnswers(ops);
      std::string expected;
      for (const auto& p : possible) expected += " " + Show(p);
      EXPECT_EQ(possible.count(answer), 1u)
          << key << " on node " << owner << " answers " << Show(answer)
          << "; the writes it was sent allow:" << expected << "; its last writes:" << Tail(ops);
      live += answer.has_value();
      if (!answer || is_register) continue;
      // The version answered keeps its own expiry through every move (GETMETA's ttl).
      for (const Op& op : ops) {
        if (op.kind != Op::kPut || op.value != *answer) continue;
        const long long ttl = got[5].integer();
        EXPECT_TRUE(op.ttl ? ttl > 0 : ttl == -1)
            << key << "'s version " << op.value << (op.ttl ? " has a TTL" : " has no TTL")
            << " but GETMETA's ttl is " << ttl;
      }
    }
    for (int i = 0; i < kNodes; i++) {
      for (const std::string& tag : tags_) {
        const int slot = KeySlot(tag);
        if (OwnerBy(c[0].get(), slot) == i) continue;
        EXPECT_EQ(Cmd(c[i].get(), {"CLUSTER", "COUNTKEYSINSLOT", std::to_string(slot)}).integer(),
                  0)
            << "node " << i << " keeps keys of slot " << slot << " it does not serve";
      }
      const Reply keys = Cmd(c[i].get(), {"KEYS", "*"});
      for (size_t k = 0; k < keys.size(); k++) {
        EXPECT_EQ(model_.count(keys[k].str()), 1u) << keys[k].str() << " was never written";
      }
    }
    auto count = [&](std::string_view what) { return CountOccurrences(schedule_, what); };
    std::printf(
        "cluster nemesis: %zu keys, %zu writes applied, %zu unknown, %zu keys live; %zu slot "
        "moves, %zu kills, %zu power cuts, %zu clock jumps\n",
        model_.size(), applied, unknown, live, count("move slot"), count("kill -9"),
        count("power cut"), count("clock of node"));
    EXPECT_GT(applied, 0u) << "no write was applied: the schedule checked nothing";
  }

  std::vector<std::unique_ptr<TestServer>> nodes_;
  std::vector<int> bus_ports_;
  std::array<int, kNodes> ports_{};
  std::vector<std::string> ids_;
  std::vector<std::string> tags_;
  std::vector<std::string> keys_;       // strings: PUT, DELETE, DEL
  std::vector<std::string> registers_;  // TREGs: TREG SET
  std::vector<std::string> logs_;       // TLOGs: TLOG INS
  std::atomic<bool> stop_{false};
  std::mutex mu_;  // guards what follows, shared with the writer thread
  std::map<std::string, std::vector<Op>> model_;
  std::vector<std::string> unexpected_errors_;
  std::string schedule_;
};

TEST_F(ClusterNemesisTest, EveryKeyAnswersWhatItsWritesLeaveAfterMovesKillsAndPowerCuts) {
  const uint64_t seed = TestSeed(3);
  const int steps = NemesisSteps();
  SCOPED_TRACE("EBB_TEST_SEED=" + std::to_string(seed) +
               " EBB_NEMESIS_STEPS=" + std::to_string(steps));
  std::mt19937_64 rng(seed);
  std::thread writer([this, seed] { Write(seed + 1); });
  for (int step = 0; step < steps && !HasFatalFailure(); step++) {
    Step(rng);
    std::this_thread::sleep_for(milliseconds(200));
  }
  stop_.store(true);
  writer.join();
  if (HasFatalFailure()) {
    ADD_FAILURE() << "schedule:\n" << schedule_;
    return;
  }
  ASSERT_TRUE(AllAgree()) << LogTails();
  CheckTheModel();
  if (HasFailure()) ADD_FAILURE() << "schedule:\n" << schedule_;
}

}  // namespace
}  // namespace ebb::test
