// RequestParser: an incremental parser for Redis client requests (RESP multibulk and inline).
//
// A connection keeps its unconsumed input bytes in one buffer and calls Parse() with them each
// time more bytes arrive. The parser recognises at most one request per call and reports an
// explicit outcome (complete / need more bytes / which error) plus how many bytes it consumed, so
// "need more" and "error" can never be confused.
//
// Rules follow Redis 7 (networking.c processMultibulkBuffer / processInlineBuffer, sds.c
// sdssplitargs), including its limits and its exact error texts:
//   - A request starting with '*' is multibulk: `*<n>\r\n` then n times `$<len>\r\n<bytes>\r\n`.
//     n <= 0 is an empty request (consumed, zero args). Numbers follow Redis's string2ll (optional
//     '-', no '+', no leading zeros). Like Redis, a line ends at the first '\r' and the byte after
//     it is skipped unchecked, and the two bytes after a bulk's payload are skipped unchecked.
//   - Anything else is an inline line ending at '\n' (an optional '\r' before it is dropped),
//     split like sdssplitargs (spaces; "double quotes" with \n \r \t \b \a \\ \" \xHH escapes;
//     'single quotes' with only \' ; a closing quote must be followed by a space or the end).
//     Like Redis, a NUL byte inside the line ends the splitting (the rest is ignored); unlike
//     Redis the search for '\n' is binary safe.
//
// Arguments are views into the caller's `input` (no copies), except inline arguments that were
// quoted, which live in parser-owned storage. Either way they stay valid until the next Parse()
// call or until the caller drops the consumed bytes.
//
// Resumable: on kNeedMore the parser remembers how far it got (offsets, never pointers), so a
// large bulk arriving in many reads is not rescanned from the start each time.
// REQUIRES across calls: after kNeedMore the next call's `input` starts with the same bytes as
// the previous call's (the caller only appends). After kComplete or kError the parser starts
// afresh. Reset() discards any partial state (e.g. when the caller reuses the parser).
//
// Thread-safety: none; one parser per connection.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ebb::protocol {

struct ParserLimits {
  size_t max_bulk_len = 512ull << 20;      // proto-max-bulk-len
  size_t max_inline_len = 64 << 10;        // Redis PROTO_INLINE_MAX_SIZE (also caps count lines)
  size_t max_multibulk_len = 1024 * 1024;  // number of arguments in one multibulk request
  // True for a client that must still authenticate: exceeding the limits above is then reported
  // with Redis's "unauthenticated ..." texts.
  bool unauthenticated = false;

  bool operator==(const ParserLimits&) const = default;

  // Redis's tighter limits for a client that has not authenticated while a password is set:
  // at most 10 arguments, each at most 16384 bytes.
  static ParserLimits Unauthenticated();
};

enum class ParseStatus { kComplete, kNeedMore, kError };

// One entry per distinct reply text (ErrorText()).
enum class ParseError {
  kNone,
  kInvalidMultibulkLength,          // "invalid multibulk length"
  kInvalidBulkLength,               // "invalid bulk length"
  kExpectedDollar,                  // "expected '$', got 'x'"
  kTooBigInline,                    // "too big inline request"
  kUnbalancedQuotes,                // "unbalanced quotes in request"
  kTooBigMultibulkCount,            // "too big mbulk count string"
  kTooBigBulkCount,                 // "too big bulk count string"
  kUnauthenticatedMultibulkLength,  // "unauthenticated multibulk length"
  kUnauthenticatedBulkLength,       // "unauthenticated bulk length"
};

class RequestParser {
 public:
  RequestParser() = default;
  RequestParser(const RequestParser&) = delete;
  RequestParser& operator=(const RequestParser&) = delete;

  // Parses at most one request from the front of `input`.
  // kComplete: *consumed = bytes of that request (> 0); args() views its arguments. An empty
  //   inline line or a multibulk count <= 0 yields kComplete with zero args (the caller skips it).
  // kNeedMore: *consumed = 0; call again with the same bytes plus more.
  // kError: *consumed = 0; error()/ErrorText() say which; the caller replies and closes.
  // REQUIRES: consumed != nullptr.
  ParseStatus Parse(std::string_view input, const ParserLimits& limits, size_t* consumed);

  // As Parse, for a caller that keeps several requests' arguments in one array: a kComplete
  // request's arguments are appended to *out (what it held stays), and args() is not to be read.
  // On any other status *out is as it was.
  ParseStatus ParseAppending(std::string_view input, const ParserLimits& limits, size_t* consumed,
                             std::vector<std::string_view>* out);

  // The arguments of the last kComplete request (empty otherwise).
  std::span<const std::string_view> args() const { return args_; }

  // The last kError's cause, or kNone.
  ParseError error() const { return error_; }

  // Redis's exact reply text for error(), e.g. "ERR Protocol error: invalid bulk length".
  // REQUIRES: error() != kNone.
  std::string ErrorText() const;

  // Forgets any partially parsed request.
  void Reset();

  // Bytes the parser holds for arguments (the capacity of its argument arrays and decoded
  // inline arguments), which the largest request so far has set.
  size_t MemoryUsage() const;
  // Frees that memory if no request is in progress (a connection gone idle); otherwise a no-op.
  void ReleaseMemory();

 private:
  enum class Source : uint8_t { kInput, kOwned };
  struct ArgRef {
    Source source;
    size_t offset;
    size_t len;
  };

  // Parse after ParseWholeMultibulk declined the request (or was not for it): a request in
  // progress, a partial or malformed one, an inline one. args_ holds its arguments when complete.
  ParseStatus ParseGeneral(std::string_view input, const ParserLimits& limits, size_t* consumed);
  // The general multibulk path, field by field, resumable (Parse tries ParseWholeMultibulk first).
  ParseStatus ParseMultibulk(std::string_view input, const ParserLimits& limits, size_t* consumed);
  // A whole, well-formed multibulk request with a positive count, in one pass: true with its
  // arguments appended to *out and *consumed set; false (nothing decided, *out as it was) sends
  // it to the general path.
  bool ParseWholeMultibulk(std::string_view input, const ParserLimits& limits, size_t* consumed,
                           std::vector<std::string_view>* out);
  ParseStatus ParseInline(std::string_view input, const ParserLimits& limits, size_t* consumed);
  // Splits line [begin, end) of input like sdssplitargs into arg_refs_; false on bad quotes.
  bool SplitInline(std::string_view input, size_t begin, size_t end);
  ParseStatus Complete(std::string_view input, size_t request_len, size_t* consumed);
  ParseStatus Fail(ParseError error, size_t* consumed);

  // Resumable state of a multibulk request in progress (offsets from the input's start).
  bool in_multibulk_ = false;
  size_t pos_ = 0;         // first byte not yet parsed
  int64_t remaining_ = 0;  // bulks still to read
  int64_t bulk_len_ = -1;  // length of the bulk being read, -1 = its header is not read yet

  std::vector<ArgRef> arg_refs_;
  std::string owned_;  // decoded quoted inline arguments
  std::vector<std::string_view> args_;
  ParseError error_ = ParseError::kNone;
  char bad_char_ = 0;  // the byte found instead of '$'
};

}  // namespace ebb::protocol
