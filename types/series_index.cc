#include "types/series_index.h"

#include <algorithm>
#include <memory>

#include "storage/util/coding.h"
#include "types/key_encoding.h"
#include "types/key_meta.h"
#include "types/series_codec.h"

namespace ebb::types {

using storage::Status;

namespace {

// An index build writes at most this many rows per engine write.
constexpr size_t kBuildBatchRows = 1024;

bool HoldsPair(const SeriesLabelPairs& labels, std::string_view label, std::string_view value) {
  return std::any_of(labels.begin(), labels.end(),
                     [&](const auto& pair) { return pair.first == label && pair.second == value; });
}

// The rows of one lookup, value after value, each value's keys in key order.
class LookupRows {
 public:
  LookupRows(Keyspace& keyspace, int db, const SeriesIndexLookup& lookup)
      : keyspace_(keyspace), db_(db), lookup_(lookup) {}

  // The next row's series key into *key; false at the end or on an error (status()).
  bool Next(std::string* key) {
    while (true) {
      if (it_ != nullptr) {
        if (started_) it_->Next();
        started_ = true;
        if (it_->Valid()) {
          key->assign(it_->key().substr(prefix_.size()));
          return true;
        }
        if (!it_->status().ok()) {
          status_ = it_->status();
          return false;
        }
        it_.reset();
      }
      if (next_value_ == lookup_.values.size()) return false;
      prefix_ = SeriesIndexValuePrefix(db_, lookup_.label, lookup_.values[next_value_++]);
      storage::ReadOptions options = keyspace_.ReadOptions();
      options.lower_bound = prefix_;
      options.upper_bound = PrefixUpperBound(prefix_);
      it_ = keyspace_.db().NewIterator(options);
      it_->Seek(prefix_);
      started_ = false;
    }
  }
  const Status& status() const { return status_; }

