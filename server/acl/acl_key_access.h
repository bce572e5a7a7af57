// What access a command needs to each of its keys, for ACL key patterns (%R~, %W~, ~): Redis 7's
// key-spec flags for ebb's rows. A key the command reads (Redis's ACCESS) needs R; one it
// inserts, updates or deletes needs W; one only tested for existence or size (EXISTS, TYPE,
// STRLEN, TOUCH, TLOG SIZE ...) needs neither: any pattern naming it admits it.
//
// Rows not named in the table follow their flags: a read-only row's keys need R, a write row's R
// and W. Some rows depend on the request: SET needs R only with GET, BITFIELD needs W only with
// SET or INCRBY, and COPY, RENAME, RENAMENX and BITOP need different access for their source and
// destination keys.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

namespace ebb::server {

struct CommandSpec;

// The AclKeyAccess (acl_selector.h) the request `args` (args[0] the command name) needs to its
// key at `ordinal` among its keys (0 for the first).
uint32_t AclKeyNeed(const CommandSpec& spec, std::span<const std::string_view> args,
                    size_t ordinal);

}  // namespace ebb::server
