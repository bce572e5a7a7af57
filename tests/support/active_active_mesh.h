// ActiveActiveMeshTest: the fixture of the active-active tests that start a mesh of up to three
// spawned ebb-servers, each with the others as `peer` options, their clocks pinned at
// kMeshClockMs, plus a late joiner and a reference node a test may start (late_, ref_). TearDown
// stops every node still running and expects a clean exit.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "tests/support/active_active_support.h"
#include "tests/support/reply.h"
#include "tests/support/test_constants.h"
#include "tests/support/test_seed.h"
#include "tests/support/test_server.h"

namespace ebb::test {

inline constexpr int64_t kMeshClockMs = kPinnedNowMs;

// TS.RANGE key - + as "ts=value ts=value ..." (the reply's text when it is not an array).
inline std::string SeriesRange(redisContext* c, const std::string& key) {
  const Reply r = Cmd(c, {"TS.RANGE", key, "-", "+"});
  if (!r.is_array()) return r.ToString();
  std::string out;
  for (const Reply& sample : r.elements()) {
    if (sample.size() != 2) return r.ToString();
    out += (out.empty() ? "" : " ") + std::to_string(sample.elements()[0].integer()) + "=" +
           sample.elements()[1].str();
  }
  return out;
}

class ActiveActiveMeshTest : public ::testing::Test {
 protected:
  void TearDown() override {
    for (TestServer* server : {&n_[0], &n_[1], &n_[2], &late_, &ref_}) {
      if (server->Running()) {
        EXPECT_EQ(server->Stop(), 0) << server->ReadLog();
      }
    }
  }
  // Starts `count` nodes, each with the others as `peer` options, and pins their clocks at
  // kMeshClockMs.
  void StartMesh(int count, const std::vector<std::string>& extra = {}) {
    for (int i = 0; i < count; i++) {
      std::vector<const TestServer*> others;
      for (int j = 0; j < count; j++) {
        if (j != i) others.push_back(&n_[j]);
      }
      args_[i] = PeerArgs(others);
      args_[i].insert(args_[i].end(), extra.begin(), extra.end());
      ASSERT_TRUE(n_[i].Start(args_[i])) << n_[i].error();
    }
    for (int i = 0; i < count; i++) {
      c_.push_back(n_[i].Connect());
      SetClock(i, kMeshClockMs);
    }
  }
  // The snapshots the started nodes sent (a late node takes its snapshot from whichever peer
  // offers one first).
  int64_t SnapshotsSent() {
    int64_t sent = 0;
    for (auto& c : c_) sent += InfoField(c.get(), "peers", "snapshots_sent");
    return sent;
  }
  // Node i's stable vector, from INFO peers' `stable_vector:<id>=<offset>,...` (the text read is
  // kept in stable_text_ for a failing assertion's message).
  std::map<std::string, uint64_t> Stable(int i) {
    std::map<std::string, uint64_t> out;
    std::string_view text = stable_text_ = InfoText(c_[i].get(), "peers", "stable_vector");
    while (!text.empty()) {
      const size_t comma = text.find(',');
      const std::string_view entry = text.substr(0, comma);
      const size_t eq = entry.find('=');
      EXPECT_NE(eq, std::string_view::npos) << stable_text_;
      if (eq == std::string_view::npos) break;
      out[std::string(entry.substr(0, eq))] = std::stoull(std::string(entry.substr(eq + 1)));
      text = comma == std::string_view::npos ? "" : text.substr(comma + 1);
    }
    return out;
  }
  void SetClock(int i, int64_t ms) {
    ASSERT_EQ(Cmd(c_[i].get(), {"DEBUG", "CLOCK", "SET", std::to_string(ms)}).str(), "OK");
  }
  // Cuts (or heals) every link between the started nodes (DEBUG PEER-LINK).
  void Partition(bool cut) {
    for (size_t i = 0; i < c_.size(); i++) {
      for (size_t j = i + 1; j < c_.size(); j++) {
        SetLink(c_[i].get(), n_[i], c_[j].get(), n_[j], !cut);
      }
    }
  }
  std::vector<redisContext*> Conns() {
    std::vector<redisContext*> out;
    for (auto& c : c_) out.push_back(c.get());
    return out;
  }
  // Every delta the first `nodes` nodes logged, shuffled by TestSeed(`seed`): the same writes in
  // another order of arrival, for a reference node to apply (StartReference, ApplyInOrder).
  std::vector<LoggedDelta> EveryLoggedDeltaShuffled(uint64_t seed, int nodes = 3) {
    std::vector<LoggedDelta> all;
    for (int i = 0; i < nodes; i++) {
      std::vector<LoggedDelta> log = ReadOriginLog(n_[i]);
      all.insert(all.end(), log.begin(), log.end());
    }
    std::mt19937_64 rng(TestSeed(seed));
    std::shuffle(all.begin(), all.end(), rng);
    return all;
  }
  // Starts ref_ in the mode, linked to nobody (no_peer_), and connects to it; null on failure
  // (the failure recorded).
  RedisConnection StartReference() {
    if (!ref_.Start(no_peer_.PeerArgs())) {
      ADD_FAILURE() << ref_.error();
      return RedisConnection();
    }
    return ref_.Connect();
  }

  TestServer n_[3];
  std::vector<std::string> args_[3];
  TestServer late_, ref_;
  const RefusingPort no_peer_;  // ref_'s only peer, which never answers
  std::vector<RedisConnection> c_;
  std::string stable_text_;  // the last stable vector Stable() read
};

}  // namespace ebb::test
