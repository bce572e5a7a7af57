#include "common/glob.h"

#include <cstddef>
#include <utility>

namespace ebb {

namespace {

unsigned char Fold(unsigned char c, bool nocase) {
  return (nocase && c >= 'A' && c <= 'Z') ? static_cast<unsigned char>(c - 'A' + 'a') : c;
}

// Redis's stringmatchlen_impl over byte strings. *skip_longer is set once the rest of the
// pattern after a '*' matched nowhere, so earlier stars need not try longer matches (this keeps
// patterns like "a*a*a*a*b" linear-ish instead of exponential).
bool Match(std::string_view p, std::string_view s, bool nocase, bool* skip_longer, int nesting) {
  if (nesting > 1000) return false;  // protection against abusive patterns, as Redis
  size_t pi = 0, si = 0;
  auto pat = [&](size_t i) -> unsigned char {
    return i < p.size() ? static_cast<unsigned char>(p[i]) : 0;
  };
  while (pi < p.size() && si < s.size()) {
    const unsigned char sc = static_cast<unsigned char>(s[si]);
    switch (p[pi]) {
      case '*': {
        while (pi + 1 < p.size() && p[pi + 1] == '*') ++pi;
        if (pi + 1 == p.size()) return true;
        while (si < s.size()) {
          if (Match(p.substr(pi + 1), s.substr(si), nocase, skip_longer, nesting + 1)) {
            return true;
          }
          if (*skip_longer) return false;
          ++si;
        }
        *skip_longer = true;
        return false;
      }
      case '?':
        ++si;
        break;
      case '[': {
        ++pi;
        const bool negate = pat(pi) == '^';
        if (negate) ++pi;
        bool matched = false;
        while (true) {
          if (pi >= p.size()) {  // unclosed: Redis treats the set as ending here
            --pi;
            break;
          }
          if (p[pi] == '\\' && p.size() - pi >= 2) {
            ++pi;
            if (static_cast<unsigned char>(p[pi]) == sc) matched = true;
          } else if (p[pi] == ']') {
            break;
          } else if (p.size() - pi >= 3 && p[pi + 1] == '-') {
            unsigned char lo = Fold(pat(pi), nocase), hi = Fold(pat(pi + 2), nocase);
            if (lo > hi) std::swap(lo, hi);
            const unsigned char c = Fold(sc, nocase);
            pi += 2;
            if (c >= lo && c <= hi) matched = true;
          } else if (Fold(pat(pi), nocase) == Fold(sc, nocase)) {
            matched = true;
          }
          ++pi;
        }
        if (negate) matched = !matched;
        if (!matched) return false;
        ++si;
        break;
      }
      case '\\':
        if (p.size() - pi >= 2) ++pi;
        [[fallthrough]];
      default:
        if (Fold(pat(pi), nocase) != Fold(sc, nocase)) return false;
        ++si;
        break;
    }
    ++pi;
    if (si == s.size()) {
      while (pi < p.size() && p[pi] == '*') ++pi;
      break;
    }
  }
  return pi >= p.size() && si == s.size();
}

}  // namespace

bool GlobMatch(std::string_view pattern, std::string_view text, bool nocase) {
  // Redis's matcher never matches an empty text (its loop needs a byte); Redis hides that by
  // special-casing "*" in KEYS and SCAN. Here stars match the empty text directly.
  if (text.empty()) return pattern.find_first_not_of('*') == std::string_view::npos;
  bool skip_longer = false;
  return Match(pattern, text, nocase, &skip_longer, 0);
}

}  // namespace ebb
