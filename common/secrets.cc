#include "common/secrets.h"

#include <cstddef>

namespace ebb {

bool SecretEquals(std::string_view secret, std::string_view given) {
  // volatile: the compiler may not end the loop early once `diff` is known to be non-zero.
  volatile unsigned char diff = secret.size() != given.size() ? 1 : 0;
  size_t j = 0;
  for (const char c : given) {
    const unsigned char s = secret.empty() ? 0 : static_cast<unsigned char>(secret[j]);
    diff = diff | (s ^ static_cast<unsigned char>(c));
    j = (j + 1 == secret.size()) ? 0 : j + 1;
  }
  return diff == 0;
}

}  // namespace ebb
