// The expiry and deletion contract (docs/expiry.md), proved against the command layer (the
// in-process runner: the keyspace, its engine with its background threads, the dispatcher) by a
// seeded random walk: a small reference model of every key's versions (timestamps, expiry,
// timestamped tombstones, whole-key deletes, the grace walk, FLUSHDB, TLOG and TREG on the same
// keys, a ttl-rule, the clock) driven by random commands over a few keys, with DEBUG
// FLUSH-MEMTABLE, DEBUG COMPACT and restarts interleaved. After every step every read — GET at
// several graces, GETMETA, EXISTS, TYPE, PTTL, DBSIZE, KEYS, TLOG GET/SIZE/CUTOFF, TREG GET —
// must equal the model's answer. Besides, on their own (without the model), around every flush,
// compaction and restart:
//   - a full-grace answer never changes;
//   - a bounded-grace answer may change only to the full-grace answer;
//   - with default-retrieval-grace covering every version, no answer of any command changes;
// and throughout, deleted or expired data never comes back (every write's value is unique, so a
// value read again after its version was wiped or expired is a resurrection).
//
// Background work that would merge versions at unpredictable times is kept out of reach so the
// model can be exact: the memtable never fills, DEBUG COMPACT runs before L0 reaches its
// compaction trigger, there is no purge deadline and no whole-file expiry (each of those only
// merges or drops what no answer depends on, which docs/expiry.md argues and the engine's own
// tests check). Seeds and steps: fixed in `make test`; EBB_MODEL_SEEDS / EBB_MODEL_STEPS raise
// them (`make soak`).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "tests/support/command_runner.h"

namespace ebb::test {
namespace {

constexpr int64_t kStart = 1'900'000'000'000;  // the pinned clock at the start (ms)
constexpr int64_t kFull = std::numeric_limits<int64_t>::max();
constexpr int64_t kWindow = 5000;  // ttl-rule "w*" 5s
// A default grace this large covers every timestamp gap the walk makes.
constexpr int64_t kCoversAll = int64_t{1} << 40;
const std::vector<std::string> kKeys = {"a", "b", "c", "w1", "w2"};
const std::vector<int64_t> kGraces = {0, 1, 40, 300, kFull};

enum class Type { kString, kTreg, kTlog };

// One version of a key's metadata row.
struct Version {
  bool tombstone = false;  // a timestamped tombstone (DELETE TS)
  int64_t ts = 0;
  std::optional<int64_t> expire_at;
  Type type = Type::kString;
  std::string str;         // kString
  std::string treg_value;  // kTreg
  uint64_t treg_ts = 0;
  uint64_t log = 0;  // kTlog: the incarnation (index into Model::logs_)
  uint64_t cutoff = 0;
  uint64_t window = 0;  // ms; 0: none
  uint64_t newest = 0;  // with a window: the greatest ts inserted
};

// A TLOG entry, in TLOG order (newer ts first, then greater value).
struct Entry {
  uint64_t ts;
  std::string value;
  bool operator<(const Entry& o) const { return ts != o.ts ? ts > o.ts : value > o.value; }
};

// The contract, written independently of the server.
class Model {
 public:
  explicit Model(int64_t default_grace) : grace_(default_grace) {}

  int64_t now = kStart;

  // The grace walk (docs/expiry.md): newest first; the first without a grace; else on while
  // the next timestamp > best - grace, the greatest timestamp winning (ties: the newer).
  const Version* Choose(const std::string& key, int64_t grace) const {
    auto it = keys_.find(key);
    if (it == keys_.end()) return nullptr;
    const Version* best = nullptr;
    for (auto v = it->second.rbegin(); v != it->second.rend(); ++v) {
      if (best == nullptr) {
        best = &*v;
        if (grace <= 0) break;
        continue;
      }
      if (!(static_cast<__int128>(v->ts) - best->ts > -static_cast<__int128>(grace))) break;
      if (v->ts > best->ts) best = &*v;
    }
    return best;
  }
  bool Dead(const Version* v) const {
    return v == nullptr || v->tombstone || (v->expire_at && *v->expire_at <= now);
  }
  const Version* Live(const std::string& key, int64_t grace) const {
    const Version* v = Choose(key, grace);
    return Dead(v) ? nullptr : v;
  }
  const Version* Live(const std::string& key) const { return Live(key, grace_); }
  int64_t grace() const { return grace_; }

