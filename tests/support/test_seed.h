// The seed of a randomized test (and a nemesis's length, NemesisSteps): fixed, so every run (and
// CI) checks the same cases, and replaceable from the environment to explore or to replay a
// failure:
//
//   EBB_TEST_SEED=12345 build/unit_storage --gtest_filter='DBModelTest.*'
//
// The seed in use is recorded as the test's "seed" property (XML output) and named in any
// failure through the returned value's SCOPED_TRACE at the call site.
// Thread-safety: call from the test's thread.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <string>

namespace ebb::test {

inline uint64_t TestSeed(uint64_t fallback) {
  uint64_t seed = fallback;
  if (const char* env = std::getenv("EBB_TEST_SEED"); env != nullptr && *env != '\0') {
    seed = std::strtoull(env, nullptr, 10);
  }
  ::testing::Test::RecordProperty("seed", std::to_string(seed));
  return seed;
}

// The steps of a nemesis test's schedule: EBB_NEMESIS_STEPS when set to a positive number
// (`make soak` runs 100), else 8.
inline int NemesisSteps() {
  const char* env = std::getenv("EBB_NEMESIS_STEPS");
  const int steps = env != nullptr ? std::atoi(env) : 0;
  return steps > 0 ? steps : 8;
}

}  // namespace ebb::test
