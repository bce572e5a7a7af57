#include "server/active_active/string_write_options.h"

#include "common/strings.h"
#include "common/units.h"

namespace ebb::server {
namespace {

StringWriteOptions Validate() {
  StringWriteOptions o;
  o.outcome = StringWriteOptions::Outcome::kValidate;
  return o;
}

}  // namespace

StringWriteOptions ParseStringWriteOptions(std::string_view name,
                                           std::span<const std::string_view> args) {
  using Expiry = StringWriteOptions::Expiry;
  StringWriteOptions o;
  const size_t first_option = name == "delete" ? 2 : 3;
  std::string expiry_word;  // two different expiry options are the handler's syntax error
  for (size_t i = first_option; i < args.size(); i++) {
    const std::string word = AsciiLower(args[i]);
    const bool has_value = i + 1 < args.size();
    int64_t n = 0;
    if (name == "set" && (word == "nx" || word == "xx" || word == "get" || word == "keepttl")) {
      o.outcome = StringWriteOptions::Outcome::kConditional;
      o.conditional = word;
      return o;
    }
    if (word != "ts") {
      if (!expiry_word.empty() && expiry_word != word) return Validate();
      expiry_word = word;
    }
    if (word == "nottl" && name == "put") {
      o.expiry = Expiry::kNone;
      continue;
    }
    if (!has_value) return Validate();
    i++;
    if (name == "put" && word == "ttl") {
      if (!ParseDuration(args[i], &o.ttl)) return Validate();
      o.expiry = Expiry::kAt, o.ttl_relative = true;
      continue;
    }
    if (!ParseInt64(args[i], &n)) return Validate();
    if (word == "ts" && name != "set") {
      o.ts = n;
    } else if (name != "delete" && word == "exat") {
      if (n <= 0 || n > INT64_MAX / 1000) return Validate();
      o.expiry = Expiry::kAt, o.expire_at = n * 1000, o.ttl_relative = false;
    } else if (name != "delete" && word == "pxat") {
      if (n <= 0) return Validate();
      o.expiry = Expiry::kAt, o.expire_at = n, o.ttl_relative = false;
    } else if (name == "set" && (word == "ex" || word == "px")) {
      if (n <= 0 || (word == "ex" && n > INT64_MAX / 1000)) return Validate();
      o.expiry = Expiry::kAt, o.ttl = word == "ex" ? n * 1000 : n, o.ttl_relative = true;
    } else {
      return Validate();
    }
  }
  return o;
}

}  // namespace ebb::server
