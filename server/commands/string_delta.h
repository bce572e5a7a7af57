// The active-active write form of a string version (docs/active-active.md, "Deltas"):
// `put key value TS ts PXAT expire_at`, or `... NOTTL` for a version that never expires, and its
// numbers beside it (WriteForm::string_put). PUT and SET make it from their options (cmd_kv.cc,
// cmd_string.cc); every peer writes the same version.
// Thread-safety: a pure function.
#pragma once

#include <charconv>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/strings.h"
#include "server/core/write_form.h"

namespace ebb::server {

// `*out` = the decimal digits of `n`, in the buffer it has.
inline void AssignDecimal(std::string* out, int64_t n) {
  char digits[20];
  const auto end = std::to_chars(digits, digits + sizeof digits, n).ptr;
  AssignBytes(out, std::string_view(digits, static_cast<size_t>(end - digits)));
}

// `*out` = `word`, left alone when it holds it already: a spare form's fixed words usually do.
inline void AssignWord(std::string* out, std::string_view word) {
  if (!SameBytes(*out, word)) AssignBytes(out, word);
}

// The form of a string version at `ts`; a version whose expiry is not after the epoch is one the
// mode has no form for (its handler decides). `client_ts`: the TS the client named, if any;
// `spare_args` (WriteFormInput's) the room to build it in, or null.
inline WriteForm StringPutForm(std::string_view key, std::string_view value, int64_t ts,
                               std::optional<int64_t> expire_at, std::optional<int64_t> client_ts,
                               std::vector<std::string>* spare_args) {
  if (expire_at && *expire_at <= 0) return WriteForm::Invalid();
  // Built in the spare room's strings (a write in the mode makes one form per request), with
  // room for the two arguments an origin under the observed-remove rule appends (its context).
  std::vector<std::string> args;
  if (spare_args != nullptr) args = std::move(*spare_args);
  const size_t count = expire_at ? 7 : 6;
  args.reserve(count + 2);
  args.resize(count);
  AssignWord(&args[0], "put");
  AssignBytes(&args[1], key);
  AssignBytes(&args[2], value);
  AssignWord(&args[3], "TS");
  AssignDecimal(&args[4], ts);
  if (expire_at) {
    AssignWord(&args[5], "PXAT");
    AssignDecimal(&args[6], *expire_at);
  } else {
    AssignWord(&args[5], "NOTTL");
  }
  WriteForm form = WriteForm::Delta(std::move(args), client_ts);
  form.string_put = WriteForm::StringPut{ts, expire_at};
  return form;
}

}  // namespace ebb::server
