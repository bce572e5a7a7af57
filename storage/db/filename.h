// File names inside a DB directory (layout: docs/manifest-format.md).
//
//   NNNNNN.log        a WAL            NNNNNN.sst   a table (SST)
//   MANIFEST-NNNNNN   a manifest       CURRENT      names the live manifest
//   LOCK              held (flock) while a process has the DB open
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace ebb::storage {

enum class FileType { kLog, kTable, kManifest, kCurrent, kLock, kTemp };

std::string LogFileName(const std::string& dir, uint64_t number);
std::string TableFileName(const std::string& dir, uint64_t number);
std::string ManifestFileName(const std::string& dir, uint64_t number);
std::string CurrentFileName(const std::string& dir);
std::string LockFileName(const std::string& dir);
std::string TempFileName(const std::string& dir, uint64_t number);

// The last component of a path: what follows its last '/', the whole path if it has none.
std::string BaseName(const std::string& path);

// Recognizes a bare file name (no directory). False for names the DB does not own.
bool ParseFileName(std::string_view name, uint64_t* number, FileType* type);

}  // namespace ebb::storage
