// Where a request's keys are: the one reading of a row's KeySpec (server/core/command.h) that
// COMMAND GETKEYS, ACL key permissions and cluster routing share.
#pragma once

#include <span>
#include <string_view>
#include <vector>

#include "server/core/command.h"

namespace ebb::server {

// Appends to `positions` the indexes in `args` (args[0] the command name, or the container's
// name for a subcommand row, whose keys count from the same place) of the keys the request names:
//   - first/last/step: a last beyond the arguments is too few arguments (returns false);
//   - numkeys (EVAL, FCALL): a count that is not an integer, is negative or does not fit names
//     no key, as in Redis;
//   - keyword (MIGRATE's KEYS): when the key argument at `first` is empty and the keyword is
//     among the options after `keyword_from` (AUTH takes one value, AUTH2 two), the keys are
//     every argument after it.
// REQUIRES: the request has passed the row's arity check.
bool FindKeyPositions(const KeySpec& keys, std::span<const std::string_view> args,
                      std::vector<size_t>* positions);

}  // namespace ebb::server
