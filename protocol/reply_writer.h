// ReplyWriter: appends RESP replies to a connection's output buffer, in RESP2 or RESP3.
//
// The connection owns the std::string; the writer only appends to it. Each method appends one
// complete reply element (or an aggregate header: the caller then writes exactly that many
// elements). In RESP2 the RESP3-only types degrade exactly as Redis 7 degrades them
// (networking.c addReplyDouble, addReplyMapLen, addReplySetLen, addReplyNull, addReplyBool,
// addReplyVerbatim, addReplyBigNum):
//   Null        RESP2 "$-1"            RESP3 "_"
//   NullArray   RESP2 "*-1"            RESP3 "_"
//   MapHeader   RESP2 "*<2n>"          RESP3 "%<n>"
//   SetHeader   RESP2 "*<n>"           RESP3 "~<n>"
//   Double      RESP2 bulk "<d>"       RESP3 ",<d>"   (inf, -inf, nan as Redis spells them)
//   Bool        RESP2 ":1" / ":0"      RESP3 "#t" / "#f"
//   Verbatim    RESP2 bulk "<text>"    RESP3 "=<len>\r\n<fmt>:<text>"
//   BigNumber   RESP2 bulk "<digits>"  RESP3 "(<digits>"
// Double formatting follows Redis 7.2's d2string: integral values below 2^52 in magnitude print
// as integers ("3", "-0"), others as the shortest digits that read back to the same double, in
// %g layout (scientific when the exponent is < -4 or >= 17: "0.0001", "1e-05", "1e+17").
//
// Thread-safety: none; one writer per connection, used by the connection's thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace ebb::protocol {

class ReplyWriter {
 public:
  // REQUIRES: out outlives the writer; protocol_version is 2 or 3.
  explicit ReplyWriter(std::string* out, int protocol_version = 2)
      : out_(out), protocol_(protocol_version) {}

  // REQUIRES: v is 2 or 3.
  void set_protocol(int v) { protocol_ = v; }
  int protocol() const { return protocol_; }

  void Ok();                              // "+OK"
  void SimpleString(std::string_view s);  // "+<s>"; '\r' and '\n' become spaces
  // text is the whole error including its code: "ERR ...", "WRONGTYPE ...". A leading '-' is not
  // doubled. '\r' and '\n' become spaces (as Redis does), so the reply is always one line.
  void Error(std::string_view text);
  void Integer(int64_t v);  // ":<v>"
  // <= INT64_MAX: an integer; above: RESP3 big number, RESP2 bulk string (as Redis).
  void Unsigned(uint64_t v);
  void Bulk(std::string_view s);  // "$<len>\r\n<s>"
  void Null();
  void NullArray();
  void ArrayHeader(size_t n);  // "*<n>"
  // A two-element array of Bulk(s) and Unsigned(v) (TREG GET's reply), laid out in one piece
  // when it is short.
  void BulkAndUnsigned(std::string_view s, uint64_t v);
  void PushHeader(size_t n);  // RESP3 "><n>" (an out-of-band push), RESP2 "*<n>"
  void MapHeader(size_t pairs);
  void SetHeader(size_t n);
  // RESP3 "|<pairs>": attributes about the reply that follows. REQUIRES: protocol() is 3 (RESP2
  // has no attributes: leave them out).
  void AttributeHeader(size_t pairs);
  void Double(double d);
  void Bool(bool b);
  // REQUIRES: format3 is 3 bytes ("txt", "mkd").
  void Verbatim(std::string_view format3, std::string_view text);
  // REQUIRES: digits is an optional '-' and decimal digits.
  void BigNumber(std::string_view digits);

  // Appends replies already encoded for this protocol (EXEC's, built aside).
  void Raw(std::string_view encoded) { out_->append(encoded); }

  // Bytes in the output buffer (all of it, not just what this writer appended).
  size_t size() const { return out_->size(); }
  // Drops every byte after the first n: replies written since size() was n are withdrawn (a
  // command that will run again). REQUIRES: n <= size().
  void Truncate(size_t n) { out_->resize(n); }
  // The bytes appended since size() was n. REQUIRES: n <= size().
  std::string_view Since(size_t n) const { return {out_->data() + n, out_->size() - n}; }

 private:
  void Header(char type, uint64_t n);        // "<type><n>\r\n"
  void Line(char type, std::string_view s);  // "<type><s>\r\n" with CR/LF made spaces

  std::string* out_;
  int protocol_;
};

}  // namespace ebb::protocol