  // A write's timestamp for TLOG/TREG: >= every version of the key.
  int64_t TypeTs(const std::string& key) const {
    const Version* v = Live(key);
    if (v != nullptr) return std::max(now, v->ts);
    const Version* full = Choose(key, kFull);
    return full == nullptr ? now : std::max(now, full->ts);
  }
  static bool Windowed(const std::string& key) { return key[0] == 'w'; }
  // The policy: "w*" 5s.
  std::optional<int64_t> PolicyExpiry(const std::string& key, int64_t ts) const {
    if (Windowed(key)) return ts + kWindow;
    return std::nullopt;
  }

  void Append(const std::string& key, Version v) { keys_[key].push_back(std::move(v)); }
  void Wipe(const std::string& key) { keys_.erase(key); }
  void FlushDb() { keys_.clear(); }
  // DEBUG COMPACT: every key's whole history collapses to its full-grace choice (gone if dead).
  void CompactAll() {
    for (auto it = keys_.begin(); it != keys_.end();) {
      const Version* v = Choose(it->first, kFull);
      if (Dead(v)) {
        it = keys_.erase(it);
      } else {
        Version kept = *v;
        it->second = {kept};
        ++it;
      }
    }
  }

  uint64_t NewLog() {
    logs_.emplace_back();
    return logs_.size() - 1;
  }
  std::set<Entry>& Entries(uint64_t log) { return logs_[log]; }
  uint64_t EffectiveCutoff(const Version& v) const {
    if (v.window == 0 || now < static_cast<int64_t>(v.window)) return v.cutoff;
    return std::max<uint64_t>(v.cutoff, static_cast<uint64_t>(now) - v.window + 1);
  }
  // The entries a read sees, newest first.
  std::vector<Entry> Visible(const Version& v) const {
    std::vector<Entry> out;
    for (const Entry& e : logs_[v.log]) {
      if (e.ts < v.cutoff) break;
      if (v.window > 0 && static_cast<int64_t>(e.ts + v.window) <= now) continue;
      out.push_back(e);
    }
    return out;
  }
  std::vector<std::string> KeysLive() const {
    std::vector<std::string> out;
    for (const auto& [key, versions] : keys_) {
      if (Live(key) != nullptr) out.push_back(key);
    }
    return out;
  }
  // Every value the model still holds (a read may return it), for the "never comes back"
  // check.
  std::set<std::string> Held() const {
    std::set<std::string> held;
    for (const auto& [key, versions] : keys_) {
      for (const Version& v : versions) {
        held.insert(v.str);
        held.insert(v.treg_value);
        if (v.type == Type::kTlog) {
          for (const Entry& e : logs_[v.log]) held.insert(e.value);
        }
      }
    }
    return held;
  }

