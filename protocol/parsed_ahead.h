#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "protocol/request_parser.h"

namespace ebb::protocol {

// Whole multibulk requests parsed ahead of the one a connection is running, kept so that each
// request is parsed once: the connection parses a window of its queued requests to name their
// keys to the engine (server/net/connection.h, "Hints"), then runs each from here rather than
// parsing it again.
//
// An entry names a request by its place in the input ([begin, end)) and views its arguments
// there, so it holds only while the bytes before the input's end stay as they were: Take checks
// that it is given the same buffer (the same address, a size at least the parsed end) under the
// same limits, and the owner calls Clear whenever it consumes input (erases its front). Inline
// requests are looked at but not kept: their quoted arguments live in the parser.
//
//   ahead.Fill(input, from, 16, limits, [&](std::span<const std::string_view> args) { ... });
//   ...
//   ParsedAhead::Taken taken;
//   if (ahead.Take(input, offset, limits, &taken)) { /* run taken.args */ }
class ParsedAhead {
 public:
  ParsedAhead() = default;
  ParsedAhead(const ParsedAhead&) = delete;
  ParsedAhead& operator=(const ParsedAhead&) = delete;

  // Forgets every entry and parses the complete requests of `input` from offset `from` on, at
  // most `max_requests` of them, stopping at the first incomplete or malformed one (the running
  // parse reports it when it gets there). Calls on_request(args) for each multibulk request and
  // keeps it: the n-th call's request is entry n (Taken::index). Returns the offset up to which
  // requests were parsed.
  template <typename OnRequest>
  size_t Fill(std::string_view input, size_t from, size_t max_requests, const ParserLimits& limits,
              OnRequest&& on_request) {
    Clear();
    base_ = input.data();
    limits_ = limits;
    size_t at = from;
    for (size_t n = 0; n < max_requests && at < input.size(); ++n) {
      const size_t first = args_.size();
      size_t consumed = 0;
      if (parser_.ParseAppending(input.substr(at), limits, &consumed, &args_) !=
          ParseStatus::kComplete) {
        break;
      }
      if (input[at] != '*' || args_.size() == first) {
        args_.resize(first);  // an inline request's quoted arguments live in the parser
      } else {
        entries_.push_back({at, at + consumed, static_cast<uint32_t>(first),
                            static_cast<uint32_t>(args_.size() - first)});
        on_request(std::span<const std::string_view>(args_).subspan(first));
      }
      at += consumed;
    }
    parser_.Reset();
    return at;
  }

  struct Taken {
    std::span<const std::string_view> args;  // valid until the next Fill or Clear
    size_t consumed = 0;                     // the request's length
    size_t index = 0;                        // its entry's number in the last Fill
  };
  // The request kept at `offset` of `input` parsed under `limits`. False when none is kept
  // there, or the input or limits are not those it was parsed from.
  bool Take(std::string_view input, size_t offset, const ParserLimits& limits, Taken* taken) {
    if (next_ == entries_.size()) return false;  // the usual answer outside a window
    return TakeNext(input, offset, limits, taken);
  }

  void Clear();

  // Bytes held for the entries and their arguments (the largest window so far).
  size_t MemoryUsage() const;
  // Frees that memory (a connection gone idle); the entries are forgotten.
  void ReleaseMemory();

 private:
  struct Entry {
    size_t begin;
    size_t end;
    uint32_t first;  // into args_
    uint32_t count;
  };

  bool TakeNext(std::string_view input, size_t offset, const ParserLimits& limits, Taken* taken);

  RequestParser parser_;
  std::vector<Entry> entries_;
  size_t next_ = 0;  // entries_ before it were taken or passed
  std::vector<std::string_view> args_;
  const char* base_ = nullptr;
  ParserLimits limits_;
};

}  // namespace ebb::protocol
