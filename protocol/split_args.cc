#include "protocol/split_args.h"

namespace ebb::protocol {

namespace {

// C's isspace in the "C" locale.
bool IsSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

bool IsHexDigit(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return c - 'A' + 10;
}

}  // namespace

bool SplitArgs(std::string_view line, const std::function<void(const SplitToken&)>& emit) {
  // at(i) reads the line like a C string: past its end, or from a NUL on, it is '\0'.
  if (size_t nul = line.find('\0'); nul != std::string_view::npos) line = line.substr(0, nul);
  auto at = [&](size_t i) -> char { return i < line.size() ? line[i] : '\0'; };

  std::string value;
  size_t p = 0;
  while (true) {
    while (at(p) != '\0' && IsSpace(at(p))) ++p;
    if (at(p) == '\0') return true;
    bool in_double = false, in_single = false, done = false, quoted = false;
    const size_t start = p;
    value.clear();
    while (!done) {
      const char c = at(p);
      if (in_double) {
        if (c == '\\' && at(p + 1) == 'x' && IsHexDigit(at(p + 2)) && IsHexDigit(at(p + 3))) {
          value.push_back(static_cast<char>(HexValue(at(p + 2)) * 16 + HexValue(at(p + 3))));
          p += 3;
        } else if (c == '\\' && at(p + 1) != '\0') {
          ++p;
          switch (at(p)) {
            case 'n':
              value.push_back('\n');
              break;
            case 'r':
              value.push_back('\r');
              break;
            case 't':
              value.push_back('\t');
              break;
            case 'b':
              value.push_back('\b');
              break;
            case 'a':
              value.push_back('\a');
              break;
            default:
              value.push_back(at(p));
              break;
          }
        } else if (c == '"') {
          if (at(p + 1) != '\0' && !IsSpace(at(p + 1))) return false;
          done = true;
        } else if (c == '\0') {
          return false;
        } else {
          value.push_back(c);
        }
      } else if (in_single) {
        if (c == '\\' && at(p + 1) == '\'') {
          ++p;
          value.push_back('\'');
        } else if (c == '\'') {
          if (at(p + 1) != '\0' && !IsSpace(at(p + 1))) return false;
          done = true;
        } else if (c == '\0') {
          return false;
        } else {
          value.push_back(c);
        }
      } else {
        switch (c) {
          case ' ':
          case '\n':
          case '\r':
          case '\t':
          case '\0':
            done = true;
            break;
          case '"':
            in_double = quoted = true;
            break;
          case '\'':
            in_single = quoted = true;
            break;
          default:
            value.push_back(c);
            break;
        }
      }
      if (at(p) != '\0') ++p;
    }
    emit(SplitToken{start, quoted, value});
  }
}

bool SplitArgs(std::string_view line, std::vector<std::string>* out) {
  out->clear();
  bool ok = SplitArgs(line, [out](const SplitToken& t) { out->emplace_back(t.value); });
  if (!ok) out->clear();
  return ok;
}

}  // namespace ebb::protocol
