// Compaction rules between active-active peers (docs/active-active.md, "Time series", "Rules"):
// the rule registers, how they link series, and how a destination's samples stay each node's own
// computation from its merged source.
//
// A rule is a last-writer-wins register per destination (types/series_rule_register.h), kept in
// the system row `aa-tsrule:<db>:<dest>`, with an index row per source,
// `aa-tsrs:<db>:<source length>:<source><dest>` (empty value), so that what a source feeds is
// one prefix scan. Both stay after the series are deleted, as the settings register does.
//
// A destination's link is **live** when its register names a source, both keys hold series
// (also one its expiry register expired whole, whatever the clock), and the registers above the
// source lead back to neither the destination (a cycle two nodes made concurrently) nor further
// than types::kMaxRuleChain series: a function of the
// registers and of which keys hold series, so every node agrees once they have merged. A live
// link is mirrored in the series' metadata (the destination's source, the source's rules), which
// types::SeriesRules reads. Each node keeps, for a live link, the destination's samples =
// every finished bucket's aggregate of every sample the source stores at or above the register's
// floor (the source's window floor where TS.CREATERULE ran, so samples some nodes purged below
// it count nowhere) (closed buckets, as RedisTimeSeries: a bucket is finished when the source
// holds a sample after it):
//   - a link made live (a register, a series created) clears the destination and backfills it;
//   - a merge into a source refreshes the buckets it touched and, under TWA, the buckets on
//     either side whose interpolation it may change (SeriesRules::AfterMerge);
//   - a whole-key delete of either end recomputes the destination from what is left;
//   - a link that stops being live (TS.DELETERULE, the source deleted) leaves the destination
//     the samples its own records resolve to (none when only the rule wrote it).
// The destination's samples are never logged nor sent in a snapshot: each node computes them.
// Thread-safety: the command (io) thread, inside the keyspace batch the caller opened.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "storage/status.h"
#include "types/series_rule_register.h"

namespace ebb::types {
class Keyspace;
}

namespace ebb::server {

inline constexpr std::string_view kSeriesRuleDelta = "ts-rule";
inline constexpr std::string_view kSeriesRuleRowPrefix = "aa-tsrule:";
inline constexpr std::string_view kSeriesRuleSourceRowPrefix = "aa-tsrs:";

// The delta (and snapshot piece) `ts-rule <dest> <register>`.
std::vector<std::string> SeriesRuleDeltaArgs(std::string_view dest,
                                             const types::SeriesRuleRegister& reg);
// `args` (args[0] lower-case) as (dest, register); false if out of shape.
bool ParseSeriesRuleDelta(std::span<const std::string> args, types::SeriesRuleRegister* reg);

// The rule register of destination `dest`; nullopt when it never had one.
storage::Status ReadSeriesRule(types::Keyspace& keyspace, int db, std::string_view dest,
                               std::optional<types::SeriesRuleRegister>* reg);

// Merges `reg` (its rule.dest the destination): when it wins over the register held, writes it
// and the index rows, then settles the destination and what it feeds (header).
storage::Status MergeSeriesRule(types::Keyspace& keyspace, int db,
                                const types::SeriesRuleRegister& reg);

// After `key` was created as a series (`force` false) or met a whole-key delete (`force` true):
// settles its own link and those of the destinations it feeds; `force` recomputes a live
// destination even when its link was live already.
storage::Status SettleSeriesRules(types::Keyspace& keyspace, int db, std::string_view key,
                                  bool force);

// After samples at `touched` were merged into `key`, which held a series before when
// `existed_before` (its newest timestamp: `newest_before`): settles the links of a new series, or
// refreshes the buckets of the destinations it feeds.
storage::Status AfterSeriesMerge(types::Keyspace& keyspace, int db, std::string_view key,
                                 const std::vector<int64_t>& touched, bool existed_before,
                                 std::optional<int64_t> newest_before);

// Whether `key` holds a series a live link computes (its samples are the rule's, not its
// records').
storage::Status IsComputedSeries(types::Keyspace& keyspace, int db, std::string_view key,
                                 bool* computed);
// The same for a caller that has read the key's `meta` already (HeldSeriesMeta).
storage::Status IsComputedSeries(types::Keyspace& keyspace, int db, std::string_view key,
                                 const std::optional<types::SeriesMeta>& meta, bool* computed);

// The error a client's TS sample write to `key` gets in the mode ("" when allowed): a rule's
// destination (kSeriesDestinationInActiveActive), or a series linked before the mode, whose rule
// has no register (kSeriesRulesInActiveActive).
storage::Status SeriesRuleWriteError(types::Keyspace& keyspace, int db, std::string_view key,
                                     std::string* error);

// What DEBUG DIGEST-LOGICAL hashes of `key`'s rule register (nothing when it has none).
storage::Status SeriesRuleDigestText(types::Keyspace& keyspace, int db, std::string_view key,
                                     std::string* text);

}  // namespace ebb::server
