#include "server/active_active/series_rules_state.h"

#include <algorithm>
#include <utility>

#include "server/active_active/series_state.h"
#include "server/active_active/whole_key.h"
#include "server/core/errors.h"
#include "types/keyspace.h"
#include "types/series.h"
#include "types/series_merge.h"
#include "types/series_rules.h"

namespace ebb::server {
namespace {

using types::SeriesRuleRegister;

bool Absent(types::OpStatus status) {
  return status == types::OpStatus::kNotFound || status == types::OpStatus::kWrongType;
}

std::string RuleRowKey(int db, std::string_view dest) {
  return types::Keyspace::SystemRowKey(PerKeyRowName(kSeriesRuleRowPrefix, db, dest));
}

// `aa-tsrs:<db>:<source length>:<source>`: the name of the index rows of what `source` feeds, up
// to the destination each row names.
std::string SourceRowNamePrefix(int db, std::string_view source) {
  return std::string(kSeriesRuleSourceRowPrefix) + std::to_string(db) + ":" +
         std::to_string(source.size()) + ":" + std::string(source);
}

// The index row saying `source` feeds `dest`.
std::string SourceRowKey(int db, std::string_view source, std::string_view dest) {
  return types::Keyspace::SystemRowKey(SourceRowNamePrefix(db, source) + std::string(dest));
}

// The mode's rules: each reads the source from its register's floor on.
types::SeriesRules ModeRules(types::Keyspace& keyspace, int db) {
  types::SeriesRules rules(keyspace, db);
  rules.ActiveActiveMode(
      [&keyspace, db](const types::SeriesRule& rule) -> types::OpResult<int64_t> {
        std::optional<SeriesRuleRegister> reg;
        storage::Status s = ReadSeriesRule(keyspace, db, rule.dest, &reg);
        if (!s.ok()) return types::OpResult<int64_t>(std::move(s));
        return reg && reg->present ? reg->floor : int64_t{0};
      });
  return rules;
}

// Whether `key` holds a series, also one its expiry register expired whole: a link does not
// follow the clock, so every node agrees on it once the registers have merged.
storage::Status IsSeries(types::Keyspace& keyspace, int db, std::string_view key, bool* is) {
  std::optional<types::SeriesMeta> meta;
  storage::Status s = HeldSeriesMeta(keyspace, db, key, &meta);
  *is = meta.has_value();
  return s;
}

// The destinations whose register names `source` (the index; a stale row names a destination
// whose register has moved on, which settling finds).
storage::Status FedBy(types::Keyspace& keyspace, int db, std::string_view source,
                      std::vector<std::string>* dests) {
  const std::string prefix = SourceRowNamePrefix(db, source);
  return keyspace.ForEachSystemRow(prefix, [&](std::string_view name, std::string_view) {
    dests->emplace_back(name.substr(prefix.size()));
    return storage::Status::OK();
  });
}

// Whether the registers above `source` lead back to `dest` or past kMaxRuleChain series.
storage::Status Cyclic(types::Keyspace& keyspace, int db, std::string_view dest,
                       std::string_view source, bool* cyclic) {
  std::string current(source);
  for (int depth = 1; depth < types::kMaxRuleChain; depth++) {
    if (current == dest) {
      *cyclic = true;
      return storage::Status::OK();
    }
    std::optional<SeriesRuleRegister> reg;
    storage::Status s = ReadSeriesRule(keyspace, db, current, &reg);
    if (!s.ok()) return s;
    if (!reg || !reg->present) {
      *cyclic = false;
      return storage::Status::OK();
    }
    current = reg->source;
  }
  *cyclic = true;  // a chain longer than kMaxRuleChain series
  return storage::Status::OK();
}

storage::Status Live(types::Keyspace& keyspace, int db,
                     const std::optional<SeriesRuleRegister>& reg, bool* live) {
  *live = false;
  if (!reg || !reg->present) return storage::Status::OK();
  bool dest = false;
  bool source = false;
  bool cyclic = true;
  storage::Status s = IsSeries(keyspace, db, reg->rule.dest, &dest);
  if (s.ok()) s = IsSeries(keyspace, db, reg->source, &source);
  if (s.ok() && dest && source) s = Cyclic(keyspace, db, reg->rule.dest, reg->source, &cyclic);
  *live = s.ok() && dest && source && !cyclic;
  return s;
}

// Rewrites `dest`'s samples as its records resolve them (a link to it stopped being live).
storage::Status RebuildFromRecords(types::Keyspace& keyspace, int db, std::string_view dest) {
  types::SeriesRules rules = ModeRules(keyspace, db);
  auto cleared = rules.Clear(dest);
  if (!cleared.ok()) return types::EngineStatusOf(cleared, "series rule");
  std::vector<std::pair<int64_t, types::SampleState>> rows;
  storage::Status s = ReadSampleStateRows(keyspace, db, dest, &rows);
  for (size_t i = 0; s.ok() && i < rows.size(); i++) {
    auto put = rules.Put(dest, rows[i].first, types::ResolveSample(rows[i].second));
    if (!put.ok()) s = types::EngineStatusOf(put, "series rule");
  }
  return s;
}

// Makes `dest`'s link what its register says (header); `force`: recompute a live one anyway.
storage::Status Settle(types::Keyspace& keyspace, int db, std::string_view dest, bool force) {
  std::optional<SeriesRuleRegister> reg;
  storage::Status s = ReadSeriesRule(keyspace, db, dest, &reg);
  bool live = false;
  if (s.ok()) s = Live(keyspace, db, reg, &live);
  if (!s.ok()) return s;
  types::Series series(keyspace, db);
  series.ReadStoredSamples();  // a series its expiry register expired whole is held
  types::SeriesRules rules = ModeRules(keyspace, db);
  auto meta = series.Meta(dest);
  if (!meta.ok() && !Absent(meta.status())) return types::EngineStatusOf(meta, "series rule");
  bool dropped = false;
  if (meta.ok() && meta->source && (!live || *meta->source != reg->source)) {
    auto unlinked = rules.Unlink(*meta->source, dest);
    if (!unlinked.ok()) return types::EngineStatusOf(unlinked, "series rule");
    dropped = true;
  }
  if (!live) {
    if (reg && reg->present) {  // the source may still list a destination deleted since
      auto unlinked = rules.Unlink(reg->source, dest);
      if (!unlinked.ok()) return types::EngineStatusOf(unlinked, "series rule");
    }
    return dropped ? RebuildFromRecords(keyspace, db, dest) : storage::Status::OK();
  }
  auto source = series.Meta(reg->source);
  if (!source.ok()) return types::EngineStatusOf(source, "series rule");
  const bool linked =
      !dropped && meta->source &&
      std::find(source->rules.begin(), source->rules.end(), reg->rule) != source->rules.end();
  if (linked && !force) return storage::Status::OK();
  types::OpResult<void> done =
      linked ? types::OpResult<void>() : rules.Link(reg->source, reg->rule);
  if (done.ok()) done = rules.Clear(dest);
  if (done.ok()) done = rules.Backfill(reg->source, reg->rule);
  return done.ok() ? storage::Status::OK() : types::EngineStatusOf(done, "series rule");
}

// Settles `dest` and, `depth` levels down, what it feeds (their cycles may have changed).
storage::Status SettleDown(types::Keyspace& keyspace, int db, std::string_view dest, int depth) {
  storage::Status s = Settle(keyspace, db, dest, false);
  if (!s.ok() || depth >= types::kMaxRuleChain) return s;
  std::vector<std::string> fed;
  s = FedBy(keyspace, db, dest, &fed);
  for (size_t i = 0; s.ok() && i < fed.size(); i++) {
    if (fed[i] != dest) s = SettleDown(keyspace, db, fed[i], depth + 1);
  }
  return s;
}

}  // namespace

std::vector<std::string> SeriesRuleDeltaArgs(std::string_view dest, const SeriesRuleRegister& reg) {
  return {std::string(kSeriesRuleDelta), std::string(dest), types::EncodeSeriesRuleRegister(reg)};
}

bool ParseSeriesRuleDelta(std::span<const std::string> args, SeriesRuleRegister* reg) {
  return args.size() == 3 && types::DecodeSeriesRuleRegister(args[2], args[1], reg);
}

storage::Status ReadSeriesRule(types::Keyspace& keyspace, int db, std::string_view dest,
                               std::optional<SeriesRuleRegister>* reg) {
  reg->reset();
  storage::Row row;
  storage::Status s = keyspace.db().Get(keyspace.ReadOptions(), RuleRowKey(db, dest), &row);
  if (s.IsNotFound()) return storage::Status::OK();
  if (!s.ok()) return s;
  SeriesRuleRegister decoded;
  if (!types::DecodeSeriesRuleRegister(row.value, dest, &decoded)) {
    return storage::Status::Corruption("active-active series rule register");
  }
  *reg = std::move(decoded);
  return s;
}

storage::Status MergeSeriesRule(types::Keyspace& keyspace, int db, const SeriesRuleRegister& reg) {
  const std::string& dest = reg.rule.dest;
  std::optional<SeriesRuleRegister> held;
  storage::Status s = ReadSeriesRule(keyspace, db, dest, &held);
  if (!s.ok() || (held && !held->Below(reg))) return s;
  const storage::WriteOptions options = keyspace.WriteOptions();
  s = keyspace.db().Put(options, RuleRowKey(db, dest), types::EncodeSeriesRuleRegister(reg));
  if (s.ok() && held && held->present && (!reg.present || held->source != reg.source)) {
    s = keyspace.db().Delete(options, SourceRowKey(db, held->source, dest));
  }
  if (s.ok() && reg.present) s = keyspace.db().Put(options, SourceRowKey(db, reg.source, dest), "");
  if (s.ok()) s = SettleDown(keyspace, db, dest, 0);
  // The same rule from another floor (two nodes made it concurrently): computed again from it.
  if (s.ok() && held && held->present && reg.present && held->floor != reg.floor) {
    s = Settle(keyspace, db, dest, true);
  }
  if (s.ok() && held && held->present && (!reg.present || held->source != reg.source)) {
    // The old source may list the destination without the destination naming it back.
    auto unlinked = ModeRules(keyspace, db).Unlink(held->source, dest);
    if (!unlinked.ok()) s = types::EngineStatusOf(unlinked, "series rule");
  }
  return s;
}

storage::Status SettleSeriesRules(types::Keyspace& keyspace, int db, std::string_view key,
                                  bool force) {
  storage::Status s = Settle(keyspace, db, key, force);
  std::vector<std::string> fed;
  if (s.ok()) s = FedBy(keyspace, db, key, &fed);
  for (size_t i = 0; s.ok() && i < fed.size(); i++) {
    if (fed[i] != key) s = Settle(keyspace, db, fed[i], force);
  }
  return s;
}

storage::Status AfterSeriesMerge(types::Keyspace& keyspace, int db, std::string_view key,
                                 const std::vector<int64_t>& touched, bool existed_before,
                                 std::optional<int64_t> newest_before) {
  if (!existed_before) {
    bool is = false;
    storage::Status s = IsSeries(keyspace, db, key, &is);
    return s.ok() && is ? SettleSeriesRules(keyspace, db, key, false) : s;
  }
  if (touched.empty()) return storage::Status::OK();
  auto refreshed = ModeRules(keyspace, db).AfterMerge(key, touched, newest_before);
  return refreshed.ok() ? storage::Status::OK() : types::EngineStatusOf(refreshed, "series rule");
}

storage::Status IsComputedSeries(types::Keyspace& keyspace, int db, std::string_view key,
                                 bool* computed) {
  *computed = false;
  std::optional<types::SeriesMeta> meta;  // also one its expiry register expired whole
  storage::Status s = HeldSeriesMeta(keyspace, db, key, &meta);
  if (!s.ok()) return s;
  return IsComputedSeries(keyspace, db, key, meta, computed);
}

storage::Status IsComputedSeries(types::Keyspace& keyspace, int db, std::string_view key,
                                 const std::optional<types::SeriesMeta>& meta, bool* computed) {
  *computed = false;
  if (!meta || !meta->source) return storage::Status::OK();
  std::optional<SeriesRuleRegister> reg;
  storage::Status s = ReadSeriesRule(keyspace, db, key, &reg);
  *computed = s.ok() && reg && reg->present && reg->source == *meta->source;
  return s;
}

storage::Status SeriesRuleWriteError(types::Keyspace& keyspace, int db, std::string_view key,
                                     std::string* error) {
  error->clear();
  std::optional<SeriesRuleRegister> reg;
  storage::Status s = ReadSeriesRule(keyspace, db, key, &reg);
  if (!s.ok()) return s;
  if (reg && reg->present) {
    *error = kSeriesDestinationInActiveActive;
    return s;
  }
  auto meta = types::Series(keyspace, db).Meta(key);
  if (!meta.ok()) {
    return Absent(meta.status()) ? storage::Status::OK()
                                 : types::EngineStatusOf(meta, "series rule");
  }
  bool unregistered = meta->source.has_value();  // linked before the mode: no register
  for (size_t i = 0; s.ok() && !unregistered && i < meta->rules.size(); i++) {
    std::optional<SeriesRuleRegister> feeds;
    s = ReadSeriesRule(keyspace, db, meta->rules[i].dest, &feeds);
    unregistered = s.ok() && (!feeds || !feeds->present || feeds->source != key);
  }
  if (s.ok() && unregistered) *error = kSeriesRulesInActiveActive;
  return s;
}

storage::Status SeriesRuleDigestText(types::Keyspace& keyspace, int db, std::string_view key,
                                     std::string* text) {
  std::optional<SeriesRuleRegister> reg;
  storage::Status s = ReadSeriesRule(keyspace, db, key, &reg);
  if (!s.ok() || !reg) return s;
  const std::string encoded = types::EncodeSeriesRuleRegister(*reg);
  *text += "rule" + std::to_string(encoded.size()) + ":" + encoded + ";";
  return s;
}

}  // namespace ebb::server
