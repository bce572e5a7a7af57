#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "server/config/config.h"

namespace ebb::server {
namespace {

using Pairs = std::vector<std::pair<std::string, std::string>>;

TEST(ConfigGetTest, DefaultsAsRedisPrintsThem) {
  ConfigRegistry r;
  EXPECT_EQ(r.Get("port"), (Pairs{{"port", "6379"}}));
  EXPECT_EQ(r.Get("bind"), (Pairs{{"bind", "127.0.0.1 -::1"}}));
  EXPECT_EQ(r.Get("protected-mode"), (Pairs{{"protected-mode", "yes"}}));
  EXPECT_EQ(r.Get("requirepass"), (Pairs{{"requirepass", ""}}));
  EXPECT_EQ(r.Get("proto-max-bulk-len"), (Pairs{{"proto-max-bulk-len", "536870912"}}));
  EXPECT_EQ(r.Get("client-output-buffer-limit"),
            (Pairs{{"client-output-buffer-limit",
                    "normal 0 0 0 slave 268435456 67108864 60 pubsub 33554432 8388608 60"}}));
  EXPECT_EQ(r.Get("default-ttl"), (Pairs{{"default-ttl", "unlimited"}}));
  EXPECT_EQ(r.Get("expiry-purge-deadline"), (Pairs{{"expiry-purge-deadline", "1d"}}));
  EXPECT_EQ(r.Get("expiration"), (Pairs{{"expiration", "on"}}));
  EXPECT_EQ(r.Get("ttl-rule"), (Pairs{{"ttl-rule", ""}}));
  EXPECT_EQ(r.Get("active-active-string-rule"),
            (Pairs{{"active-active-string-rule", "timestamp"}}));
}

TEST(ConfigGetTest, GlobPatternsCaseInsensitiveInTableOrder) {
  ConfigRegistry r;
  EXPECT_EQ(r.Get("PORT"), (Pairs{{"port", "6379"}}));
  EXPECT_EQ(r.Get("nosuch"), Pairs{});
  auto expiry = r.Get("expiry-*");
  ASSERT_EQ(expiry.size(), 2u);
  EXPECT_EQ(expiry[0].first, "expiry-whole-file");
  EXPECT_EQ(expiry[1].first, "expiry-purge-deadline");
  auto all = r.Get("*");
  std::vector<std::string> listed;
  for (const auto& o : r.Options()) {
    if (o.listed_by_get) listed.push_back(o.name);
  }
  ASSERT_EQ(all.size(), listed.size());
  for (size_t i = 0; i < all.size(); ++i) EXPECT_EQ(all[i].first, listed[i]);
  EXPECT_EQ(r.Get("user"), Pairs{});  // its rules may hold passwords
  // repl-backlog-size, peer-backlog-size, memtable-size, block-cache-size, tlog-cache-size,
  // block-size
  EXPECT_EQ(r.Get("*-size").size(), 6u);
}

TEST(ConfigSetTest, MutableOptionsChangeAndCallHooks) {
  ConfigRegistry r;
  std::vector<std::string> changed;
  int64_t seen_ttl = 0;
  r.OnChange([&](std::string_view name, const Config& c) {
    changed.emplace_back(name);
    seen_ttl = c.default_ttl_ms;
  });
  ASSERT_EQ(ConfigErrorText(r.Set("MaxClients", "5"), "MaxClients"), "");
  EXPECT_EQ(r.config().maxclients, 5);
  ASSERT_EQ(ConfigErrorText(r.Set("default-ttl", "90s"), "default-ttl"), "");
  EXPECT_EQ(r.config().default_ttl_ms, 90000);
  EXPECT_EQ(seen_ttl, 90000);
  EXPECT_EQ(r.Get("default-ttl"), (Pairs{{"default-ttl", "1m30s"}}));
  ASSERT_EQ(ConfigErrorText(r.Set("wal-fsync", "ALWAYS"), "wal-fsync"), "");
  EXPECT_EQ(r.config().wal_fsync, "always");
  ASSERT_EQ(ConfigErrorText(r.Set("expiration", "off"), "expiration"), "");
  EXPECT_FALSE(r.config().expiration);
  ASSERT_EQ(ConfigErrorText(r.Set("expiry-whole-file", "no"), "expiry-whole-file"), "");
  EXPECT_FALSE(r.config().expiry_whole_file);
  ASSERT_EQ(ConfigErrorText(r.Set("proto-max-bulk-len", "2mb"), "proto-max-bulk-len"), "");
  EXPECT_EQ(r.config().proto_max_bulk_len, 2u << 20);
  ASSERT_EQ(ConfigErrorText(r.Set("ttl-rule", "a:* 1h 'b c' 5m"), "ttl-rule"), "");
  EXPECT_EQ(r.config().ttl_rules, (std::vector<TtlRule>{{"a:*", 3600000}, {"b c", 300000}}));
  // A rule may carry its own expiration switch and mode (Riak's bucket properties).
  ASSERT_EQ(ConfigErrorText(r.Set("ttl-rule",
                                  "a:* 1h expiration off b:* 5m mode whole-file c:* 2s mode "
                                  "per-item EXPIRATION on"),
                            "ttl-rule"),
            "");
  EXPECT_EQ(r.config().ttl_rules,
            (std::vector<TtlRule>{{"a:*", 3600000, false, storage::ExpiryMode::kDefault},
                                  {"b:*", 300000, true, storage::ExpiryMode::kWholeFile},
                                  {"c:*", 2000, true, storage::ExpiryMode::kPerItem}}));
  EXPECT_EQ(
      r.Get("ttl-rule"),
      (Pairs{{"ttl-rule", "a:* 1h expiration off b:* 5m mode whole-file c:* 2s mode per-item"}}));
  ASSERT_EQ(ConfigErrorText(r.Set("ttl-rule", "a:* 1h 'b c' 5m"), "ttl-rule"), "");
  ASSERT_EQ(ConfigErrorText(r.Set("client-output-buffer-limit", "normal 1mb 1kb 60"),
                            "client-output-buffer-limit"),
            "");
  EXPECT_EQ(r.Get("client-output-buffer-limit"),
            (Pairs{{"client-output-buffer-limit",
                    "normal 1048576 1024 60 slave 268435456 67108864 60 pubsub 33554432 8388608 "
                    "60"}}));
  ASSERT_EQ(ConfigErrorText(r.Set("requirepass", "with space"), "requirepass"), "");
  EXPECT_EQ(r.config().requirepass, "with space");
  EXPECT_EQ(changed, (std::vector<std::string>{
                         "maxclients", "default-ttl", "wal-fsync", "expiration",
                         "expiry-whole-file", "proto-max-bulk-len", "ttl-rule", "ttl-rule",
                         "ttl-rule", "client-output-buffer-limit", "requirepass"}));
}

TEST(ConfigSetTest, ErrorsAsRedisWordsThemAndChangeNothing) {
  ConfigRegistry r;
  int calls = 0;
  r.OnChange([&](std::string_view, const Config&) { ++calls; });
  const Pairs before = r.Get("*");
  struct Case {
    std::string name, value, error;
  };
  const std::string failed = "ERR CONFIG SET failed (possibly related to argument ";
  const std::vector<Case> cases = {
      {"nosuch", "1", "ERR Unknown option or number of arguments for CONFIG SET - 'nosuch'"},
      {"port", "7000", failed + "'port') - can't set immutable config"},
      {"dir", "/x", failed + "'dir') - can't set immutable config"},
      {"databases", "4", failed + "'databases') - can't set immutable config"},
      {"active-active-string-rule", "observed-remove",
       failed + "'active-active-string-rule') - can't set immutable config"},
      {"maxclients", "x", failed + "'maxclients') - argument couldn't be parsed into an integer"},
      {"maxclients", "0",
       failed + "'maxclients') - argument must be between 1 and 2147483647 inclusive"},
      {"timeout", "-1",
       failed + "'timeout') - argument must be between 0 and 2147483647 inclusive"},
      {"protected-mode", "1", failed + "'protected-mode') - argument must be 'yes' or 'no'"},
      {"default-ttl", "5x", failed + "'default-ttl') - invalid duration '5x'"},
      {"default-retrieval-grace", "unlimited",
       failed + "'default-retrieval-grace') - invalid duration 'unlimited'"},
      {"ttl-rule", "a:* 1h b:*",
       failed + "'ttl-rule') - ttl-rule needs <glob> <duration> [expiration on|off] "
                "[mode per-item|whole-file]"},
      {"ttl-rule", "a:* 1h b:* 1y", failed + "'ttl-rule') - invalid duration '1y'"},
      {"ttl-rule", "a:* 0",
       failed + "'ttl-rule') - a TTL must be above 0 (use 'unlimited' for no expiry)"},
      {"ttl-rule", "a:* 1h expiration maybe",
       failed + "'ttl-rule') - ttl-rule expiration must be 'on' or 'off'"},
      {"ttl-rule", "a:* 1h mode sometimes",
       failed + "'ttl-rule') - ttl-rule mode must be 'per-item' or 'whole-file'"},
      {"default-ttl", "0",
       failed + "'default-ttl') - a TTL must be above 0 (use 'unlimited' for no expiry)"},
      {"expiration", "maybe", failed + "'expiration') - argument must be 'on' or 'off'"},
      {"proto-max-bulk-len", "1k",
       failed + "'proto-max-bulk-len') - argument must be between 1048576 and "
                "9223372036854775807 inclusive"},
      {"client-output-buffer-limit", "master 0 0 0",
       failed + "'client-output-buffer-limit') - Invalid client class specified in buffer limit "
                "configuration."},
      {"loglevel", "loud",
       failed + "'loglevel') - argument(s) must be one of the following: debug, verbose, "
                "notice, warning"},
  };
  for (const Case& c : cases) {
    const Result<ConfigCode> set = r.Set(c.name, c.value);
    EXPECT_FALSE(set.ok()) << c.name << " " << c.value;
    EXPECT_EQ(ConfigErrorText(set, c.name), c.error);
  }
  EXPECT_EQ(r.Get("*"), before);
  EXPECT_EQ(calls, 0);
}

TEST(ConfigSetTest, OptionsDescribeTheTable) {
  ConfigRegistry r;
  auto options = r.Options();
  ASSERT_FALSE(options.empty());
  for (const auto& o : options) {
    EXPECT_FALSE(o.doc.empty()) << o.name;
    if (!o.listed_by_get) continue;
    EXPECT_EQ(r.Get(o.name), (Pairs{{o.name, o.default_text}}));
  }
  // The option names docs/commands.md documents.
  for (std::string name : {"bind",
                           "port",
                           "protected-mode",
                           "requirepass",
                           "databases",
                           "dir",
                           "maxclients",
                           "timeout",
                           "tcp-keepalive",
                           "proto-max-bulk-len",
                           "client-query-buffer-limit",
                           "client-output-buffer-limit",
                           "enable-debug-command",
                           "enable-protected-configs",
                           "loglevel",
                           "logfile",
                           "wal-fsync",
                           "memtable-size",
                           "block-cache-size",
                           "block-size",
                           "compression",
                           "expiration",
                           "default-ttl",
                           "ttl-rule",
                           "default-retrieval-grace",
                           "expiry-whole-file",
                           "expiry-purge-deadline"}) {
    EXPECT_EQ(r.Get(name).size(), 1u) << name;
  }
}

// Protected options change only for clients enable-protected-configs admits (the caller says
// whether this one is); the others, and the undo of a failed CONFIG SET, are unaffected.
TEST(ConfigSetTest, ProtectedOptionsNeedAnAdmittedClient) {
  ConfigRegistry r;
  EXPECT_EQ(r.Get("enable-protected-configs"), (Pairs{{"enable-protected-configs", "local"}}));
  for (const char* name : {"requirepass", "protected-mode", "maxclients", "maxmemory",
                           "proto-max-bulk-len", "client-query-buffer-limit"}) {
    const std::string before = r.Get(name)[0].second;
    const Result<ConfigCode> set = r.Set(name, "1", /*may_set_protected=*/false);
    EXPECT_EQ(set.code(), ConfigCode::kProtected) << name;
    EXPECT_EQ(ConfigErrorText(set, name),
              std::string("ERR CONFIG SET failed (possibly related to argument '") + name +
                  "') - can't set protected config");
    EXPECT_EQ(r.Get(name)[0].second, before) << name;
  }
  EXPECT_EQ(
      ConfigErrorText(r.Set("requirepass", "s3cret", /*may_set_protected=*/true), "requirepass"),
      "");
  EXPECT_EQ(r.config().requirepass, "s3cret");
  EXPECT_EQ(ConfigErrorText(r.Set("timeout", "5", /*may_set_protected=*/false), "timeout"), "");
  EXPECT_EQ(ConfigErrorText(r.Set("enable-protected-configs", "yes"), "enable-protected-configs"),
            "ERR CONFIG SET failed (possibly related to argument 'enable-protected-configs') - "
            "can't set immutable config");
}

}  // namespace
}  // namespace ebb::server