 private:
  int64_t grace_;
  std::map<std::string, std::vector<Version>> keys_;  // oldest version first
  std::vector<std::set<Entry>> logs_;
};

// Answers in the form Canon gives them (tests/support/reply.h).
std::string Int(int64_t n) { return ":" + std::to_string(n); }
std::string Str(const std::string& s) { return "$" + s; }
const std::string kWrongType = "-WRONGTYPE Operation against a key holding the wrong kind of value";

struct Read {
  std::vector<std::string> command;
  std::string expected;     // the model's canonical answer
  bool full_grace = false;  // a GET/GETMETA at full grace (never changes)
  bool bounded = false;     // a GET/GETMETA at an explicit bounded grace
  // Every other read uses default-retrieval-grace.
};

class ModelTest : public ::testing::TestWithParam<int64_t> {
 protected:
  void Run(uint32_t seed, int steps) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    const int64_t grace = GetParam();
    history_.clear();
    ebb_ = std::make_unique<CommandRunner>(  // a fresh data directory per seed
        std::vector<std::string>{"--default-retrieval-grace", std::to_string(grace), "--ttl-rule",
                                 "w*", "5s", "--expiry-purge-deadline", "unlimited",
                                 "--expiry-whole-file", "no"});
    Expect({"DEBUG", "CLOCK", "SET", std::to_string(kStart)}, "+OK");
    Model model(grace);
    std::mt19937 rng(seed);
    auto rand = [&](int64_t lo, int64_t hi) {
      return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
    };
    uint64_t counter = 0;
    int flushes_since_compact = 0;
    std::set<std::string> gone;  // values whose version was wiped or expired
    for (int step = 0; step < steps; step++) {
      SCOPED_TRACE("step " + std::to_string(step));
      const std::string key = kKeys[rand(0, kKeys.size() - 1)];
      const std::string value = "v" + std::to_string(++counter);
      const int64_t dice = rand(0, 999);
      std::string last;
      if (dice < 140) {  // PUT with a TS around now, maybe a TTL
        const int64_t ts = model.now + rand(-400, 400);
        std::vector<std::string> cmd = {"PUT", key, value, "TS", std::to_string(ts)};
        std::optional<int64_t> expire_at = model.PolicyExpiry(key, ts);
        const int64_t mode = rand(0, 3);
        if (mode == 0) {
          const int64_t ttl = rand(1, 3000);
          cmd.insert(cmd.end(), {"TTL", std::to_string(ttl)});
          expire_at = ts + ttl;
        } else if (mode == 1) {
          cmd.push_back("NOTTL");
          expire_at.reset();
        }
        Expect(cmd, "+OK");
        model.Append(key, Version{.ts = ts, .expire_at = expire_at, .str = value});
      } else if (dice < 200) {  // SET at the clock
        Expect({"SET", key, value}, "+OK");
        model.Append(key, Version{.ts = model.now,
                                  .expire_at = model.PolicyExpiry(key, model.now),
                                  .str = value});
      } else if (dice < 260) {  // DELETE with a TS (a timestamped tombstone)
        const int64_t ts = model.now + rand(-400, 400);
        Expect({"DELETE", key, "TS", std::to_string(ts)}, "+OK");
        model.Append(key, Version{.tombstone = true, .ts = ts});
      } else if (dice < 300) {  // DEL: a whole-key delete
        Expect({"DEL", key}, Int(model.Live(key) ? 1 : 0));
        Forget(model, key, &gone);
        model.Wipe(key);
      } else if (dice < 320) {  // GETDEL
        const Version* v = model.Live(key);
        if (v == nullptr) {
          Expect({"GETDEL", key}, "nil");
        } else if (v->type != Type::kString) {
          Expect({"GETDEL", key}, kWrongType);
        } else {
          Expect({"GETDEL", key}, Str(v->str));
          Forget(model, key, &gone);
          model.Wipe(key);
        }
      } else if (dice < 360) {  // EXPIRE (sometimes in the past) / PERSIST
        const Version* v = model.Live(key);
        if (rand(0, 3) == 0) {
          const bool has = v != nullptr && v->expire_at.has_value();
          Expect({"PERSIST", key}, Int(has ? 1 : 0));
          if (has) {
            Version copy = *v;
            copy.expire_at.reset();
            model.Append(key, copy);
          }
        } else {
          const int64_t seconds = rand(-1, 3);
          Expect({"EXPIRE", key, std::to_string(seconds)}, Int(v ? 1 : 0));
          if (v != nullptr && seconds <= 0) {
            Forget(model, key, &gone);
            model.Wipe(key);
          } else if (v != nullptr) {
            Version copy = *v;
            copy.expire_at = model.now + seconds * 1000;
            model.Append(key, copy);
          }
        }
      } else if (dice < 480) {  // TLOG INS
        const uint64_t ts = Model::Windowed(key)
                                ? static_cast<uint64_t>(model.now + rand(-6000, 200))
                                : static_cast<uint64_t>(rand(0, 40));
        TlogIns(model, key, value, ts);
      } else if (dice < 520) {  // TLOG TRIMAT / TRIM / CLR
        TlogTrim(model, key, rand);
      } else if (dice < 600) {  // TREG SET
        TregSet(model, key, rand(0, 2) == 0 ? "x" : value, static_cast<uint64_t>(rand(0, 30)));
      } else if (dice < 615) {  // FLUSHDB
        Expect({"FLUSHDB"}, "+OK");
        for (const std::string& k : kKeys) Forget(model, k, &gone);
        model.FlushDb();
      } else if (dice < 760) {  // the clock
        const int64_t ms = rand(0, 2500);
        Expect({"DEBUG", "CLOCK", "ADVANCE", std::to_string(ms)}, "+OK");
        ExpireInto(model, ms, &gone);  // what expires now is gone for good
      } else if (dice < 850) {         // background events, with the invariants around them
        const int64_t kind = rand(0, 2);
        const std::vector<Read> reads = Reads(model);
        const std::vector<std::string> before = Answers(reads);
        if (kind == 0 && flushes_since_compact < 3) {
          Expect({"DEBUG", "FLUSH-MEMTABLE"}, "+OK");
          flushes_since_compact++;
        } else if (kind == 1 || flushes_since_compact >= 3) {
          Expect({"DEBUG", "COMPACT"}, "+OK");
          flushes_since_compact = 0;
          model.CompactAll();
        } else {
          history_.push_back("(restart)");
          ebb_->Reopen();  // the clock stays where it is
        }
        CheckInvariants(reads, before, Answers(reads), grace >= kCoversAll);
      }
      if (HasFatalFailure()) return;
      CheckAgainstModel(model, gone);
      if (HasFatalFailure()) return;
    }
    ebb_.reset();
  }

