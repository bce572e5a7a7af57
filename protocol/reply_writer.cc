#include "protocol/reply_writer.h"

#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>

namespace ebb::protocol {

namespace {

// Appends the bytes [begin, end) of a local buffer. (By pointer and length: std::string's
// append of an iterator pair goes through its general replace, which checks for aliasing.)
void AppendLocal(std::string* out, const char* begin, const char* end) {
  out->append(begin, static_cast<size_t>(end - begin));
}

void AppendUnsigned(std::string* out, uint64_t v) {
  char buf[24];
  auto result = std::to_chars(buf, buf + sizeof(buf), v);
  AppendLocal(out, buf, result.ptr);
}

void AppendSigned(std::string* out, int64_t v) {
  char buf[24];
  auto result = std::to_chars(buf, buf + sizeof(buf), v);
  AppendLocal(out, buf, result.ptr);
}

// "<type><v>\r\n", laid out in a local buffer and appended once: headers and integers are in
// every reply, and each std::string append pays its own capacity check.
template <typename Int>
void AppendTypedNumber(std::string* out, char type, Int v) {
  char buf[24];
  buf[0] = type;
  char* end = std::to_chars(buf + 1, buf + sizeof(buf) - 2, v).ptr;
  *end++ = '\r';
  *end++ = '\n';
  AppendLocal(out, buf, end);
}

// Redis 7.2's d2string: "nan", "inf", "-inf", "0"/"-0", integral values with |v| < 2^52 as
// integers, everything else in the shortest form that reads back to the same double.
std::string FormatDouble(double d) {
  if (std::isnan(d)) return "nan";
  if (std::isinf(d)) return d > 0 ? "inf" : "-inf";
  if (d == 0) return std::signbit(d) ? "-0" : "0";
  std::string out;
  if (d > -4503599627370495.0 && d < 4503599627370496.0 &&
      d == static_cast<double>(static_cast<int64_t>(d))) {
    AppendSigned(&out, static_cast<int64_t>(d));
    return out;
  }
  // The shortest digits that read back to d, laid out as printf's %g lays them out (Redis's
  // fpconv_dtoa does the same): scientific when the exponent is < -4 or >= 17, else fixed.
  char buf[64];
  auto sci = std::to_chars(buf, buf + sizeof(buf), d, std::chars_format::scientific);
  std::string_view text(buf, sci.ptr - buf);
  // The exponent follows 'e' to the end of `text`, which is not NUL-terminated.
  int exponent = 0;
  const size_t e = text.find('e');
  const char* exp_begin = text.data() + e + 1;
  if (*exp_begin == '+') ++exp_begin;
  std::from_chars(exp_begin, text.data() + text.size(), exponent);
  if (exponent < -4 || exponent >= 17) return std::string(text);
  auto fixed = std::to_chars(buf, buf + sizeof(buf), d, std::chars_format::fixed);
  out.assign(buf, fixed.ptr);
  return out;
}

// Bulk strings shorter than this are laid out whole in a local buffer of kShortBulkBytes.
constexpr size_t kShortBulk = 100;
constexpr size_t kShortBulkBytes = kShortBulk + 7;  // "$99\r\n" and "\r\n" around the value

// Lays out "$<len>\r\n<s>\r\n" at `p` and returns its end. REQUIRES: s.size() < kShortBulk,
// kShortBulkBytes writable at p.
char* LayOutShortBulk(char* p, std::string_view s) {
  *p++ = '$';
  if (s.size() >= 10) *p++ = static_cast<char>('0' + s.size() / 10);
  *p++ = static_cast<char>('0' + s.size() % 10);
  *p++ = '\r';
  *p++ = '\n';
  if (!s.empty()) std::memcpy(p, s.data(), s.size());
  p += s.size();
  *p++ = '\r';
  *p++ = '\n';
  return p;
}

}  // namespace

void ReplyWriter::Header(char type, uint64_t n) { AppendTypedNumber(out_, type, n); }

void ReplyWriter::Line(char type, std::string_view s) {
  out_->push_back(type);
  size_t start = out_->size();
  out_->append(s);
  // A line break would end the line early: each becomes a space. Two memchr scans find none in
  // nearly every line, cheaper than a look at each byte (every GET of a key on disk writes one
  // error line, withdrawn, in its first run).
  if (s.find('\r') != std::string_view::npos || s.find('\n') != std::string_view::npos) {
    for (size_t i = start; i < out_->size(); ++i) {
      if ((*out_)[i] == '\r' || (*out_)[i] == '\n') (*out_)[i] = ' ';
    }
  }
  out_->append("\r\n", 2);
}

void ReplyWriter::Ok() { out_->append("+OK\r\n", 5); }

void ReplyWriter::SimpleString(std::string_view s) { Line('+', s); }

void ReplyWriter::Error(std::string_view text) {
  if (!text.empty() && text[0] == '-') text.remove_prefix(1);
  Line('-', text);
}

void ReplyWriter::Integer(int64_t v) { AppendTypedNumber(out_, ':', v); }

void ReplyWriter::Unsigned(uint64_t v) {
  if (v <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
    Integer(static_cast<int64_t>(v));
    return;
  }
  std::string digits;
  AppendUnsigned(&digits, v);
  BigNumber(digits);
}

void ReplyWriter::PushHeader(size_t n) { Header(protocol_ >= 3 ? '>' : '*', n); }

void ReplyWriter::Bulk(std::string_view s) {
  // A value of under 100 bytes (most replies): header, value and line end laid out in a local
  // buffer and appended once (each std::string append pays its own capacity check and copy).
  if (s.size() < kShortBulk) {
    char buf[kShortBulkBytes];
    AppendLocal(out_, buf, LayOutShortBulk(buf, s));
    return;
  }
  Header('$', s.size());
  out_->append(s);
  out_->append("\r\n", 2);
}

void ReplyWriter::BulkAndUnsigned(std::string_view s, uint64_t v) {
  if (s.size() >= kShortBulk || v > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
    ArrayHeader(2);
    Bulk(s);
    return Unsigned(v);
  }
  char buf[4 + kShortBulkBytes + 24];
  std::memcpy(buf, "*2\r\n", 4);
  char* p = LayOutShortBulk(buf + 4, s);
  *p++ = ':';
  p = std::to_chars(p, p + 20, v).ptr;
  *p++ = '\r';
  *p++ = '\n';
  AppendLocal(out_, buf, p);
}

void ReplyWriter::Null() {
  if (protocol_ >= 3) {
    out_->append("_\r\n", 3);
  } else {
    out_->append("$-1\r\n", 5);
  }
}

void ReplyWriter::NullArray() {
  if (protocol_ >= 3) {
    out_->append("_\r\n", 3);
  } else {
    out_->append("*-1\r\n", 5);
  }
}

void ReplyWriter::ArrayHeader(size_t n) { Header('*', n); }

void ReplyWriter::MapHeader(size_t pairs) {
  if (protocol_ >= 3) {
    Header('%', pairs);
  } else {
    Header('*', static_cast<uint64_t>(pairs) * 2);
  }
}

void ReplyWriter::SetHeader(size_t n) { Header(protocol_ >= 3 ? '~' : '*', n); }

void ReplyWriter::AttributeHeader(size_t pairs) { Header('|', pairs); }

void ReplyWriter::Double(double d) {
  std::string text = FormatDouble(d);
  if (protocol_ >= 3) {
    Line(',', text);
  } else {
    Bulk(text);
  }
}

void ReplyWriter::Bool(bool b) {
  if (protocol_ >= 3) {
    out_->append(b ? "#t\r\n" : "#f\r\n", 4);
  } else {
    out_->append(b ? ":1\r\n" : ":0\r\n", 4);
  }
}

void ReplyWriter::Verbatim(std::string_view format3, std::string_view text) {
  if (protocol_ < 3) {
    Bulk(text);
    return;
  }
  Header('=', text.size() + 4);
  out_->append(format3.substr(0, 3));
  out_->push_back(':');
  out_->append(text);
  out_->append("\r\n", 2);
}

void ReplyWriter::BigNumber(std::string_view digits) {
  if (protocol_ >= 3) {
    Line('(', digits);
  } else {
    Bulk(digits);
  }
}

}  // namespace ebb::protocol
