// SeriesRules: compaction rules of the time-series type (TS.CREATERULE / TS.DELETERULE,
// docs/time-series.md "Rules"), over Series' public API.
//
// A rule (types/series_codec.h SeriesRule) lives in its source's metadata; its destination's
// metadata names the source (TS.INFO sourceKey). A link is live while both ends agree: the
// source holds a rule to the destination and the destination names the source. RENAME carries
// the link to the new name (AfterRename). A deleted, retyped or recreated destination, or either
// end copied or moved to another database (COPY and MOVE carry the metadata, not the other end's
// reference), leaves a stale half that does nothing: a rule that writes nothing until
// TS.DELETERULE, a sourceKey that a new TS.CREATERULE replaces.
//
// Semantics (RedisTimeSeries' compaction, kept stateless: a bucket's aggregate is recomputed
// from the source's visible samples whenever it is needed):
// - The open bucket is the one holding the source's newest sample; every earlier bucket is
//   finished. When a write finishes a bucket (its sample opens a newer one) or changes a
//   finished one (an older sample, or a duplicate resolved into it), the bucket's aggregate is
//   written to the destination at the bucket's start (a negative start as 0), replacing what
//   was there (policy LAST). twa interpolates from the sample before the bucket and to the one
//   after it, as RedisTimeSeries' SeriesCalcRange does.
// - TS.DEL on the source recomputes the finished buckets the range touched: a bucket left
//   empty is deleted from the destination, the others are rewritten.
// - Chains: a destination may be another rule's source; a destination write flows down the
//   chain. A chain is at most kMaxRuleChain series long; CREATERULE refuses a cycle or a longer
//   chain.
// - Backfill: CREATERULE over a series that holds samples writes every finished bucket of them.
//
// Costs: per write to a series with rules, one metadata read of each destination, and per
// finished or changed bucket a scan of that bucket (plus two neighbour seeks for twa) and one
// destination write; backfill scans the whole source.
// Thread-safety: like Series — the server's command thread only.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string_view>
#include <vector>

#include "types/keyspace.h"
#include "types/op_result.h"
#include "types/series.h"

namespace ebb::types {

inline constexpr int kMaxRuleChain = 16;

// A rule's aggregator as TS.INFO shows it: "AVG", "STD.P", ...
std::string_view RuleAggregatorName(Aggregator aggregator);

class SeriesRules {
 public:
  // REQUIRES: 0 <= db < kMaxDatabases.
  SeriesRules(Keyspace& keyspace, int db) : series_(keyspace, db) {}

  enum class CreateOutcome {
    kCreated,        // linked and backfilled
    kSameKey,        // source == dest
    kDestHasSource,  // dest already is a rule's destination (this rule's included)
    kCycle,          // dest feeds source, directly or down a chain
    kTooLong,        // the chain would exceed kMaxRuleChain series
  };
  // TS.CREATERULE. kNotFound / kWrongType when either key is missing / not a series.
  OpResult<CreateOutcome> Create(std::string_view source, const SeriesRule& rule);
  // Create's judgement alone: kCreated when the rule may be linked; nothing written.
  OpResult<CreateOutcome> Check(std::string_view source, const SeriesRule& rule);
  // TS.DELETERULE: false when source has no rule to dest. kNotFound / kWrongType (source).
  OpResult<bool> Delete(std::string_view source, std::string_view dest);

  // Active-active mode (server/active_active/series_rules_state.h): destinations keep every
  // sample and buckets are computed from every stored sample of the source (Series'
  // KeepEverySample and ReadStoredSamples), so a bucket is a function of the merged source alone.
  // A TWA rule there also refreshes, around each changed bucket, the non-empty finished buckets
  // just before and just after it: those whose TWA interpolates from or to a sample in it.
  // `floor` (when given) names each rule's floor: the rule reads only the source's samples at or
  // above it (backfill, refresh, neighbours, LATEST), so a bucket below it is empty and one
  // across it aggregates the samples from it on, interpolating from no earlier sample.
  using RuleFloor = std::function<OpResult<int64_t>(const SeriesRule&)>;
  void ActiveActiveMode(RuleFloor floor = {}) {
    series_.KeepEverySample();
    series_.ReadStoredSamples();
    mode_ = true;
    floor_ = std::move(floor);
  }
  // The mode's steps, each flowing down the chain as a write does (each reading the source from
  // the rule's floor on, when ActiveActiveMode named floors):
  //   Link: rule.dest names `source`, and source's rules hold `rule` (replacing one to the same
  //     destination); no sample written. kNotFound / kWrongType when either is not a series.
  //   Unlink: source's rules lose the rule to `dest` and dest stops naming `source` (each when
  //     it is a series).
  //   Clear: every sample of `key` deleted (nothing when it is not a series).
  //   Backfill: every finished bucket of source's samples written to rule.dest.
  //   Put: (ts, value) written to `key` under LAST (nothing when it is not a series).
  OpResult<void> Link(std::string_view source, const SeriesRule& rule);
  OpResult<void> Unlink(std::string_view source, std::string_view dest);
  OpResult<void> Clear(std::string_view key);
  OpResult<void> Backfill(std::string_view source, const SeriesRule& rule);
  OpResult<void> Put(std::string_view key, int64_t ts, double value);
  // The merge hook (the mode): the samples at `touched` were merged into `key` at once, whose
  // newest timestamp before was `newest_before` (nullopt: it was empty). Refreshes, per applying
  // rule, each finished bucket holding one of them and the bucket that held the newest sample
  // before when it is now finished — the same buckets whatever order samples arrive in — and,
  // for TWA, the finished non-empty buckets on either side of each bucket holding one of them.
  OpResult<void> AfterMerge(std::string_view key, const std::vector<int64_t>& touched,
                            std::optional<int64_t> newest_before);

