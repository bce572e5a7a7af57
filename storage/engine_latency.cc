#include "storage/engine_latency.h"

namespace ebb::storage {

std::string_view EngineLatency::Name(EngineEvent event) {
  switch (event) {
    case EngineEvent::kWalFsync:
      return "wal-fsync";
    case EngineEvent::kMemtableFlush:
      return "memtable-flush";
    case EngineEvent::kCompaction:
      return "compaction";
    case EngineEvent::kPurgeCompaction:
      return "purge-compaction";
    case EngineEvent::kFileDrop:
      return "file-drop";
  }
  return "";
}

}  // namespace ebb::storage
