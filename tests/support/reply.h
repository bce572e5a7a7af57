// Replies as tests see them: hiredis's parsed replies (from a spawned server or from the bytes of
// the in-process runner), printed the way redis-cli prints them (ToString) or on one line
// (Canon: "+OK", "-ERR ...", ":1", "$bulk", "nil", "[a,b]").
// Thread-safety: values; one test thread.
#pragma once

#include <hiredis/hiredis.h>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace ebb::test {

struct RedisContextDeleter {
  void operator()(redisContext* c) const { redisFree(c); }
};
using RedisConnection = std::unique_ptr<redisContext, RedisContextDeleter>;

// One reply (or a sub-reply of an array). Cheap to copy: copies share the parsed tree.
// A failed request (I/O error, connection closed) is a Reply with is_io_error() true.
class Reply {
 public:
  Reply() = default;
  Reply(std::shared_ptr<redisReply> root, redisReply* node, std::string io_error = {})
      : root_(std::move(root)), node_(node), io_error_(std::move(io_error)) {}

  bool is_io_error() const { return node_ == nullptr; }
  bool is_error() const { return node_ && node_->type == REDIS_REPLY_ERROR; }
  bool is_status() const { return node_ && node_->type == REDIS_REPLY_STATUS; }
  bool is_string() const { return node_ && node_->type == REDIS_REPLY_STRING; }
  bool is_integer() const { return node_ && node_->type == REDIS_REPLY_INTEGER; }
  bool is_array() const { return node_ && node_->type == REDIS_REPLY_ARRAY; }
  bool is_nil() const { return node_ && node_->type == REDIS_REPLY_NIL; }
  // The text of a status, error or bulk string reply ("" otherwise).
  std::string str() const;
  long long integer() const { return node_ ? node_->integer : 0; }
  std::vector<Reply> elements() const;
  size_t size() const { return is_array() ? node_->elements : 0; }
  Reply operator[](size_t i) const;
  // redis-cli style: "OK", "(integer) 5", "\"bulk\"", "(nil)", "(error) ERR ...", arrays as
  // "1) ...\n2) ...", "(empty array)".
  std::string ToString() const;

 private:
  std::string ToString(int indent) const;

  std::shared_ptr<redisReply> root_;
  redisReply* node_ = nullptr;
  std::string io_error_;
};

// The reply hiredis read for `c` (nullptr: the I/O error of `c`, or "no reply").
Reply ReplyFromHiredis(redisContext* c, void* raw);

// Parses complete RESP2 bytes (exactly one reply) into a Reply; an I/O-error Reply if they are
// not exactly one well-formed reply.
Reply ParseResp(std::string_view bytes);

// Parses complete RESP2 bytes holding any number of replies (pushed Pub/Sub messages); an
// I/O-error Reply last if the bytes end inside a reply or do not parse.
std::vector<Reply> ParseAll(std::string_view bytes);

// The integer value of `field` in INFO's text, or -1 if absent.
long long InfoField(std::string_view info, std::string_view field);

// A reply on one line: +status, -error, :integer, $bulk, nil, [a,b,...].
std::string Canon(const Reply& reply);

}  // namespace ebb::test
