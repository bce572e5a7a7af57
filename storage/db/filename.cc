#include "storage/db/filename.h"

#include <cstdio>

namespace ebb::storage {
namespace {

std::string Numbered(const std::string& dir, uint64_t number, const char* suffix) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "/%06llu.%s", static_cast<unsigned long long>(number), suffix);
  return dir + buf;
}

bool ParseNumber(std::string_view digits, uint64_t* number) {
  if (digits.empty() || digits.size() > 19) return false;
  uint64_t v = 0;
  for (char c : digits) {
    if (c < '0' || c > '9') return false;
    v = v * 10 + static_cast<uint64_t>(c - '0');
  }
  *number = v;
  return true;
}

}  // namespace

std::string LogFileName(const std::string& dir, uint64_t number) {
  return Numbered(dir, number, "log");
}
std::string TableFileName(const std::string& dir, uint64_t number) {
  return Numbered(dir, number, "sst");
}
std::string TempFileName(const std::string& dir, uint64_t number) {
  return Numbered(dir, number, "dbtmp");
}
std::string ManifestFileName(const std::string& dir, uint64_t number) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "/MANIFEST-%06llu", static_cast<unsigned long long>(number));
  return dir + buf;
}
std::string CurrentFileName(const std::string& dir) { return dir + "/CURRENT"; }
std::string LockFileName(const std::string& dir) { return dir + "/LOCK"; }

bool ParseFileName(std::string_view name, uint64_t* number, FileType* type) {
  if (name == "CURRENT") {
    *number = 0;
    *type = FileType::kCurrent;
    return true;
  }
  if (name == "LOCK") {
    *number = 0;
    *type = FileType::kLock;
    return true;
  }
  if (name.starts_with("MANIFEST-")) {
    *type = FileType::kManifest;
    return ParseNumber(name.substr(9), number);
  }
  const size_t dot = name.find('.');
  if (dot == std::string_view::npos || !ParseNumber(name.substr(0, dot), number)) return false;
  const std::string_view suffix = name.substr(dot + 1);
  if (suffix == "log") {
    *type = FileType::kLog;
  } else if (suffix == "sst") {
    *type = FileType::kTable;
  } else if (suffix == "dbtmp") {
    *type = FileType::kTemp;
  } else {
    return false;
  }
  return true;
}

std::string BaseName(const std::string& path) { return path.substr(path.rfind('/') + 1); }

}  // namespace ebb::storage
