#include "tests/support/active_active_support.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <string_view>
#include <thread>

#include "server/active_active/collect.h"
#include "storage/db.h"
#include "types/keyspace.h"

namespace ebb::test {

std::string DeltaFrame(uint64_t offset, int db, std::vector<std::string> args) {
  server::PeerDelta delta;
  delta.offset = offset;
  delta.origin_ms = 1;
  delta.db = db;
  delta.args = std::move(args);
  std::string frame;
  server::AppendDeltaFrame(&frame, server::EncodePeerDelta(delta));
  return frame;
}

std::optional<server::PeerDelta> StreamedDelta(const Reply& message) {
  if (!message.is_array() || message.size() != 2 || message[0].str() != "delta") {
    return std::nullopt;
  }
  server::PeerDelta delta;
  if (!server::DecodePeerDelta(message[1].str(), &delta)) return std::nullopt;
  return delta;
}

std::string LogicalDigest(redisContext* c) { return DigestReply(c, {"DEBUG", "DIGEST-LOGICAL"}); }

std::vector<std::string> PeerArgs(const std::vector<const TestServer*>& others) {
  std::vector<std::string> args;
  for (const TestServer* other : others) {
    args.insert(args.end(), {"--peer", "127.0.0.1", std::to_string(other->port())});
  }
  return args;
}

std::string WaitConverged(const std::vector<redisContext*>& nodes,
                          std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  std::string seen;
  for (;;) {
    std::vector<std::string> digests;
    for (redisContext* c : nodes) digests.push_back(LogicalDigest(c));
    bool equal = true;
    seen.clear();
    for (const std::string& d : digests) {
      equal = equal && d == digests.front();
      seen += d + " ";
    }
    if (equal) return "";
    if (std::chrono::steady_clock::now() > deadline) return seen;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

namespace {

std::set<std::string> KeysOf(redisContext* c) {
  std::set<std::string> keys;
  std::string cursor = "0";
  for (int pages = 0; pages < 10000; pages++) {
    const Reply r = Cmd(c, {"SCAN", cursor, "COUNT", "1000"});
    if (!r.is_array() || r.size() != 2) break;
    for (size_t i = 0; i < r[1].size(); i++) keys.insert(r[1][i].str());
    cursor = r[0].str();
    if (cursor == "0") break;
  }
  return keys;
}

// What a read of `key` shows on `c`, in one line.
std::string ReadableKey(redisContext* c, const std::string& key) {
  const std::string type = Cmd(c, {"TYPE", key}).str();
  std::string text = type + " pttl=" + Cmd(c, {"PTTL", key}).ToString();
  if (type == "string") text += " " + Cmd(c, {"GET", key}).ToString();
  if (type == "treg") text += " " + Cmd(c, {"TREG", "GET", key}).ToString();
  if (type == "tlog") {
    text += " cutoff=" + Cmd(c, {"TLOG", "CUTOFF", key}).ToString() + " " +
            Cmd(c, {"TLOG", "GET", key}).ToString();
  }
  return text;
}

}  // namespace

std::string LogicalDifference(redisContext* a, redisContext* b) {
  std::set<std::string> keys = KeysOf(a);
  keys.merge(KeysOf(b));
  std::string out;
  for (const std::string& key : keys) {
    const std::string on_a = ReadableKey(a, key), on_b = ReadableKey(b, key);
    if (on_a != on_b) out += "  key '" + key + "': " + on_a + "\n    versus " + on_b + "\n";
  }
  return out;
}

bool SetPull(redisContext* node, const TestServer& peer, bool up) {
  return Cmd(node,
             {"DEBUG", "PEER-LINK", "127.0.0.1", std::to_string(peer.port()), up ? "UP" : "DOWN"})
             .str() == "OK";
}

void SetLink(redisContext* a, const TestServer& a_server, redisContext* b,
             const TestServer& b_server, bool up) {
  EXPECT_TRUE(SetPull(a, b_server, up));
  EXPECT_TRUE(SetPull(b, a_server, up));
}

RefusingPort::RefusingPort() { fd_ = BindFreeLoopbackPort(&port_); }

RefusingPort::~RefusingPort() {
  if (fd_ >= 0) close(fd_);
}

std::vector<std::string> RefusingPort::PeerArgs() const {
  return {"--peer", "127.0.0.1", std::to_string(port_)};
}

std::map<std::string, std::string> StoppedNodeSystemRows(const std::string& dir,
                                                         std::string_view prefix,
                                                         int64_t grace_ms) {
  std::map<std::string, std::string> rows;
  std::unique_ptr<storage::DB> db;
  const storage::Status s = storage::DB::Open(storage::Options(), dir, &db);
  EXPECT_TRUE(s.ok()) << s.ToString();
  if (!s.ok()) return rows;
  storage::ReadOptions options;
  options.retrieval_grace_ms = grace_ms;
  const std::string start = types::Keyspace::SystemRowKey(prefix);
  const size_t name_at = types::Keyspace::SystemRowKey("").size();
  auto it = db->NewIterator(options);
  for (it->Seek(start); it->Valid() && it->key().starts_with(start); it->Next()) {
    rows.emplace(std::string(it->key().substr(name_at)), std::string(it->value()));
  }
  EXPECT_TRUE(it->status().ok()) << it->status().ToString();
  return rows;
}

std::vector<LoggedDelta> ReadOriginLog(const TestServer& node, bool from_first) {
  std::vector<LoggedDelta> deltas;
  RedisConnection c = node.Connect();
  const std::string origin = Cmd(c.get(), {"PEER", "ID"}).str();
  EXPECT_EQ(origin.size(), 40u) << origin;
  const uint64_t first =
      from_first ? static_cast<uint64_t>(InfoField(c.get(), "peers", "origin_log_first")) : 1;
  // The reply is "CONTINUE <end offset> <byte position>"; a snapshot would mean the log no
  // longer starts at `first`.
  const std::string start =
      Cmd(c.get(), {"PEER", "SYNC", std::string(40, 'f'), std::to_string(first)}).str();
  EXPECT_EQ(start.rfind("CONTINUE ", 0), 0u) << start;
  if (start.rfind("CONTINUE ", 0) != 0) return deltas;
  const uint64_t end = std::stoull(start.substr(9));
  uint64_t offset = first - 1;
  while (offset < end) {
    void* raw = nullptr;
    const Reply r =
        ReplyFromHiredis(c.get(), redisGetReply(c.get(), &raw) == REDIS_OK ? raw : nullptr);
    if (r.is_array() && r.size() > 0 && r[0].str() == "tick") continue;
    std::optional<server::PeerDelta> streamed = StreamedDelta(r);
    if (!streamed) {
      ADD_FAILURE() << "after offset " << offset << " of " << end << ": " << r.ToString();
      return deltas;
    }
    const uint64_t next = streamed->offset;
    EXPECT_EQ(next, offset + 1) << "a gap in the origin log";
    offset = next;
    deltas.push_back(LoggedDelta{
        .origin = origin, .offset = next, .db = streamed->db, .args = std::move(streamed->args)});
  }
  return deltas;
}

std::vector<std::vector<std::string>> ReadSnapshotPieces(const TestServer& node) {
  std::vector<std::vector<std::string>> pieces;
  RedisConnection c = node.Connect();
  const std::string start = Cmd(c.get(), {"PEER", "SYNC", std::string(40, 'f'), "0"}).str();
  EXPECT_EQ(start.rfind("SNAPSHOT ", 0), 0u) << start;
  if (start.rfind("SNAPSHOT ", 0) != 0) return pieces;
  // Bounded: a snapshot of a test's data is far below this many pieces.
  for (int read = 0; read < 100'000; read++) {
    void* raw = nullptr;
    const Reply r =
        ReplyFromHiredis(c.get(), redisGetReply(c.get(), &raw) == REDIS_OK ? raw : nullptr);
    if (r.is_array() && r.size() > 0 && r[0].str() == "tick") continue;
    if (r.is_array() && r.size() > 0 && r[0].str() == "snapend") return pieces;
    if (!r.is_array() || r.size() < 3 || r[0].str() != "snap") {
      ADD_FAILURE() << "after " << pieces.size() << " pieces: " << r.ToString();
      return pieces;
    }
    std::vector<std::string> piece;
    for (size_t i = 1; i < r.size(); i++) piece.push_back(r[i].str());
    pieces.push_back(std::move(piece));
  }
  ADD_FAILURE() << "no snapend after " << pieces.size() << " pieces";
  return pieces;
}

void DeltaCollector::Collect(const TestServer& node) {
  for (LoggedDelta& delta : ReadOriginLog(node, /*from_first=*/true)) {
    uint64_t& last = collected_[delta.origin];
    if (delta.offset <= last) continue;
    last = delta.offset;
    deltas_.push_back(std::move(delta));
  }
}

void DeltaCollector::Rewound(const TestServer& node) {
  RedisConnection c = node.Connect();
  const std::string id = Cmd(c.get(), {"PEER", "ID"}).str();
  const long long end = InfoField(c.get(), "peers", "origin_offset");
  ASSERT_GE(end, 0) << Cmd(c.get(), {"INFO", "peers"}).str();
  auto it = collected_.find(id);
  if (it != collected_.end()) it->second = std::min(it->second, static_cast<uint64_t>(end));
}

void ApplyInOrder(redisContext* node, const std::vector<LoggedDelta>& deltas) {
  for (const LoggedDelta& delta : deltas) {
    // With its offset: a string write's dot is (origin, offset).
    std::vector<std::string> args = {"DEBUG",      "PEER-APPLY",
                                     delta.origin, std::to_string(delta.db),
                                     "OFFSET",     std::to_string(delta.offset)};
    args.insert(args.end(), delta.args.begin(), delta.args.end());
    const Reply r = Cmd(node, args);
    std::string what;
    for (size_t i = 6; i < args.size(); i++) what += " " + args[i];
    ASSERT_EQ(r.str(), "OK") << r.ToString() << " applying" << what;
  }
}

namespace {
// The C of `delta` when it is a collect (server/active_active/collect.h), else nullopt.
std::optional<types::OrContext> CollectOfDelta(const LoggedDelta& delta) {
  const std::optional<types::OriginId> origin = types::OriginId::FromHex(delta.origin);
  if (!origin || delta.args.empty() || delta.args[0] != server::kCollectDelta) return std::nullopt;
  std::optional<server::CollectOf> parsed = server::ParseCollect(delta.args, *origin);
  if (!parsed) return std::nullopt;
  return std::move(parsed->collect);
}
}  // namespace

std::vector<LoggedDelta> InterleaveOrigins(const std::vector<LoggedDelta>& deltas,
                                           std::mt19937_64& rng) {
  std::vector<std::string> origins;
  std::map<std::string, std::vector<const LoggedDelta*>> by_origin;
  for (const LoggedDelta& delta : deltas) {
    if (!by_origin.contains(delta.origin)) origins.push_back(delta.origin);
    by_origin[delta.origin].push_back(&delta);
  }
  std::map<std::string, size_t> taken;
  types::OrContext placed;  // per origin, the greatest offset placed
  // A collect may be placed once every delta its C covers is (what it promises on every node);
  // one whose C names deltas no origin here logged waits until nothing else can go.
  auto ready = [&](const LoggedDelta& delta) {
    const std::optional<types::OrContext> collect = CollectOfDelta(delta);
    if (!collect) return true;
    for (const types::Dot& dot : collect->entries()) {
      if (placed.At(dot.origin) < dot.offset) return false;
    }
    return true;
  };
  std::vector<LoggedDelta> out;
  out.reserve(deltas.size());
  while (out.size() < deltas.size()) {
    // Each origin is as likely as its deltas left make it (a shuffle of turns), among those whose
    // next delta may go.
    std::vector<size_t> left(origins.size()), weights(origins.size());
    for (size_t i = 0; i < origins.size(); i++) {
      left[i] = by_origin[origins[i]].size() - taken[origins[i]];
      if (left[i] > 0 && ready(*by_origin[origins[i]][taken[origins[i]]])) weights[i] = left[i];
    }
    if (std::ranges::all_of(weights, [](size_t w) { return w == 0; })) weights = left;
    const std::string& origin =
        origins[std::discrete_distribution<size_t>(weights.begin(), weights.end())(rng)];
    const LoggedDelta& delta = *by_origin[origin][taken[origin]++];
    if (const std::optional<types::OriginId> id = types::OriginId::FromHex(origin)) {
      placed.Raise(*id, delta.offset);
    }
    out.push_back(delta);
  }
  return out;
}

int ApplyInEveryOrder(redisContext* forwards, redisContext* ordered,
                      const std::vector<DottedDelta>& deltas, const std::string& value) {
  auto apply = [](redisContext* c, const DottedDelta& d, const std::string& key) {
    std::vector<std::string> cmd = {"DEBUG", "PEER-APPLY", *d.from,
                                    "0",     "OFFSET",     std::to_string(d.offset)};
    for (const std::string& arg : d.args) cmd.push_back(arg == "K" ? key : arg);
    return Cmd(c, cmd).str();
  };
  std::vector<size_t> order(deltas.size());
  for (size_t i = 0; i < order.size(); i++) order[i] = i;
  int n = 0;
  do {
    const std::string key = "k" + std::to_string(n++);
    for (size_t i = 0; i < deltas.size(); i++) {
      EXPECT_EQ(apply(forwards, deltas[i], key), "OK") << key << " " << i;
      EXPECT_EQ(apply(ordered, deltas[order[i]], key), "OK") << key << " " << order[i];
    }
    EXPECT_EQ(Cmd(ordered, {"GET", key}).str(), value) << key;
    if (::testing::Test::HasFailure()) return n;
  } while (std::next_permutation(order.begin(), order.end()));
  return n;
}

const std::vector<std::string> kNodeOptions = {"--memtable-size", "65536", "--ttl-rule", "w*",
                                               "150ms"};
std::vector<std::string> RandomWrite(std::mt19937_64& rng, int64_t now, bool* expect_refused,
                                     Counters counters) {
  auto pick = [&rng](uint64_t n) { return rng() % n; };
  const std::string value = std::string(1, static_cast<char>('a' + pick(3)));
  const std::string ts = std::to_string(now - 200 + static_cast<int64_t>(pick(400)));
  const bool mix = pick(10) == 0;
  auto key = [&](const char* prefix) {
    return mix ? std::string("mix") : prefix + std::to_string(pick(5));
  };
  *expect_refused = false;
  auto any_key = [&] {
    static constexpr const char* kPrefixes[] = {"t", "r", "s", "w", "c"};
    const uint64_t prefix = pick(5);
    return prefix == 4 ? "c" + std::to_string(pick(4)) : key(kPrefixes[prefix]);
  };
  // Expiry changes go to a log half of the time: mostly to the logs "e*", which only DEL of
  // "mix" and FLUSHDB remove, so that they live long enough to be expired and persisted.
  auto expiry_key = [&] {
    return key(pick(2) == 0 ? (pick(4) == 0 ? "t" : "e") : pick(2) == 0 ? "s" : "r");
  };
  switch (pick(18)) {
    case 0:
    case 1: {
      const uint64_t log = pick(4);
      return {"TLOG", "INS",
              key(log == 0   ? "w"
                  : log == 1 ? "t"
                             : "e"),
              value + std::to_string(pick(4)), ts};
    }
    case 2:
      return {"TLOG", "TRIMAT", key("t"), std::to_string(now - 200 + pick(150))};
    case 3:
      return pick(2) == 0 ? std::vector<std::string>{"TLOG", "TRIM", key("t"), "3"}
                          : std::vector<std::string>{"TLOG", "CLR", key("t")};
    case 4:
    case 5:
      return {"TREG", "SET", key("r"), value, ts};
    case 6:
      return {"PUT", key("s"), value, "TS", ts};
    case 7:
      return {"PUT", key(pick(2) == 0 ? "s" : "w"), value, "TS", ts};
    case 8:
      return {"PUT", key("s"), value, "TS", ts, "PXAT", "4102444800000"};  // 2100
    case 9:
      return {"DELETE", key("s"), "TS", ts};
    case 10:
      return {"SET", key("s"), value, "EX", "86400"};
    case 11:
      return {"DEL", any_key()};
    case 12:
      return {"UNLINK", any_key(), any_key()};
    case 13:
      return pick(10) == 0 ? std::vector<std::string>{"FLUSHDB"}
                           : std::vector<std::string>{"DEL", any_key(), "mix"};
    case 14:
    case 15: {
      // At once, or long after the test; a log's (not "mix") also within the test, so that
      // entries it covers are hidden on one node while others arrive at another.
      const std::string target = expiry_key();
      const uint64_t when = pick(6);
      int64_t at = now + (when == 0 ? -100 : 10'000'000);
      if ((target[0] == 't' || target[0] == 'e') && when < 3)
        at = now + 50 + static_cast<int64_t>(pick(100));
      return {"PEXPIREAT", target, std::to_string(at)};
    }
    case 16: {
      static constexpr const char* kConditions[] = {"NX", "XX", "GT", "LT"};
      const std::string target = expiry_key();
      if (pick(3) == 0) return {"PERSIST", target};
      std::vector<std::string> expire = {"EXPIRE", target, std::to_string(10'000 + pick(3))};
      if (pick(2) == 0) expire.push_back(kConditions[pick(4)]);
      return expire;
    }
    default: {
      // Counters "c*", never "mix", whose values are no integers (DEL and FLUSHDB remove them
      // too); SET resets one; APPEND is refused.
      const int64_t by = static_cast<int64_t>(pick(7)) - 3;
      const std::string counter = "c" + std::to_string(pick(4));
      const uint64_t what = pick(7);
      if (counters == Counters::kNone && what != 3) {
        return {"SET", what == 4 ? "f" + std::to_string(pick(2)) : counter,
                std::to_string(pick(20))};
      }
      switch (what) {
        case 0:
          return {"INCR", counter};
        case 1:
          return {"DECRBY", counter, std::to_string(by)};
        case 2:
          return {"SET", counter, std::to_string(pick(20))};
        case 3:
          *expect_refused = true;
          return {"APPEND", counter, "x"};
        case 4:  // float counters of their own: INCR on a fraction is an error
          return {"INCRBYFLOAT", "f" + std::to_string(pick(2)), pick(2) == 0 ? "0.25" : "-1.5"};
        default:
          return {"INCRBY", counter, std::to_string(by)};
      }
    }
  }
}

}  // namespace ebb::test
