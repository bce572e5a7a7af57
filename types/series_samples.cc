#include "types/series_samples.h"

#include <algorithm>
#include <utility>

#include "types/key_encoding.h"

namespace ebb::types {

using storage::Status;

SeriesSamples::SeriesSamples(storage::DB& db, const storage::ReadOptions& options,
                             std::string prefix, const SeriesMeta& meta)
    : db_(db), options_(options), prefix_(std::move(prefix)) {
  if (meta.tail_count > 0) tail_from_ = meta.tail_from;
}

storage::Iterator* SeriesSamples::Blocks() {
  if (!blocks_) {
    storage::ReadOptions options = options_;
    options.lower_bound = prefix_;
    options.upper_bound = prefix_ + kSeriesTailTag;
    blocks_ = db_.NewIterator(options);
  }
  return blocks_.get();
}

storage::Iterator* SeriesSamples::Tail() {
  if (!tail_) {
    storage::ReadOptions options = options_;
    options.lower_bound = prefix_ + SeriesTailElement(*tail_from_);
    options.upper_bound = PrefixUpperBound(prefix_);
    tail_ = db_.NewIterator(options);
  }
  return tail_.get();
}

Status SeriesSamples::Walk(storage::Iterator* it, bool tail, bool reverse,
                           const std::function<bool(const SeriesRow&)>& visit, bool* stopped) {
  *stopped = false;
  for (; it->Valid(); reverse ? it->Prev() : it->Next()) {
    const std::string_view element = it->key().substr(prefix_.size());
    SeriesRow row{tail, it->key().size(), it->value().size(), &samples_};
    int64_t ts = 0;
    if (tail) {
      double value = 0;
      if (!DecodeSeriesTailElement(element, &ts) || !DecodeSampleValue(it->value(), &value)) {
        return Status::Corruption("bad SERIES tail row");
      }
      samples_.assign(1, Sample{ts, value});
    } else if (!DecodeSeriesElement(element, &ts) ||
               !DecodeSeriesBlock(ts, it->value(), &samples_)) {
      return Status::Corruption("bad SERIES sample block");
    }
    const bool below_tail = tail_from_ && !tail && samples_.back().ts >= *tail_from_;
    if (below_tail || (tail_from_ && tail && ts < *tail_from_) ||
        (edge_ && (reverse ? samples_.back().ts >= *edge_ : samples_.front().ts <= *edge_))) {
      return Status::Corruption("overlapping SERIES sample rows");
    }
    edge_ = reverse ? samples_.front().ts : samples_.back().ts;
    if (!visit(row)) {
      *stopped = true;
      return Status::OK();
    }
  }
  return it->status();
}

Status SeriesSamples::ForEachRow(int64_t start, bool reverse,
                                 const std::function<bool(const SeriesRow&)>& visit) {
  start = std::max<int64_t>(start, 0);
  edge_.reset();
  const bool start_in_tail = tail_from_ && start >= *tail_from_;
  bool stopped = false;
  Status s;
  if (!reverse) {
    if (!start_in_tail) {  // from the block at or before start (else the first), then the tail
      storage::Iterator* blocks = Blocks();
      blocks->SeekForPrev(prefix_ + SeriesElement(start));
      if (!blocks->Valid() && blocks->status().ok()) blocks->Seek(prefix_);
      s = Walk(blocks, false, false, visit, &stopped);
      if (!s.ok() || stopped || !tail_from_) return s;
    }
    storage::Iterator* tail = Tail();
    tail->Seek(prefix_ + SeriesTailElement(start_in_tail ? start : *tail_from_));
    return Walk(tail, true, false, visit, &stopped);
  }
  if (start_in_tail) {  // from the tail row at or before start, then the blocks from the last
    storage::Iterator* tail = Tail();
    tail->SeekForPrev(prefix_ + SeriesTailElement(start));
    s = Walk(tail, true, true, visit, &stopped);
    if (!s.ok() || stopped) return s;
  }
  storage::Iterator* blocks = Blocks();
  blocks->SeekForPrev(prefix_ + SeriesElement(start_in_tail ? kMaxSeriesTimestamp : start));
  return Walk(blocks, false, true, visit, &stopped);
}

Status SeriesSamples::Scan(int64_t from, int64_t to, bool reverse,
                           const std::function<bool(const Sample&)>& visit) {
  from = std::max<int64_t>(from, 0);
  if (from > to) return Status::OK();
  return ForEachRow(reverse ? to : from, reverse, [&](const SeriesRow& row) {
    const std::vector<Sample>& samples = *row.samples;
    const size_t n = samples.size();
    for (size_t i = 0; i < n; ++i) {
      const Sample& sample = samples[reverse ? n - 1 - i : i];
      if (reverse ? sample.ts > to : sample.ts < from) continue;
      if (reverse ? sample.ts < from : sample.ts > to) return false;
      if (!visit(sample)) return false;
    }
    return true;
  });
}

Status SeriesSamples::ReadTail(std::vector<Sample>* tail) {
  tail->clear();
  if (!tail_from_) return Status::OK();
  storage::Iterator* it = Tail();
  it->Seek(prefix_ + SeriesTailElement(*tail_from_));
  edge_.reset();
  bool stopped = false;
  return Walk(
      it, true, false,
      [&](const SeriesRow& row) {
        tail->push_back(row.samples->front());
        return true;
      },
      &stopped);
}

}  // namespace ebb::types
