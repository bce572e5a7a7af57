// ClusterCommandTest: a CommandTest whose runner is a cluster node (--cluster-enabled yes) routing
// by a FakeCluster the test fills (cluster_.mine, cluster_.others, ...), installed for the test
// and removed after it.
// Thread-safety: none; one test thread.
#pragma once

#include <string>
#include <vector>

#include "tests/support/command_runner.h"
#include "tests/support/fake_cluster.h"

namespace ebb::test {

class ClusterCommandTest : public CommandTest {
 protected:
  std::vector<std::string> RunnerOptions() const override { return {"--cluster-enabled", "yes"}; }
  void SetUp() override {
    CommandTest::SetUp();
    ebb_->context().set_cluster(&cluster_);
  }
  void TearDown() override { ebb_->context().set_cluster(nullptr); }

  FakeCluster cluster_;
};

}  // namespace ebb::test
