// SplitArgs: splits a line into arguments exactly like Redis's sdssplitargs (sds.c), used for
// inline requests and for config file lines.
//
//   - arguments are separated by whitespace (C isspace);
//   - "double quotes" allow \n \r \t \b \a, \xHH (two hex digits) and \<any> (that byte);
//   - 'single quotes' allow only \' ;
//   - a quote may open in the middle of an argument (a"b c" -> ab c);
//   - a closing quote must be followed by whitespace or the end, else the line is invalid;
//   - an unterminated quote makes the line invalid;
//   - like the C original, a NUL byte ends the line.
// Pure functions; thread-safe.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace ebb::protocol {

// One argument. An unquoted argument is always the bytes line.substr(start, value.size()).
struct SplitToken {
  size_t start;            // offset of the argument's first byte in the line
  bool quoted;             // true if any part was quoted (value is decoded, not a line slice)
  std::string_view value;  // valid only during the callback
};

// Calls emit for each argument in order. Returns false (after emitting the arguments before it)
// if the line has unbalanced quotes.
bool SplitArgs(std::string_view line, const std::function<void(const SplitToken&)>& emit);

// Convenience form. On false *out is cleared.
bool SplitArgs(std::string_view line, std::vector<std::string>* out);

}  // namespace ebb::protocol
