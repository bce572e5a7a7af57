#include "server/core/key_positions.h"

#include "common/strings.h"

namespace ebb::server {
namespace {

// The index just past MIGRATE-style options' keyword, or 0 when it is not there.
size_t AfterKeyword(const KeySpec& keys, std::span<const std::string_view> args) {
  for (size_t i = static_cast<size_t>(keys.keyword_from); i < args.size(); i++) {
    if (EqualsIgnoreCase(args[i], keys.keyword)) return i + 1;
    if (EqualsIgnoreCase(args[i], "auth")) {
      i += 1;
    } else if (EqualsIgnoreCase(args[i], "auth2")) {
      i += 2;
    }
  }
  return 0;
}

}  // namespace

bool FindKeyPositions(const KeySpec& keys, std::span<const std::string_view> args,
                      std::vector<size_t>* positions) {
  const size_t argc = args.size();
  if (keys.numkeys > 0) {
    int64_t count = 0;
    const size_t at = static_cast<size_t>(keys.numkeys);
    if (at < argc && ParseInt64(args[at], &count) && count >= 0 &&
        static_cast<uint64_t>(count) <= argc - at - 1) {
      for (size_t i = at + 1; i <= at + static_cast<size_t>(count); i++) positions->push_back(i);
    }
    return true;
  }
  if (keys.first <= 0) return true;
  const size_t first = static_cast<size_t>(keys.first);
  if (!keys.keyword.empty() && first < argc && args[first].empty()) {
    if (const size_t from = AfterKeyword(keys, args); from != 0) {
      for (size_t i = from; i < argc; i++) positions->push_back(i);
      return true;
    }
  }
  const size_t last = keys.last < 0 ? argc + keys.last : static_cast<size_t>(keys.last);
  if (last >= argc) return false;
  for (size_t i = first; i <= last; i += static_cast<size_t>(keys.step)) positions->push_back(i);
  return true;
}

}  // namespace ebb::server
