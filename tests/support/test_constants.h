// Values many tests share. A test binary compiles its files eight to a unit (CMakeLists.txt,
// "Unity builds"), where two files' constants of one name collide, so a value several files
// define alike is defined here once.
#pragma once

#include <cstdint>
#include <limits>
#include <string>

namespace ebb::test {

// The server time tests pin (DEBUG CLOCK SET, a command runner's clock), in ms: far from the
// real clock, so no test depends on when it runs.
inline constexpr int64_t kPinnedNowMs = 1'900'000'000'000;

// A wall-clock time the types tests start their engine's clock at, in ms.
inline constexpr int64_t kTypesStartMs = 1'700'000'000'000;

// The greatest timestamp a TLOG entry or a TREG value can have.
inline constexpr uint64_t kMaxTimestamp = std::numeric_limits<uint64_t>::max();

// Node ids tests give the nodes they start (active-active `node-id`, cluster node names): 40
// characters each, in ascending order.
inline const std::string kNodeIdA(40, 'a');
inline const std::string kNodeIdB(40, 'b');
inline const std::string kNodeIdC(40, 'c');

// An observed-remove context naming nothing, as a delta carries it (docs/active-active.md).
inline const std::string kEmptyOrContext("\x01\x00", 2);

}  // namespace ebb::test