 private:
  void Expect(const std::vector<std::string>& cmd, const std::string& expected) {
    history_.push_back(Join(cmd));
    const std::string got = ebb_->Do(cmd);
    ASSERT_EQ(got, expected) << Join(cmd) << History();
  }
  // The commands that led here, for a failure's message.
  std::string History() const {
    std::string out = "\nafter:";
    for (size_t i = history_.size() > 400 ? history_.size() - 400 : 0; i < history_.size(); i++) {
      out += "\n  " + history_[i];
    }
    return out;
  }
  static std::string Join(const std::vector<std::string>& cmd) {
    std::string out;
    for (const std::string& a : cmd) out += (out.empty() ? "" : " ") + a;
    return out;
  }
  // The values of `key`'s versions, now gone by a whole-key delete.
  static void Forget(const Model& model, const std::string& key, std::set<std::string>* gone) {
    for (int64_t g : kGraces) {
      if (const Version* v = model.Choose(key, g); v != nullptr) {
        if (!v->str.empty()) gone->insert(v->str);
        if (!v->treg_value.empty()) gone->insert(v->treg_value);
      }
    }
  }
  // Advances the model's clock; the values of versions that expire are gone for good.
  static void ExpireInto(Model& model, int64_t ms, std::set<std::string>* gone) {
    model.now += ms;
    for (const std::string& key : kKeys) {
      for (int64_t g : kGraces) {
        const Version* v = model.Choose(key, g);
        if (v != nullptr && v->expire_at && *v->expire_at <= model.now && !v->str.empty()) {
          gone->insert(v->str);
        }
      }
    }
  }

