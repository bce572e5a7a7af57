#include "types/live_version.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "storage/row.h"

namespace ebb::types {
namespace {

// The index of the version a read at the smallest grace that returns a live value takes, or -1.
// `versions` are in walk order (most recently written first). A read at grace g takes the
// greatest timestamp (ties: the earlier in the walk) among the first k versions, where the walk
// goes on to version j while ts(j) > best-so-far ts - g: k = 1 at g <= 0; a longer prefix needs
// g above every gap (best ts - ts(j)) it crossed and, unless it is all of them, at most the gap
// where it stops. Gaps are computed in 128 bits: timestamps span all of int64.
int ReadableIndex(const std::vector<storage::VersionRow>& versions, int64_t expiry_now) {
  const auto live = [&](size_t i) {
    return versions[i].kind == storage::RowKind::kValue && !versions[i].meta.ExpiredAt(expiry_now);
  };
  constexpr __int128 kMaxGrace = std::numeric_limits<int64_t>::max();
  size_t best = 0;
  __int128 need = 0;  // the grace must exceed this to reach the current prefix's end
  for (size_t k = 1; k <= versions.size(); ++k) {
    // The prefix of the first k versions, its pick `best`.
    const __int128 best_ts = versions[best].meta.timestamp_or_zero();
    const bool last = k == versions.size();
    const __int128 cap = last ? kMaxGrace : best_ts - versions[k].meta.timestamp_or_zero();
    const bool reachable = k == 1 || (need < cap && need < kMaxGrace);
    if (reachable && live(best)) return static_cast<int>(best);
    if (last) break;
    need = std::max(need, best_ts - versions[k].meta.timestamp_or_zero());
    if (versions[k].meta.timestamp_or_zero() > versions[best].meta.timestamp_or_zero()) best = k;
  }
  return -1;
}

}  // namespace

storage::Status NewestLiveVersion(storage::DB& db, const storage::ReadOptions& options,
                                  std::string_view meta_key, KeyMetaRow* out) {
  std::vector<storage::VersionRow> versions;
  storage::Status s = db.GetVersions(options, meta_key, &versions);
  if (!s.ok()) return s;
  const int index = ReadableIndex(versions, db.ExpiryNowMs());
  if (index < 0) return storage::Status::NotFound();
  storage::VersionRow& v = versions[static_cast<size_t>(index)];
  std::string_view payload;
  if (!DecodeMetaValue(v.value, &out->type, &payload, &out->raw_string)) {
    return storage::Status::Corruption("bad metadata row value");
  }
  out->payload.assign(payload);
  out->meta = v.meta;
  return storage::Status::OK();
}

}  // namespace ebb::types