 private:
  Keyspace& keyspace_;
  const int db_;
  const SeriesIndexLookup& lookup_;
  size_t next_value_ = 0;
  std::string prefix_;
  std::unique_ptr<storage::Iterator> it_;
  bool started_ = false;
  Status status_;
};

// Adds the index rows of one series (metadata `payload`) to *batch; false if it does not decode.
bool AddSeriesRows(const storage::WriteOptions& options, int db, std::string_view key,
                   std::string_view payload, int64_t now_ms, storage::WriteBatch* batch,
                   uint64_t* rows) {
  SeriesMeta meta;
  if (!DecodeSeriesMeta(payload, &meta)) return false;
  WriteSeriesIndexRows(options, db, key, nullptr, meta.settings.labels, now_ms, batch);
  *rows += meta.settings.labels.size();
  return true;
}

// The name of `db`'s index rows up to their label: the row prefix and the database's byte.
std::string DbRowName(int db) {
  std::string name(kSeriesIndexRowPrefix);
  name.push_back(static_cast<char>(static_cast<uint8_t>(db)));
  return name;
}

}  // namespace

std::string SeriesIndexValuePrefix(int db, std::string_view label, std::string_view value) {
  std::string name = DbRowName(db);
  storage::PutLengthPrefixed(&name, label);
  storage::PutLengthPrefixed(&name, value);
  return SystemKey(name);
}

std::string SeriesIndexKey(int db, std::string_view label, std::string_view value,
                           std::string_view key) {
  std::string row = SeriesIndexValuePrefix(db, label, value);
  row.append(key);
  return row;
}

storage::KeyRange SeriesIndexDbRange(int db) {
  std::string begin = SystemKey(DbRowName(db));
  std::string end = PrefixUpperBound(begin);
  return storage::KeyRange{std::move(begin), std::move(end)};
}

storage::KeyRange SeriesIndexRange() {
  return storage::KeyRange{SystemKey(kSeriesIndexRowPrefix),
                           std::string(1, static_cast<char>(KeyTag::kMeta))};
}

bool ParseSeriesIndexKey(std::string_view engine_key, SeriesIndexEntry* entry) {
  const std::string prefix = SystemKey(kSeriesIndexRowPrefix);
  if (!engine_key.starts_with(prefix) || engine_key.size() == prefix.size()) return false;
  std::string_view in = engine_key.substr(prefix.size());
  entry->db = static_cast<uint8_t>(in.front());
  in.remove_prefix(1);
  if (!storage::GetLengthPrefixed(&in, &entry->label) ||
      !storage::GetLengthPrefixed(&in, &entry->value)) {
    return false;
  }
  entry->key = in;
  return true;
}

void WriteSeriesIndexRows(const storage::WriteOptions& options, int db, std::string_view key,
                          const SeriesLabelPairs* old, const SeriesLabelPairs& labels,
                          int64_t now_ms, storage::WriteBatch* batch) {
  if (old != nullptr) {
    for (const auto& [label, value] : *old) {
      if (!HoldsPair(labels, label, value)) {
        batch->Delete(options, SeriesIndexKey(db, label, value, key));
      }
    }
  }
  for (const auto& [label, value] : labels) {
    batch->Put(options, SeriesIndexKey(db, label, value, key), "", now_ms);
  }
}

void DeleteSeriesIndexRows(const storage::WriteOptions& options, int db, std::string_view key,
                           const SeriesLabelPairs& labels, storage::WriteBatch* batch) {
  for (const auto& [label, value] : labels) {
    batch->Delete(options, SeriesIndexKey(db, label, value, key));
  }
}

Status SeriesIndexReady(Keyspace& keyspace, bool* ready) {
  storage::Row row;
  Status s = keyspace.db().Get(keyspace.ReadOptions(), SystemKey(kSeriesIndexVersionRow), &row);
  if (!s.ok() && !s.IsNotFound()) return s;
  *ready = s.ok() && row.value == kSeriesIndexVersion;
  return Status::OK();
}

Status SeriesIndexCandidates(Keyspace& keyspace, int db,
                             const std::vector<SeriesIndexLookup>& lookups,
                             std::vector<std::string>* keys, uint64_t* rows_read) {
  std::vector<LookupRows> rows;
  rows.reserve(lookups.size());
  for (const SeriesIndexLookup& lookup : lookups) rows.emplace_back(keyspace, db, lookup);
  std::vector<std::vector<std::string>> found(lookups.size());
  uint64_t read = 0;
  std::string key;
  // Side by side, one row each per round: the first lookup to end has the fewest rows.
  std::optional<size_t> fewest;
  while (!fewest) {
    for (size_t i = 0; i < rows.size(); ++i) {
      if (!rows[i].Next(&key)) {
        if (!rows[i].status().ok()) return rows[i].status();
        fewest = i;
        break;
      }
      ++read;
      found[i].push_back(key);
    }
  }
  if (rows_read != nullptr) *rows_read += read;
  *keys = std::move(found[*fewest]);
  std::sort(keys->begin(), keys->end());
  keys->erase(std::unique(keys->begin(), keys->end()), keys->end());
  return Status::OK();
}

Status BuildSeriesIndex(Keyspace& keyspace, SeriesIndexBuild* report) {
  *report = SeriesIndexBuild();
  bool ready = false;
  Status s = SeriesIndexReady(keyspace, &ready);
  if (!s.ok() || ready) return s;
  const storage::WriteOptions options = keyspace.WriteOptions();
  storage::WriteBatch batch;
  Status written;
  const int databases = keyspace.layout() == KeyLayout::kBySlot ? 1 : kMaxDatabases;
  for (int db = 0; db < databases && written.ok(); ++db) {
    OpResult<void> walked = keyspace.ForEachKeyOfType(
        db, KeyType::kSeries, [&](std::string_view key, std::string_view payload) {
          if (!AddSeriesRows(options, db, key, payload, keyspace.NowMs(), &batch, &report->rows)) {
            ++report->skipped;
            return true;
          }
          ++report->series;
          if (batch.Count() >= kBuildBatchRows) {
            written = keyspace.db().Write(options, batch);
            batch.Clear();
          }
          return written.ok();
        });
    if (!walked.ok()) return walked.engine_status();
  }
  if (written.ok() && batch.Count() > 0) written = keyspace.db().Write(options, batch);
  if (!written.ok()) return written;
  s = keyspace.PutSystemRow(kSeriesIndexVersionRow, kSeriesIndexVersion);
  if (s.ok()) report->built = true;
  return s;
}

void RegisterSeriesIndexCompactionHook(TypesCompactionFilter& filter) {
  // Name prefix without the 0x00 tag, as the filter matches it.
  filter.RegisterDependentRowHook(
      std::string(kSeriesIndexRowPrefix),
      [](std::string_view name, const MetaRowReader& read, int64_t) {
        using Decision = storage::CompactionFilter::Decision;
        const std::string engine_key = SystemKey(name);  // the entry's views point into it
        SeriesIndexEntry entry;
        if (!ParseSeriesIndexKey(engine_key, &entry)) return Decision::kKeep;
        storage::Row row;
        const Status s = read(entry.db, entry.key, &row);
        if (s.IsNotFound()) return Decision::kDrop;
        if (!s.ok()) return Decision::kKeep;  // an I/O error must never destroy data
        KeyType type;
        std::string_view payload;
        if (!DecodeMetaValue(row.value, &type, &payload)) return Decision::kKeep;
        if (type != KeyType::kSeries) return Decision::kDrop;
        SeriesMeta meta;
        if (!DecodeSeriesMeta(payload, &meta)) return Decision::kKeep;
        return HoldsPair(meta.settings.labels, entry.label, entry.value) ? Decision::kKeep
                                                                         : Decision::kDrop;
      });
}

}  // namespace ebb::types
