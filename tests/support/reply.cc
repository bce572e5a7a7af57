#include "tests/support/reply.h"

#include <cstdio>

namespace ebb::test {
namespace {

std::shared_ptr<redisReply> Own(void* reply) {
  return std::shared_ptr<redisReply>(static_cast<redisReply*>(reply),
                                     [](redisReply* r) { freeReplyObject(r); });
}

}  // namespace

Reply ReplyFromHiredis(redisContext* c, void* raw) {
  if (raw == nullptr) {
    return Reply(nullptr, nullptr, c && c->err ? c->errstr : "no reply");
  }
  auto root = Own(raw);
  redisReply* node = root.get();
  return Reply(std::move(root), node);
}

std::string Reply::str() const {
  if (node_ == nullptr || node_->str == nullptr) return {};
  return std::string(node_->str, node_->len);
}

std::vector<Reply> Reply::elements() const {
  std::vector<Reply> out;
  if (!is_array()) return out;
  for (size_t i = 0; i < node_->elements; ++i) out.emplace_back(root_, node_->element[i]);
  return out;
}

Reply Reply::operator[](size_t i) const {
  if (!is_array() || i >= node_->elements) return Reply(nullptr, nullptr, "index out of range");
  return Reply(root_, node_->element[i]);
}

std::string Reply::ToString() const { return ToString(0); }

std::string Reply::ToString(int indent) const {
  if (node_ == nullptr) return "(io error) " + io_error_;
  switch (node_->type) {
    case REDIS_REPLY_STATUS:
      return str();
    case REDIS_REPLY_ERROR:
      return "(error) " + str();
    case REDIS_REPLY_INTEGER:
      return "(integer) " + std::to_string(node_->integer);
    case REDIS_REPLY_NIL:
      return "(nil)";
    case REDIS_REPLY_STRING: {
      std::string out = "\"";
      for (char ch : str()) {
        unsigned char u = static_cast<unsigned char>(ch);
        if (ch == '"' || ch == '\\') {
          out += '\\';
          out += ch;
        } else if (u < 0x20 || u >= 0x7f) {
          char buf[8];
          snprintf(buf, sizeof(buf), "\\x%02x", u);
          out += buf;
        } else {
          out += ch;
        }
      }
      return out + "\"";
    }
    case REDIS_REPLY_ARRAY: {
      if (node_->elements == 0) return "(empty array)";
      std::string out;
      for (size_t i = 0; i < node_->elements; ++i) {
        if (i > 0) out += "\n" + std::string(indent, ' ');
        std::string prefix = std::to_string(i + 1) + ") ";
        out += prefix;
        out += Reply(root_, node_->element[i]).ToString(indent + static_cast<int>(prefix.size()));
      }
      return out;
    }
    default:
      return "(unknown reply type " + std::to_string(node_->type) + ")";
  }
}

Reply ParseResp(std::string_view bytes) {
  redisReader* reader = redisReaderCreate();
  void* raw = nullptr;
  bool ok = redisReaderFeed(reader, bytes.data(), bytes.size()) == REDIS_OK &&
            redisReaderGetReply(reader, &raw) == REDIS_OK && raw != nullptr;
  if (ok) {
    void* extra = nullptr;  // the bytes must hold exactly one reply
    ok = redisReaderGetReply(reader, &extra) == REDIS_OK && extra == nullptr &&
         reader->pos == reader->len;
    if (extra != nullptr) freeReplyObject(extra);
  }
  redisReaderFree(reader);
  if (!ok) {
    if (raw != nullptr) freeReplyObject(raw);
    return Reply(nullptr, nullptr, "not one RESP reply: " + std::string(bytes));
  }
  return ReplyFromHiredis(nullptr, raw);
}

std::vector<Reply> ParseAll(std::string_view bytes) {
  std::vector<Reply> out;
  redisReader* reader = redisReaderCreate();
  bool ok = redisReaderFeed(reader, bytes.data(), bytes.size()) == REDIS_OK;
  while (ok) {
    void* raw = nullptr;
    ok = redisReaderGetReply(reader, &raw) == REDIS_OK;
    if (!ok || raw == nullptr) break;
    out.push_back(ReplyFromHiredis(nullptr, raw));
  }
  if (!ok || reader->pos != reader->len) {
    out.push_back(Reply(nullptr, nullptr, "not whole RESP replies: " + std::string(bytes)));
  }
  redisReaderFree(reader);
  return out;
}

long long InfoField(std::string_view info, std::string_view field) {
  const std::string needle = "\r\n" + std::string(field) + ":";
  size_t at = info.find(needle);
  if (at == std::string_view::npos) return -1;
  at += needle.size();
  return std::stoll(std::string(info.substr(at, info.find("\r\n", at) - at)));
}

std::string Canon(const Reply& r) {
  if (r.is_io_error()) return "<io error>";
  if (r.is_status()) return "+" + r.str();
  if (r.is_error()) return "-" + r.str();
  if (r.is_integer()) return ":" + std::to_string(r.integer());
  if (r.is_string()) return "$" + r.str();
  if (r.is_nil()) return "nil";
  std::string out = "[";
  for (const Reply& e : r.elements()) out += (out.size() > 1 ? "," : "") + Canon(e);
  return out + "]";
}

}  // namespace ebb::test
