#include "server/active_active/peer_delta.h"

#include "storage/util/coding.h"

namespace ebb::server {

std::string EncodePeerDelta(const PeerDelta& delta) {
  std::string out;
  storage::PutFixed64(&out, delta.offset);
  storage::PutFixed64(&out, static_cast<uint64_t>(delta.origin_ms));
  storage::PutFixed32(&out, static_cast<uint32_t>(delta.db));
  storage::PutFixed32(&out, static_cast<uint32_t>(delta.args.size()));
  for (const std::string& arg : delta.args) storage::PutLengthPrefixed(&out, arg);
  return out;
}

bool DecodePeerDelta(std::string_view encoded, PeerDelta* delta) {
  uint64_t offset = 0;
  uint64_t origin_ms = 0;
  uint32_t db = 0;
  uint32_t argc = 0;
  if (!storage::GetFixed64(&encoded, &offset) || !storage::GetFixed64(&encoded, &origin_ms) ||
      !storage::GetFixed32(&encoded, &db) || !storage::GetFixed32(&encoded, &argc)) {
    return false;
  }
  delta->offset = offset;
  delta->origin_ms = static_cast<int64_t>(origin_ms);
  delta->db = static_cast<int>(db);
  delta->args.clear();
  for (uint32_t i = 0; i < argc; i++) {
    std::string_view arg;
    if (!storage::GetLengthPrefixed(&encoded, &arg)) return false;
    delta->args.emplace_back(arg);
  }
  return encoded.empty() && argc > 0;
}

void AppendRespBulk(std::string* out, std::string_view s) {
  *out += '$';
  *out += std::to_string(s.size());
  *out += "\r\n";
  *out += s;
  *out += "\r\n";
}

void AppendDeltaResp(std::string* out, const PeerDelta& delta) {
  *out += '*';
  *out += std::to_string(4 + delta.args.size());
  *out += "\r\n";
  AppendRespBulk(out, "delta");
  AppendRespBulk(out, std::to_string(delta.offset));
  AppendRespBulk(out, std::to_string(delta.origin_ms));
  AppendRespBulk(out, std::to_string(delta.db));
  for (const std::string& arg : delta.args) AppendRespBulk(out, arg);
}

void AppendTickResp(std::string* out, int64_t now_ms, uint64_t end_offset, uint64_t end_bytes) {
  *out += "*4\r\n";
  AppendRespBulk(out, "tick");
  AppendRespBulk(out, std::to_string(now_ms));
  AppendRespBulk(out, std::to_string(end_offset));
  AppendRespBulk(out, std::to_string(end_bytes));
}

}  // namespace ebb::server
