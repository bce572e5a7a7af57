// Check: how the fuzz targets report a broken invariant — what broke (and, for the command-level
// targets, the request that broke it) on stderr, then abort() so libFuzzer keeps the input as a
// crash.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace ebb::fuzz {

inline void Check(bool ok, const char* what, const std::vector<std::string>& request) {
  if (ok) return;
  fprintf(stderr, "invariant violated: %s; request:", what);
  for (const std::string& a : request) fprintf(stderr, " '%s'", a.c_str());
  fprintf(stderr, "\n");
  abort();
}

// The same for the targets that read bytes, not requests: what broke alone.
inline void Check(bool ok, const char* what) {
  if (ok) return;
  fprintf(stderr, "invariant violated: %s\n", what);
  abort();
}

}  // namespace ebb::fuzz
