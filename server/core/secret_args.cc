#include "server/core/secret_args.h"

#include <algorithm>

#include "common/strings.h"
#include "server/core/command.h"

namespace ebb::server {

std::vector<bool> SecretArguments(const CommandSpec& spec, std::span<const std::string_view> args) {
  std::vector<bool> secret(args.size(), false);
  const std::string_view name = spec.full_name;
  if (name == "auth") {
    std::fill(secret.begin() + 1, secret.end(), true);
  } else if (name == "hello" || name == "migrate") {
    for (size_t i = 1; i < args.size(); ++i) {
      size_t hidden = 0;
      if (EqualsIgnoreCase(args[i], "AUTH")) hidden = name == "hello" ? 2 : 1;
      if (name == "migrate" && EqualsIgnoreCase(args[i], "AUTH2")) hidden = 2;
      for (size_t j = i + 1; j <= i + hidden && j < args.size(); ++j) secret[j] = true;
      i += hidden;
    }
  } else if (name == "acl|setuser") {
    for (size_t i = 2; i < args.size(); ++i) secret[i] = true;  // the user name too, as Redis
  } else if (name == "config|set") {
    for (size_t i = 2; i + 1 < args.size(); i += 2) {
      secret[i + 1] =
          EqualsIgnoreCase(args[i], "requirepass") || EqualsIgnoreCase(args[i], "masterauth");
    }
  }
  return secret;
}

}  // namespace ebb::server
