#include "server/core/command_stats.h"

namespace ebb::server {

void CommandStats::CountError(std::string_view error_text) {
  if (!error_text.empty() && error_text.front() == '-') error_text.remove_prefix(1);
  const size_t space = error_text.find_first_of(" \r");
  const std::string_view code = error_text.substr(0, space);
  auto it = errors_.find(code);
  if (it != errors_.end()) {
    it->second++;
  } else if (errors_.size() < kMaxErrorCodes) {
    errors_.emplace(std::string(code), 1);
  }
}

}  // namespace ebb::server
