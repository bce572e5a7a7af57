// The active-active write form of a string version (docs/active-active.md, "Deltas"):
// `put key value TS ts PXAT expire_at`, or `... NOTTL` for a version that never expires, and its
// numbers beside it (WriteForm::string_put). PUT and SET make it from their options (cmd_kv.cc,
// cmd_string.cc); every peer writes the same version.
// Thread-safety: a pure function.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "server/core/write_form.h"

namespace ebb::server {

// The form of a string version at `ts`; a version whose expiry is not after the epoch is one the
// mode has no form for (its handler decides). `client_ts`: the TS the client named, if any.
inline WriteForm StringPutForm(std::string_view key, std::string_view value, int64_t ts,
                               std::optional<int64_t> expire_at, std::optional<int64_t> client_ts) {
  if (expire_at && *expire_at <= 0) return WriteForm::Invalid();
  // Built in place in room for all of it and the two arguments an origin under the
  // observed-remove rule appends (its context): no copies of a long key or value, one block for
  // the list (a write in the mode makes one per request).
  std::vector<std::string> args;
  args.reserve(expire_at ? 9 : 8);
  args.emplace_back("put");
  args.emplace_back(key);
  args.emplace_back(value);
  args.emplace_back("TS");
  args.emplace_back(std::to_string(ts));
  if (expire_at) {
    args.emplace_back("PXAT");
    args.emplace_back(std::to_string(*expire_at));
  } else {
    args.emplace_back("NOTTL");
  }
  WriteForm form = WriteForm::Delta(std::move(args), client_ts);
  form.string_put = WriteForm::StringPut{ts, expire_at};
  return form;
}

}  // namespace ebb::server
