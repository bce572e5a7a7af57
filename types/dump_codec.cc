#include "types/dump_codec.h"

#include "storage/util/coding.h"
#include "storage/util/crc32c.h"

namespace ebb::types {
namespace {

constexpr std::string_view kMagic = "EBB";
constexpr uint8_t kFormat = 2;          // what EncodeDump writes
constexpr uint8_t kFormatNoExpiry = 1;  // still read: no expiries
constexpr size_t kHeader = 5;           // magic, format, type
constexpr size_t kTrailer = 4;          // crc32c

// Version flags (string versions).
constexpr uint8_t kTombstone = 1;
constexpr uint8_t kHasTs = 2;
constexpr uint8_t kHasExpiry = 4;  // format 2 only; never with kTombstone

bool GetInt64(std::string_view* in, int64_t* v) {
  uint64_t u = 0;
  if (!storage::GetFixed64(in, &u)) return false;
  *v = static_cast<int64_t>(u);
  return true;
}

bool GetString(std::string_view* in, std::string* s) {
  std::string_view view;
  if (!storage::GetLengthPrefixed(in, &view)) return false;
  s->assign(view);
  return true;
}

bool GetOptionalInt64(std::string_view* in, std::optional<int64_t>* v) {
  int64_t value = 0;
  if (!GetInt64(in, &value)) return false;
  *v = value;
  return true;
}

// Format 2's metadata expiry: u8 0 (none) | u8 1 fixed64 expire_at.
bool GetMetaExpiry(std::string_view* in, std::optional<int64_t>* expire_at) {
  uint8_t present = 0;
  if (!storage::GetByte(in, &present) || present > 1) return false;
  return present == 0 || GetOptionalInt64(in, expire_at);
}

void PutMetaExpiry(std::string* out, std::optional<int64_t> expire_at) {
  out->push_back(static_cast<char>(expire_at ? 1 : 0));
  if (expire_at) storage::PutFixed64(out, static_cast<uint64_t>(*expire_at));
}

// A series' body after meta_ts: length-prefixed settings (EncodeSeriesMeta with version 0, no
// newest, purged_below 0, no purge marker, no source or rules: RESTORE makes a series without
// rules) | varint64 count | (fixed64 ts | fixed64 value bits)*, ascending.
void PutSeriesDump(std::string* out, const KeyDump& d) {
  SeriesMeta settings;
  settings.settings = d.series.settings;
  storage::PutLengthPrefixed(out, EncodeSeriesMeta(settings));
  storage::PutVarint64(out, d.samples.size());
  for (const Sample& sample : d.samples) {
    storage::PutFixed64(out, static_cast<uint64_t>(sample.ts));
    out->append(EncodeSampleValue(sample.value));
  }
}

bool DecodeSeriesDump(std::string_view* in, KeyDump* d) {
  std::string_view settings;
  uint64_t n = 0;
  if (!storage::GetLengthPrefixed(in, &settings) || !DecodeSeriesMeta(settings, &d->series) ||
      d->series.version != 0 || d->series.newest || d->series.purged_below != 0 ||
      d->series.purge_marked_until != 0 || d->series.source || !d->series.rules.empty() ||
      !storage::GetVarint64(in, &n) || n > in->size() / 16) {
    return false;
  }
  d->samples.resize(n);
  for (size_t i = 0; i < n; ++i) {
    uint64_t ts = 0;
    if (!storage::GetFixed64(in, &ts) || ts > static_cast<uint64_t>(kMaxSeriesTimestamp) ||
        !DecodeSampleValue(in->substr(0, 8), &d->samples[i].value)) {
      return false;
    }
    in->remove_prefix(8);
    d->samples[i].ts = static_cast<int64_t>(ts);
    if (i > 0 && d->samples[i].ts <= d->samples[i - 1].ts) return false;  // ascending, once
  }
  return true;
}

bool DecodeBody(std::string_view in, uint8_t format, KeyDump* d) {
  const bool expiries = format != kFormatNoExpiry;
  if (expiries && d->type != KeyType::kString && !GetMetaExpiry(&in, &d->meta_expire_at)) {
    return false;
  }
  const uint8_t known_flags = kTombstone | kHasTs | (expiries ? kHasExpiry : 0);
  switch (d->type) {
    case KeyType::kString: {
      uint64_t n = 0;
      if (!storage::GetVarint64(&in, &n) || n == 0 || n > in.size()) return false;
      d->versions.resize(n);
      for (DumpVersion& v : d->versions) {
        uint8_t flags = 0;
        if (!storage::GetByte(&in, &flags) || (flags & ~known_flags) != 0) return false;
        v.tombstone = (flags & kTombstone) != 0;
        if (v.tombstone && (flags & kHasExpiry)) return false;
        if ((flags & kHasTs) && !GetOptionalInt64(&in, &v.ts)) return false;
        if ((flags & kHasExpiry) && !GetOptionalInt64(&in, &v.expire_at)) return false;
        if (!v.tombstone && !GetString(&in, &v.value)) return false;
      }
      break;
    }
    case KeyType::kTreg:
      if (!GetInt64(&in, &d->meta_ts) || !storage::GetFixed64(&in, &d->treg_ts) ||
          !GetString(&in, &d->treg_value)) {
        return false;
      }
      break;
    case KeyType::kTlog: {
      uint64_t n = 0;
      if (!GetInt64(&in, &d->meta_ts) || !storage::GetFixed64(&in, &d->log.cutoff) ||
          !storage::GetVarint64(&in, &d->log.window_ms) ||
          !storage::GetFixed64(&in, &d->log.newest) || !storage::GetVarint64(&in, &n) ||
          n > in.size()) {
        return false;
      }
      d->entries.resize(n);
      for (size_t i = 0; i < n; ++i) {
        DumpEntry& e = d->entries[i];
        if (!storage::GetFixed64(&in, &e.ts) || !GetString(&in, &e.value)) return false;
        // Newest first, none below the cutoff, no entry twice (the sub-rows' order).
        if (e.ts < d->log.cutoff) return false;
        if (i > 0) {
          const DumpEntry& prev = d->entries[i - 1];
          if (e.ts > prev.ts || (e.ts == prev.ts && e.value >= prev.value)) return false;
        }
      }
      break;
    }
    case KeyType::kSeries:
      if (!GetInt64(&in, &d->meta_ts) || !DecodeSeriesDump(&in, d)) return false;
      break;
    default:
      return false;
  }
  return in.empty();
}

}  // namespace

std::string EncodeDump(const KeyDump& d) {
  std::string out(kMagic);
  out.push_back(static_cast<char>(kFormat));
  out.push_back(static_cast<char>(d.type));
  if (d.type != KeyType::kString) PutMetaExpiry(&out, d.meta_expire_at);
  switch (d.type) {
    case KeyType::kString:
      storage::PutVarint64(&out, d.versions.size());
      for (const DumpVersion& v : d.versions) {
        out.push_back(static_cast<char>((v.tombstone ? kTombstone : 0) | (v.ts ? kHasTs : 0) |
                                        (v.expire_at ? kHasExpiry : 0)));
        if (v.ts) storage::PutFixed64(&out, static_cast<uint64_t>(*v.ts));
        if (v.expire_at) storage::PutFixed64(&out, static_cast<uint64_t>(*v.expire_at));
        if (!v.tombstone) storage::PutLengthPrefixed(&out, v.value);
      }
      break;
    case KeyType::kTreg:
      storage::PutFixed64(&out, static_cast<uint64_t>(d.meta_ts));
      storage::PutFixed64(&out, d.treg_ts);
      storage::PutLengthPrefixed(&out, d.treg_value);
      break;
    case KeyType::kTlog:
      storage::PutFixed64(&out, static_cast<uint64_t>(d.meta_ts));
      storage::PutFixed64(&out, d.log.cutoff);
      storage::PutVarint64(&out, d.log.window_ms);
      storage::PutFixed64(&out, d.log.newest);
      storage::PutVarint64(&out, d.entries.size());
      for (const DumpEntry& e : d.entries) {
        storage::PutFixed64(&out, e.ts);
        storage::PutLengthPrefixed(&out, e.value);
      }
      break;
    case KeyType::kSeries:
      storage::PutFixed64(&out, static_cast<uint64_t>(d.meta_ts));
      PutSeriesDump(&out, d);
      break;
  }
  storage::PutFixed32(&out, storage::crc32c::Value(out));
  return out;
}

DumpDecode DecodeDump(std::string_view payload, KeyDump* dump) {
  if (payload.size() < kHeader + kTrailer || payload.substr(0, kMagic.size()) != kMagic) {
    return DumpDecode::kBadVersionOrChecksum;
  }
  const uint8_t format = static_cast<uint8_t>(payload[3]);
  if (format != kFormat && format != kFormatNoExpiry) return DumpDecode::kBadVersionOrChecksum;
  const std::string_view covered = payload.substr(0, payload.size() - kTrailer);
  if (storage::DecodeFixed32(payload.data() + covered.size()) != storage::crc32c::Value(covered)) {
    return DumpDecode::kBadVersionOrChecksum;
  }
  *dump = KeyDump{};
  dump->type = static_cast<KeyType>(static_cast<uint8_t>(payload[4]));
  return DecodeBody(covered.substr(kHeader), format, dump) ? DumpDecode::kOk
                                                           : DumpDecode::kBadFormat;
}

}  // namespace ebb::types
