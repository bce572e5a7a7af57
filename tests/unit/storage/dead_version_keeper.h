// DeadVersionKeeper: a compaction filter that keeps every row and every key's newest dead
// version, as the types' filter does in active-active mode (storage/compaction_filter.h,
// KeepsNewestDead / KeepsDeadVersions), for the engine's tests of that mode.
// Thread-safety: stateless.
#pragma once

#include <string>
#include <string_view>

#include "storage/compaction_filter.h"

namespace ebb::storage {

class DeadVersionKeeper : public CompactionFilter {
 public:
  Decision Filter(std::string_view, const RowMeta&, std::string_view, int64_t,
                  std::string*) const override {
    return Decision::kKeep;
  }
  bool KeepsNewestDead(std::string_view) const override { return true; }
  bool KeepsDeadVersions() const override { return true; }
  const char* Name() const override { return "test: keeps dead versions"; }
};

}  // namespace ebb::storage
