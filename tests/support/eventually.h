// Eventually: the one bounded wait of the integration tests for a condition another process
// brings about (a link coming up, a failover, a key arriving).
#pragma once

#include <chrono>
#include <functional>
#include <thread>

namespace ebb::test {

// Polls `done` every 50 ms for up to `seconds`; true as soon as it holds, else its last answer.
inline bool Eventually(const std::function<bool()>& done, int seconds = 20) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
  while (std::chrono::steady_clock::now() < deadline) {
    if (done()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return done();
}

}  // namespace ebb::test
