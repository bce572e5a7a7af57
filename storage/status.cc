#include "storage/status.h"

namespace ebb::storage {

std::string Status::ToString() const {
  const char* name = "OK";
  switch (code_) {
    case Code::kOk:
      return "OK";
    case Code::kNotFound:
      name = "NotFound";
      break;
    case Code::kCorruption:
      name = "Corruption";
      break;
    case Code::kIOError:
      name = "IO error";
      break;
    case Code::kInvalidArgument:
      name = "Invalid argument";
      break;
    case Code::kNotSupported:
      name = "Not supported";
      break;
    case Code::kBusy:
      name = "Busy";
      break;
    case Code::kIncomplete:
      name = "Incomplete";
      break;
  }
  std::string out = name;
  if (!message_.empty()) {
    out += ": ";
    out += message_;
  }
  return out;
}

}  // namespace ebb::storage
