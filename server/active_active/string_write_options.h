// StringWriteOptions: a client's PUT, SET or DELETE read for active-active mode — the timestamp
// and the expiry its canonical delta (`put key value TS <ts> PXAT <ms>|NOTTL`, `delete key TS
// <ts>`) needs (ActiveActive::PlanLocalWrite; docs/active-active.md, "Strings").
//
// ParseStringWriteOptions is a pure function of the request: it reads no clock, option or
// engine (the timestamp defaults to the clock, the expiry to the TTL policy, in the planner). A
// request it cannot read is left to the command's own handler, which gives its error (kValidate);
// SET's conditional options are refused in the mode (kConditional). Thread-safety: a value type
// and a pure function.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace ebb::server {

struct StringWriteOptions {
  enum class Outcome {
    kParsed,       // the fields below hold the request's options
    kValidate,     // malformed: the handler's own run gives the error
    kConditional,  // SET's NX, XX, GET or KEEPTTL (`conditional`): not allowed in the mode
  } outcome = Outcome::kParsed;
  std::string conditional;  // kConditional: the option, lower case

  std::optional<int64_t> ts;  // TS <ms> (PUT, DELETE); none: the clock's
  enum class Expiry {
    kDefault,  // no expiry option: the TTL policy's (default-ttl, ttl-rule)
    kNone,     // PUT ... NOTTL
    kAt,       // an expiry: expire_at, or ts + ttl when ttl_relative
  } expiry = Expiry::kDefault;
  int64_t expire_at = 0;  // kAt, !ttl_relative: ms since the epoch
  int64_t ttl = 0;        // kAt, ttl_relative: ms after the write's timestamp
  bool ttl_relative = false;
};

// Reads the options of `args` (PUT key value ..., SET key value ..., DELETE key ...) for the
// command `name` ("put", "set" or "delete"). REQUIRES: the dispatcher checked the arity.
StringWriteOptions ParseStringWriteOptions(std::string_view name,
                                           std::span<const std::string_view> args);

}  // namespace ebb::server
