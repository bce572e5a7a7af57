// ACL command categories (ACL CAT, `+@read`, COMMAND INFO's categories): Redis 7's, plus ebb's own
// types'. A row's categories follow from its flags and its group, plus the few Redis names for a
// command itself (kept here), so adding a command rarely needs a category entry.
//
// Pure functions over the command table; thread-safe.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ebb::server {

struct CommandSpec;

// Every category, in ACL CAT's order: Redis 7's 21, then ebb's `tlog` and `treg`, then
// `timeseries` (Redis Stack's, for the TS.* rows). A category
// with no ebb command (list, hash, ...) is still accepted by ACL SETUSER, as a Redis client
// sends it.
std::span<const std::string_view> AclCategoryNames();

// The category's index in AclCategoryNames() (case-insensitive), or -1.
int FindAclCategory(std::string_view name);

// The row's categories as a bit set over AclCategoryNames() indexes, Redis 7.0.15's for every
// row Redis has (tests/commands/data/redis-7.0.15-acl-categories.txt):
//   named:  the categories Redis names for the row (FLUSHALL keyspace + dangerous, INFO
//           dangerous, WAIT connection, ...), kept in acl_categories.cc; for any other row
//   group:  generic -> keyspace, string, bitmap, connection, transactions -> transaction,
//           scripting, tlog, treg, timeseries (server, pubsub: none); a container has none;
//   flags (Redis's setImplicitACLCategories): write -> write, readonly -> read (not for
//           scripting), admin or protected (DEBUG) -> admin + dangerous, pubsub -> pubsub,
//           fast -> fast, otherwise slow.
uint64_t AclCategoriesOf(const CommandSpec& spec);

// The same as names ("@read", ...) in AclCategoryNames() order (COMMAND INFO).
std::vector<std::string> AclCategoryList(const CommandSpec& spec);

}  // namespace ebb::server