  void TlogIns(Model& model, const std::string& key, const std::string& value, uint64_t ts) {
    const std::vector<std::string> cmd = {"TLOG", "INS", key, value, std::to_string(ts)};
    const Version* live = model.Live(key);
    if (live != nullptr && live->type != Type::kTlog) return Expect(cmd, kWrongType);
    Expect(cmd, "+OK");
    Version meta;
    if (live != nullptr) {
      meta = *live;
    } else {
      meta.type = Type::kTlog;
      meta.log = model.NewLog();
      meta.window = Model::Windowed(key) ? kWindow : 0;
    }
    if (ts < model.EffectiveCutoff(meta)) return;
    auto& entries = model.Entries(meta.log);
    if (live != nullptr && entries.count(Entry{ts, value})) return;
    entries.insert(Entry{ts, value});
    WriteLogMeta(model, key, live, meta, ts);
  }
  // A TLOG metadata write: timestamp >= every version; with a window, the expiry follows it.
  static void WriteLogMeta(Model& model, const std::string& key, const Version* live, Version meta,
                           std::optional<uint64_t> inserted) {
    meta.ts = model.TypeTs(key);
    meta.expire_at = live != nullptr ? live->expire_at : std::nullopt;
    if (meta.window > 0) {
      if (inserted) meta.newest = std::max(meta.newest, *inserted);
      const uint64_t last = meta.cutoff > 0 ? std::max(meta.newest, meta.cutoff - 1) : meta.newest;
      meta.expire_at = static_cast<int64_t>(last + meta.window);
    }
    model.Append(key, meta);
  }
  template <typename Rand>
  void TlogTrim(Model& model, const std::string& key, Rand& rand) {
    const Version* live = model.Live(key);
    const int64_t op = rand(0, 2);
    if (op == 0) {  // TRIMAT
      const uint64_t ts = Model::Windowed(key) ? static_cast<uint64_t>(model.now + rand(-6000, 0))
                                               : static_cast<uint64_t>(rand(0, 40));
      const std::vector<std::string> cmd = {"TLOG", "TRIMAT", key, std::to_string(ts)};
      if (live != nullptr && live->type != Type::kTlog) return Expect(cmd, kWrongType);
      Expect(cmd, "+OK");
      Version meta;
      if (live == nullptr) {
        if (ts == 0) return;
        meta.type = Type::kTlog;
        meta.log = model.NewLog();
        meta.window = Model::Windowed(key) ? kWindow : 0;
      } else {
        meta = *live;
        if (ts <= meta.cutoff) return;
      }
      meta.cutoff = ts;
      WriteLogMeta(model, key, live, meta, std::nullopt);
    } else if (op == 1) {  // TRIM count
      const int64_t count = rand(1, 4);
      const std::vector<std::string> cmd = {"TLOG", "TRIM", key, std::to_string(count)};
      if (live != nullptr && live->type != Type::kTlog) return Expect(cmd, kWrongType);
      Expect(cmd, "+OK");
      if (live == nullptr) return;
      const std::vector<Entry> visible = model.Visible(*live);
      if (static_cast<int64_t>(visible.size()) < count) return;
      const uint64_t ts = visible[count - 1].ts;
      if (ts <= live->cutoff) return;
      Version meta = *live;
      meta.cutoff = ts;
      WriteLogMeta(model, key, live, meta, std::nullopt);
    } else {  // CLR
      const std::vector<std::string> cmd = {"TLOG", "CLR", key};
      if (live != nullptr && live->type != Type::kTlog) return Expect(cmd, kWrongType);
      Expect(cmd, "+OK");
      if (live == nullptr) return;
      const std::vector<Entry> visible = model.Visible(*live);
      if (visible.empty()) return;
      Version meta;
      meta.type = Type::kTlog;
      meta.log = model.NewLog();
      meta.window = Model::Windowed(key) ? kWindow : 0;
      meta.cutoff = std::max(live->cutoff, visible[0].ts + 1);
      WriteLogMeta(model, key, live, meta, std::nullopt);
    }
  }
  void TregSet(Model& model, const std::string& key, const std::string& value, uint64_t ts) {
    const std::vector<std::string> cmd = {"TREG", "SET", key, value, std::to_string(ts)};
    const Version* live = model.Live(key);
    if (live != nullptr && live->type != Type::kTreg) return Expect(cmd, kWrongType);
    Expect(cmd, "+OK");
    if (live != nullptr &&
        !(ts > live->treg_ts || (ts == live->treg_ts && value > live->treg_value))) {
      return;  // ignored
    }
    Version meta;
    meta.type = Type::kTreg;
    meta.treg_value = value;
    meta.treg_ts = ts;
    meta.ts = model.TypeTs(key);
    if (Model::Windowed(key)) {
      meta.expire_at = model.now + kWindow;
    } else if (live != nullptr) {
      meta.expire_at = live->expire_at;
    }
    model.Append(key, meta);
  }

