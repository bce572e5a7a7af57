// A live version of a key that the default retrieval grace may hide: the version a slot
// move (CLUSTER COUNTKEYSINSLOT / GETKEYSINSLOT, MIGRATE's DUMP) must still find, because a read
// at some grace may return it (storage/db.h, "Reading one key").
// Thread-safety: as the engine's reads.
#pragma once

#include <string_view>

#include "storage/db.h"
#include "storage/options.h"
#include "storage/status.h"
#include "types/key_meta.h"

namespace ebb::types {

// The version of the metadata row `meta_key` (an engine key) that a read at the smallest
// retrieval grace returning a live value (not expired at the engine's expiry clock) takes, decoded
// into *out; the versions are those storage::DB::GetVersions walks. NotFound: no read at any
// grace returns the key. Corruption: that version does not decode.
storage::Status NewestLiveVersion(storage::DB& db, const storage::ReadOptions& options,
                                  std::string_view meta_key, KeyMetaRow* out);

}  // namespace ebb::types
