// The base of the time-series type's tests: TypesTest (a keyspace over a real engine) with the
// series of database 0 and a whole scan of one, the way every series test reads samples back.
// Thread-safety: one test thread.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "tests/unit/types/types_fixture.h"
#include "types/series.h"

namespace ebb::types {

class SeriesTypesTest : public TypesTest {
 protected:
  using TypesTest::TypesTest;

  Series series() { return Series(*ks_, 0); }
  // Every sample of `key` with from <= ts <= to, in the scan's order (newest first: reverse).
  std::vector<Sample> ScanAll(std::string_view key, int64_t from, int64_t to, bool reverse) {
    std::vector<Sample> out;
    OpResult<void> r = series().Scan(key, from, to, reverse, [&](const Sample& s) {
      out.push_back(s);
      return true;
    });
    EXPECT_TRUE(r.ok());
    return out;
  }
};

}  // namespace ebb::types