  // The write-path hook: a sample at `ts` was just written to `key` (TS.ADD, MADD, INCRBY).
  OpResult<void> AfterAdd(std::string_view key, int64_t ts) { return AfterAdd(key, ts, 0); }
  // The TS.DEL hook: [from, to] was deleted from `key`, whose newest timestamp before the
  // deletion was `newest_before` (nullopt: it was empty).
  OpResult<void> AfterDelete(std::string_view key, int64_t from, int64_t to,
                             std::optional<int64_t> newest_before) {
    return AfterDelete(key, from, to, newest_before, 0);
  }
  // LATEST: the partial aggregate of the open bucket of the rule feeding `key` (at the bucket's
  // start), nullopt when `key` has no applying source rule or its source is empty. kNotFound.
  OpResult<std::optional<Sample>> OpenBucket(std::string_view key);
  // The RENAME hook: `from` was just renamed to `to`. When `to` is a series, the other ends of
  // its links follow the new name, as RedisTimeSeries' do: its source's rule to `from` now goes
  // to `to` (replacing a rule that source held to the key `to` overwrote), and each destination
  // of its rules that named `from` as its source names `to`. Links are renamed, never made: a
  // stale half stays stale. Nothing when `to` is not a series.
  OpResult<void> AfterRename(std::string_view from, std::string_view to);

 private:
  OpResult<void> AfterAdd(std::string_view key, int64_t ts, int depth);
  OpResult<void> AfterDelete(std::string_view key, int64_t from, int64_t to,
                             std::optional<int64_t> newest_before, int depth);
  // The rule's floor (ActiveActiveMode), 0 without one.
  OpResult<int64_t> FloorOf(const SeriesRule& rule);
  // Whether `rule` of `source` applies (its destination names source back).
  OpResult<bool> Applies(std::string_view source, const SeriesRule& rule);
  // Whether `source` is a series holding a rule to `dest` (a destination's sourceKey is live).
  OpResult<bool> Feeds(std::string_view source, std::string_view dest);
  // The aggregate of source's visible samples in [start, end] by `rule` (nullopt: none);
  // `after`: twa interpolates to the sample following `end`.
  OpResult<std::optional<double>> Aggregate(std::string_view source, const SeriesRule& rule,
                                            int64_t start, int64_t end, bool after);
  // Rewrites (or deletes, when now empty) the destination's sample of the bucket at `start`.
  OpResult<void> Refresh(std::string_view source, const SeriesRule& rule, int64_t start, int depth);
  // Refreshes each bucket of `buckets` (starts, any order, repeats allowed) before `open`.
  OpResult<void> RefreshFinished(std::string_view source, const SeriesRule& rule,
                                 std::vector<int64_t> buckets, int64_t open, int depth);
  // The mode's TWA rules: appends to `buckets` the start of the non-empty bucket nearest before
  // and nearest after each bucket of `changed` (starts) — the buckets whose TWA interpolates from
  // or to a sample there, before or after the change. The one after is looked for only below
  // `open` (nothing after it is finished).
  OpResult<void> AddTwaNeighbours(std::string_view source, const SeriesRule& rule,
                                  const std::vector<int64_t>& changed, int64_t open,
                                  std::vector<int64_t>* buckets);
  // Writes (ts, value) to rule.dest and flows it down the chain.
  OpResult<void> WriteDest(const SeriesRule& rule, int64_t ts, double value, int depth);
  // Deletes rule.dest's samples in [from, to] and flows the deletion down the chain.
  OpResult<void> DeleteDest(const SeriesRule& rule, int64_t from, int64_t to, int depth);
  // How many series the chain above `key` holds (key included; kMaxRuleChain + 1 when longer),
  // or -1 when dest occurs in it (a cycle). DepthBelow: the longest chain from `key` down (key
  // included), `depth` being key's place in the chain.
  OpResult<int> DepthAbove(std::string_view key, std::string_view dest);
  OpResult<int> DepthBelow(std::string_view key, int depth);

  Series series_;
  bool mode_ = false;  // ActiveActiveMode
  RuleFloor floor_;    // ActiveActiveMode
};

}  // namespace ebb::types