  // Every read the test compares, with the model's answer.
  std::vector<Read> Reads(const Model& model) {
    std::vector<Read> reads;
    for (const std::string& key : kKeys) {
      for (int64_t g : kGraces) {
        const Version* v = model.Live(key, g);
        std::string get = "nil", meta = "nil";
        if (v != nullptr && v->type != Type::kString) {
          get = meta = kWrongType;
        } else if (v != nullptr) {
          get = Str(v->str);
          const int64_t ttl = v->expire_at ? *v->expire_at - model.now : -1;
          meta = "[$value," + Str(v->str) + ",$ts," + Int(v->ts) + ",$ttl," + Int(ttl) +
                 ",$expire_at," + Int(v->expire_at.value_or(-1)) + "]";
        }
        const std::string grace = std::to_string(g);
        reads.push_back({{"GET", key, "GRACE", grace}, get, g == kFull, g < kFull});
        reads.push_back({{"GETMETA", key, "GRACE", grace}, meta, g == kFull, g < kFull});
      }
      const Version* v = model.Live(key);
      reads.push_back({{"GET", key},
                       v == nullptr               ? "nil"
                       : v->type != Type::kString ? kWrongType
                                                  : Str(v->str)});
      reads.push_back({{"EXISTS", key}, Int(v ? 1 : 0)});
      const char* type = v == nullptr               ? "none"
                         : v->type == Type::kString ? "string"
                         : v->type == Type::kTreg   ? "treg"
                                                    : "tlog";
      reads.push_back({{"TYPE", key}, std::string("+") + type});
      reads.push_back({{"PTTL", key},
                       Int(v == nullptr   ? -2
                           : v->expire_at ? *v->expire_at - model.now
                                          : -1)});
      if (v != nullptr && v->type != Type::kTlog) {
        reads.push_back({{"TLOG", "GET", key}, kWrongType});
        reads.push_back({{"TLOG", "SIZE", key}, kWrongType});
      } else {
        std::string entries = "[";
        std::vector<Entry> visible;
        if (v != nullptr) visible = model.Visible(*v);
        for (const Entry& e : visible) {
          entries += (entries.size() > 1 ? "," : "") + std::string("[") + Str(e.value) + "," +
                     Int(static_cast<int64_t>(e.ts)) + "]";
        }
        reads.push_back({{"TLOG", "GET", key}, entries + "]"});
        reads.push_back({{"TLOG", "SIZE", key}, Int(static_cast<int64_t>(visible.size()))});
        reads.push_back({{"TLOG", "CUTOFF", key},
                         Int(v == nullptr ? 0 : static_cast<int64_t>(model.EffectiveCutoff(*v)))});
      }
      if (v != nullptr && v->type != Type::kTreg) {
        reads.push_back({{"TREG", "GET", key}, kWrongType});
      } else if (v == nullptr) {
        reads.push_back({{"TREG", "GET", key}, "nil"});
      } else {
        reads.push_back(
            {{"TREG", "GET", key},
             "[" + Str(v->treg_value) + "," + Int(static_cast<int64_t>(v->treg_ts)) + "]"});
      }
    }
    const std::vector<std::string> live = model.KeysLive();
    reads.push_back({{"DBSIZE"}, Int(static_cast<int64_t>(live.size()))});
    std::string keys = "[";
    for (const std::string& k : live) keys += (keys.size() > 1 ? "," : "") + Str(k);
    reads.push_back({{"KEYS", "*"}, keys + "]"});
    return reads;
  }
  // The answers to `reads`.
  std::vector<std::string> Answers(const std::vector<Read>& reads) {
    std::vector<std::string> out;
    for (const Read& r : reads) out.push_back(ebb_->Do(r.command));
    return out;
  }
  void CheckAgainstModel(const Model& model, const std::set<std::string>& gone) {
    const std::vector<Read> reads = Reads(model);
    const std::vector<std::string> got = Answers(reads);
    const std::set<std::string> held = model.Held();
    for (size_t i = 0; i < reads.size(); i++) {
      ASSERT_EQ(got[i], reads[i].expected) << Join(reads[i].command) << History();
      // Deleted or expired data never comes back: no answer holds a value whose version was
      // wiped or expired (values are unique per write; "x" is the one TREG value that repeats).
      for (size_t at = got[i].find('$'); at != std::string::npos; at = got[i].find('$', at + 1)) {
        const size_t end = got[i].find_first_of(",]", at);
        const std::string value =
            got[i].substr(at + 1, end == std::string::npos ? end : end - at - 1);
        ASSERT_FALSE(gone.count(value) > 0 && held.count(value) == 0)
            << value << " came back: " << Join(reads[i].command) << History();
      }
    }
  }
  // The invariants on their own, around a flush, compaction or restart.
  void CheckInvariants(const std::vector<Read>& reads, const std::vector<std::string>& before,
                       const std::vector<std::string>& after, bool default_grace_is_full) {
    // The full-grace answer of each GET/GETMETA after the event (same key, same command).
    std::map<std::string, std::string> full_after;
    for (size_t i = 0; i < reads.size(); i++) {
      if (reads[i].full_grace) full_after[reads[i].command[0] + reads[i].command[1]] = after[i];
    }
    for (size_t i = 0; i < reads.size(); i++) {
      const std::string what = Join(reads[i].command);
      if (reads[i].full_grace || (default_grace_is_full && !reads[i].bounded)) {
        EXPECT_EQ(after[i], before[i]) << what << ": changed by a flush, compaction or restart";
      } else if (reads[i].bounded && after[i] != before[i]) {
        EXPECT_EQ(after[i], full_after[reads[i].command[0] + reads[i].command[1]])
            << what << ": a bounded-grace answer changed to something but the full-grace one";
      }
    }
  }

  std::unique_ptr<CommandRunner> ebb_;
  std::vector<std::string> history_;
};

int EnvInt(const char* name, int fallback) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? std::atoi(v) : fallback;
}

TEST_P(ModelTest, RandomWalk) {
  const int seeds = EnvInt("EBB_MODEL_SEEDS", 4);
  const int steps = EnvInt("EBB_MODEL_STEPS", 500);
  for (int seed = 1; seed <= seeds && !HasFailure(); seed++)
    Run(static_cast<uint32_t>(seed), steps);
}

// default-retrieval-grace 0, and one larger than every timestamp gap the walk makes.
INSTANTIATE_TEST_SUITE_P(Grace, ModelTest, ::testing::Values(int64_t{0}, kCoversAll),
                         [](const auto& info) { return info.param == 0 ? "Zero" : "Full"; });

}  // namespace
}  // namespace ebb::test
