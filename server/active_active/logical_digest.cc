#include "server/active_active/logical_digest.h"

#include <algorithm>
#include <vector>

#include "server/active_active/counters.h"
#include "server/active_active/series_state.h"
#include "server/core/digest.h"
#include "types/keyspace.h"
#include "types/kv.h"
#include "types/or_string.h"
#include "types/or_string_rows.h"
#include "types/string_rank.h"
#include "types/tlog.h"
#include "types/treg.h"

namespace ebb::server {
namespace {

void AppendVersion(std::string* row, const std::string& value, int64_t ts,
                   std::optional<int64_t> expire_at) {
  *row += "v" + std::to_string(value.size()) + ":" + value + "@" + std::to_string(ts) + "/" +
          std::to_string(expire_at.value_or(-1)) + ";";
}

// The observed-remove state of a string key whose rows carry one (types/or_string_rows.h); the
// state of a row in today's forms (one slot at the pre-mode dot, R empty) adds nothing, whichever
// form holds it.
storage::Status AppendOrState(types::Keyspace& keyspace, int db, const std::string& key,
                              std::string* row) {
  types::OrStringRows rows;
  const storage::Status s = types::LoadOrString(keyspace, db, key, &rows);
  const auto& slots = rows.state.slots;
  const bool plain = slots.size() == 1 && slots[0].dot.origin == types::kPreModeOrigin &&
                     rows.state.removed.empty();
  if (s.ok() && !plain) AppendOrStringDigestText(rows.state, row);
  return s;
}

}  // namespace

storage::Status LogicalDigest(types::Keyspace& keyspace, int databases, std::string* hex) {
  std::string digest;
  std::string row;
  for (int db = 0; db < databases; db++) {
    auto keys = keyspace.Keys(db, nullptr);
    if (!keys.ok()) return types::EngineStatusOf(keys, "unreadable");
    for (const std::string& key : keys.value()) {
      auto type = keyspace.Type(db, key);
      if (!type.ok()) return types::EngineStatusOf(type, "unreadable");
      if (!type.value()) continue;  // gone since the listing (expired)
      row = digest + std::to_string(db) + ":" + key + "=" +
            std::string(types::KeyTypeName(*type.value())) + ";";
      auto expire = keyspace.GetExpireAt(db, key);
      const std::optional<int64_t> expire_at =
          expire.ok() ? expire.value() : std::optional<int64_t>();
      switch (*type.value()) {
        case types::KeyType::kString: {
          types::Kv kv(keyspace, db);
          for (int64_t grace : {int64_t{0}, types::Keyspace::kFullGrace}) {
            auto r = kv.Get(key, grace);
            if (r.ok()) {
              AppendVersion(&row, r.value().value, r.value().ts, r.value().expire_at_ms);
            } else if (r.status() == types::OpStatus::kNotFound) {
              row += "absent;";
            } else {
              return types::EngineStatusOf(r, "unreadable");
            }
          }
          // A key under the observed-remove rule: its R and every slot too.
          if (storage::Status s = AppendOrState(keyspace, db, key, &row); !s.ok()) return s;
          // A counter: its merged state too, its base by rank (a value by its digest, as an
          // expired one compaction reduced keeps it).
          std::optional<types::CounterState> counter;
          if (storage::Status s = ReadCounterState(keyspace, db, key, &counter); !s.ok()) return s;
          if (counter) row += "ctr:" + CounterDigestText(*counter) + ";";
          break;
        }
        case types::KeyType::kTreg: {
          auto r = types::Treg(keyspace, db).Get(key);
          if (!r.ok()) return types::EngineStatusOf(r, "unreadable");
          AppendVersion(&row, r.value().value(), static_cast<int64_t>(r.value().ts()), expire_at);
          break;
        }
        case types::KeyType::kTlog: {
          types::Tlog tlog(keyspace, db, nullptr);
          auto cutoff = tlog.Cutoff(key);
          if (!cutoff.ok()) return types::EngineStatusOf(cutoff, "unreadable");
          row += "c" + std::to_string(cutoff.value()) + ";";
          auto entries = tlog.Get(key, UINT64_MAX);
          if (!entries.ok()) return types::EngineStatusOf(entries, "unreadable");
          for (const types::TlogEntry& e : entries.value()) {
            row += "e" + std::to_string(e.value.size()) + ":" + e.value + "@" +
                   std::to_string(e.ts) + ";";
          }
          row += "x" + std::to_string(expire_at.value_or(-1)) + ";";
          break;
        }
        case types::KeyType::kSeries:
          if (storage::Status s = SeriesDigestText(keyspace, db, key, &row); !s.ok()) return s;
          row += "x" + std::to_string(expire_at.value_or(-1)) + ";";
          break;
      }
      digest = Sha1Hex(row);
    }
  }
  *hex = digest.empty() ? std::string(40, '0') : digest;
  return storage::Status::OK();
}

void AppendOrStringDigestText(const types::OrStringState& state, std::string* row) {
  // Not R: once collection drops a key's R on one node and not yet on another, a later write
  // leaves them different Rs that no delta still to come can tell apart (docs/active-active.md,
  // "Collection of observed-remove deletes").
  *row += "or:;";
  std::vector<const types::OrSlot*> slots;
  slots.reserve(state.slots.size());
  for (const types::OrSlot& slot : state.slots) slots.push_back(&slot);
  std::sort(slots.begin(), slots.end(), [](const types::OrSlot* a, const types::OrSlot* b) {
    return a->dot.origin < b->dot.origin;
  });
  for (const types::OrSlot* slot : slots) {
    types::StringVersion v = slot->Ranked();  // Digest() fills the digest of its bytes
    *row += "s" + types::DigestHex(slot->dot.origin) + "@" + std::to_string(slot->dot.offset) +
            ":" + std::to_string(v.ts) + "/" +
            (v.tombstone ? "t" : "v" + types::DigestHex(v.Digest())) + "/" +
            std::to_string(v.expire_at) + ";";
  }
}

}  // namespace ebb::server
