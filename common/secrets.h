// Comparing secrets (passwords) without leaking, through the time the comparison takes, where
// a guess first differs from the secret or how long the secret is.
//
// Pure functions; thread-safe.
#pragma once

#include <string_view>

namespace ebb {

// True when `given` equals `secret`. The time taken depends on given.size() only: every byte of
// `given` is compared (against the secret's bytes, cycled), and the lengths are compared too, so
// an attacker timing AUTH learns neither a matching prefix nor the secret's length.
bool SecretEquals(std::string_view secret, std::string_view given);

}  // namespace ebb
