// EngineDump: every key an engine shows, with its value, timestamp and expire_at, read at
// retrieval grace 0 and again with full grace — so two engines with equal dumps answer every
// read alike. Header-only: the engine's unit tests use it without the server's support library.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "storage/db.h"

namespace ebb::test {

inline std::string EngineDump(storage::DB* db) {
  std::string out;
  for (int64_t grace : {int64_t{0}, int64_t{1} << 60}) {
    storage::ReadOptions ro;
    ro.retrieval_grace_ms = grace;
    auto it = db->NewIterator(ro);
    for (it->SeekToFirst(); it->Valid(); it->Next()) {
      const storage::RowMeta meta = it->meta();
      out += std::string(it->key()) + "=" + std::string(it->value()) + "@" +
             std::to_string(meta.timestamp_ms.value_or(-1)) + "/" +
             std::to_string(meta.expire_at_ms.value_or(-1)) + ";";
    }
    EXPECT_TRUE(it->status().ok()) << it->status().ToString();
    out += "|";
  }
  return out;
}

}  // namespace ebb::test
