// Server commands through a real server: CONFIG, INFO, TIME, COMMAND, SHUTDOWN, signals.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "tests/support/test_server.h"

namespace ebb::test {
namespace {

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(ServerTest, ConfigGetSet) {
  TestServer server;
  ASSERT_TRUE(server.Start()) << server.error();
  RedisConnection c = server.Connect();
  Reply port = Cmd(c.get(), {"CONFIG", "GET", "port"});
  ASSERT_EQ(port.size(), 2u) << port.ToString();
  EXPECT_EQ(port[0].str(), "port");
  EXPECT_EQ(port[1].str(), std::to_string(server.port()));
  Reply all = Cmd(c.get(), {"CONFIG", "GET", "*"});
  EXPECT_GT(all.size(), 40u);
  EXPECT_EQ(all.size() % 2, 0u);
  Reply two = Cmd(c.get(), {"config", "get", "port", "wal-f*", "port"});
  EXPECT_EQ(two.size(), 4u) << two.ToString();

  EXPECT_EQ(Cmd(c.get(), {"CONFIG", "SET", "wal-fsync", "always"}).ToString(), "OK");
  EXPECT_EQ(Cmd(c.get(), {"CONFIG", "GET", "wal-fsync"})[1].str(), "always");
  EXPECT_EQ(Cmd(c.get(), {"CONFIG", "SET", "timeout", "30", "maxclients", "50"}).ToString(), "OK");
  EXPECT_EQ(Cmd(c.get(), {"CONFIG", "GET", "maxclients"})[1].str(), "50");
  EXPECT_EQ(Cmd(c.get(), {"CONFIG", "SET", "port", "1"}).str(),
            "ERR CONFIG SET failed (possibly related to argument 'port') - can't set immutable "
            "config");
  EXPECT_EQ(Cmd(c.get(), {"CONFIG", "SET", "nosuch", "1"}).str(),
            "ERR Unknown option or number of arguments for CONFIG SET - 'nosuch'");
  EXPECT_EQ(Cmd(c.get(), {"CONFIG", "SET", "timeout"}).str(),
            "ERR wrong number of arguments for 'config|set' command");
  // All or nothing: the bad second pair leaves the first unchanged.
  EXPECT_TRUE(Cmd(c.get(), {"CONFIG", "SET", "timeout", "7", "maxclients", "x"}).is_error());
  EXPECT_EQ(Cmd(c.get(), {"CONFIG", "GET", "timeout"})[1].str(), "30");
  EXPECT_EQ(Cmd(c.get(), {"CONFIG", "REWRITE"}).str(),
            "ERR The server is running without a config file");
}

TEST(ServerTest, ConfigRewriteKeepsCommentsAndUpdatesValues) {
  TestServer server;
  std::string conf = server.dir() + "/ebb.conf";
  {
    std::ofstream out(conf);
    out << "# my settings\nwal-fsync everysec\ntimeout 0\n";
  }
  ASSERT_TRUE(server.Start({conf})) << server.error();
  RedisConnection c = server.Connect();
  EXPECT_EQ(Cmd(c.get(), {"CONFIG", "SET", "wal-fsync", "no"}).ToString(), "OK");
  EXPECT_EQ(Cmd(c.get(), {"CONFIG", "SET", "maxclients", "77"}).ToString(), "OK");
  EXPECT_EQ(Cmd(c.get(), {"CONFIG", "REWRITE"}).ToString(), "OK");
  std::string text = ReadFile(conf);
  EXPECT_EQ(text.rfind("# my settings\n", 0), 0u) << text;
  EXPECT_NE(text.find("wal-fsync no\n"), std::string::npos) << text;
  EXPECT_EQ(text.find("wal-fsync everysec"), std::string::npos) << text;
  EXPECT_NE(text.find("maxclients 77\n"), std::string::npos) << text;
  // The rewritten file is what a restart reads.
  ASSERT_TRUE(server.Restart()) << server.error();
  c = server.Connect();
  EXPECT_EQ(Cmd(c.get(), {"CONFIG", "GET", "maxclients"})[1].str(), "77");
}

// With enable-protected-configs no, a client may still set ordinary options but not those that
// decide who gets in (requirepass, protected-mode) or bound memory and connections.
TEST(ServerTest, ProtectedConfigsRefusedWhenNotEnabled) {
  TestServer server;
  ASSERT_TRUE(server.Start({"--enable-protected-configs", "no"})) << server.error();
  RedisConnection c = server.Connect();
  EXPECT_EQ(Cmd(c.get(), {"CONFIG", "SET", "requirepass", "x"}).str(),
            "ERR CONFIG SET failed (possibly related to argument 'requirepass') - can't set "
            "protected config");
  EXPECT_EQ(Cmd(c.get(), {"CONFIG", "SET", "timeout", "9", "protected-mode", "no"}).str(),
            "ERR CONFIG SET failed (possibly related to argument 'protected-mode') - can't set "
            "protected config");
  EXPECT_EQ(Cmd(c.get(), {"CONFIG", "GET", "timeout"})[1].str(), "0");  // all or nothing
  EXPECT_EQ(Cmd(c.get(), {"CONFIG", "SET", "timeout", "9"}).ToString(), "OK");
  EXPECT_EQ(Cmd(c.get(), {"PING"}).ToString(), "PONG");  // still no password
}

// maxmemory over a real connection: above the bound, a write that adds data gets Redis's -OOM
// while reads and deletes are served; raising the bound lets writes in again.
TEST(ServerTest, MaxmemoryRefusesWritesOverTheWire) {
  TestServer server;
  ASSERT_TRUE(server.Start({"--maxmemory", "1"})) << server.error();
  RedisConnection c = server.Connect();
  EXPECT_EQ(Cmd(c.get(), {"SET", "k", "v"}).str(),
            "OOM command not allowed when used memory > 'maxmemory'.");
  EXPECT_EQ(Cmd(c.get(), {"TLOG", "INS", "log", "a", "1"}).str(),
            "OOM command not allowed when used memory > 'maxmemory'.");
  EXPECT_TRUE(Cmd(c.get(), {"GET", "k"}).is_nil());
  EXPECT_EQ(Cmd(c.get(), {"DEL", "k"}).integer(), 0);
  EXPECT_EQ(Cmd(c.get(), {"CONFIG", "SET", "maxmemory", "1gb"}).ToString(), "OK");
  EXPECT_EQ(Cmd(c.get(), {"SET", "k", "v"}).ToString(), "OK");
}

// The aclfile's users are loaded at startup: here `default` is off, so clients must AUTH as a
// user the file defines. A file with a bad rule stops the start, naming its line.
TEST(ServerTest, AclFileLoadedAtStartup) {
  TestServer server;
  const std::string users = server.dir() + "/users.acl";
  std::ofstream(users) << "user default off\nuser app on >s3cret ~app:* +@all\n";
  ASSERT_TRUE(server.Start({"--aclfile", users})) << server.error();
  RedisConnection c = server.Connect();
  EXPECT_EQ(Cmd(c.get(), {"GET", "app:1"}).str(), "NOAUTH Authentication required.");
  EXPECT_EQ(Cmd(c.get(), {"AUTH", "app", "s3cret"}).ToString(), "OK");
  EXPECT_EQ(Cmd(c.get(), {"SET", "app:1", "v"}).ToString(), "OK");
  EXPECT_EQ(Cmd(c.get(), {"GET", "other"}).str(),
            "NOPERM this user has no permissions to access one of the keys used as arguments");
  EXPECT_EQ(Cmd(c.get(), {"ACL", "WHOAMI"}).str(), "app");
  server.Stop();
  std::ofstream(users) << "user app on +nosuch\n";
  TestServer broken;
  EXPECT_FALSE(broken.Start({"--aclfile", users}));
  EXPECT_NE(broken.ReadLog().find(users + ":1: Error in applying operation '+nosuch'"),
            std::string::npos)
      << broken.ReadLog();
}

// `user` lines in the config file make users at start (`default` reset first), CONFIG REWRITE
// writes the users back as `user` lines, and a restart reads them; CONFIG GET never shows them
// (their rules may hold passwords). A user named twice, a bad rule, or `user` lines beside an
// aclfile stop the start.
TEST(ServerTest, UserLinesInTheConfigFile) {
  TestServer server;
  const std::string conf = server.dir() + "/ebb.conf";
  std::ofstream(conf) << "user default on nopass ~* &* +@all -flushdb\n"
                         "user app on >s3cret ~app:* (+get ~shared:*) +@all\n";
  ASSERT_TRUE(server.Start({conf})) << server.error();
  RedisConnection c = server.Connect();
  EXPECT_EQ(Cmd(c.get(), {"FLUSHDB"}).str(),
            "NOPERM this user has no permissions to run the 'flushdb' command");
  EXPECT_EQ(Cmd(c.get(), {"CONFIG", "GET", "user"}).size(), 0u);
  EXPECT_EQ(Cmd(c.get(), {"AUTH", "app", "s3cret"}).ToString(), "OK");
  EXPECT_TRUE(Cmd(c.get(), {"GET", "shared:1"}).is_nil());
  EXPECT_EQ(Cmd(c.get(), {"SET", "shared:1", "v"}).str(),
            "NOPERM this user has no permissions to access one of the keys used as arguments");
  EXPECT_EQ(Cmd(c.get(), {"AUTH", "default", ""}).ToString(), "OK");
  // A password no temporary directory's name can hold (mkdtemp picks letters and digits), so
  // finding it in the rewritten file can only mean the file kept it in clear.
  const std::string password = "ops-pass!";
  EXPECT_EQ(Cmd(c.get(), {"ACL", "SETUSER", "ops", "on", ">" + password, "+info"}).ToString(),
            "OK");
  EXPECT_EQ(Cmd(c.get(), {"CONFIG", "REWRITE"}).ToString(), "OK");
  const std::string text = ReadFile(conf);
  EXPECT_NE(text.find("user ops on \"#"), std::string::npos) << text;
  EXPECT_EQ(text.find(password), std::string::npos) << text;
  ASSERT_TRUE(server.Restart()) << server.error();
  c = server.Connect();
  EXPECT_EQ(Cmd(c.get(), {"FLUSHDB"}).str(),
            "NOPERM this user has no permissions to run the 'flushdb' command");
  EXPECT_EQ(Cmd(c.get(), {"AUTH", "ops", password}).ToString(), "OK");
  EXPECT_EQ(Cmd(c.get(), {"AUTH", "app", "s3cret"}).ToString(), "OK");
  EXPECT_TRUE(Cmd(c.get(), {"GET", "shared:1"}).is_nil());
  server.Stop();

  TestServer twice;
  EXPECT_FALSE(twice.Start({"--user", "foo", "--user", "foo"}));
  EXPECT_NE(twice.ReadLog().find("Duplicate user found"), std::string::npos) << twice.ReadLog();
  TestServer bad_rule;
  EXPECT_FALSE(bad_rule.Start({"--user", "foo", "+nosuch"}));
  EXPECT_NE(bad_rule.ReadLog().find("Error in user declaration '+nosuch': Unknown command"),
            std::string::npos)
      << bad_rule.ReadLog();
  TestServer both;
  const std::string users = both.dir() + "/users.acl";
  std::ofstream(users) << "user default on nopass ~* &* +@all\n";
  EXPECT_FALSE(both.Start({"--user", "foo", "--aclfile", users}));
  EXPECT_NE(both.ReadLog().find("define either an ACL file or `user` lines"), std::string::npos)
      << both.ReadLog();
}

// CONFIG REWRITE through a symbolic link rewrites the file it points to, with its permissions.
TEST(ServerTest, ConfigRewriteKeepsTheLinkAndTheMode) {
  TestServer server;
  std::filesystem::create_directories(server.dir() + "/etc");
  const std::string real = server.dir() + "/etc/ebb.conf";
  const std::string link = server.dir() + "/ebb.conf";
  std::ofstream(real) << "timeout 0\n";
  std::filesystem::permissions(real, std::filesystem::perms::owner_read |
                                         std::filesystem::perms::owner_write |
                                         std::filesystem::perms::group_read);
  std::filesystem::create_symlink(real, link);
  ASSERT_TRUE(server.Start({link})) << server.error();
  RedisConnection c = server.Connect();
  EXPECT_EQ(Cmd(c.get(), {"CONFIG", "SET", "timeout", "12"}).ToString(), "OK");
  EXPECT_EQ(Cmd(c.get(), {"CONFIG", "REWRITE"}).ToString(), "OK");
  EXPECT_TRUE(std::filesystem::is_symlink(link));
  EXPECT_NE(ReadFile(real).find("timeout 12\n"), std::string::npos) << ReadFile(real);
  EXPECT_EQ(std::filesystem::status(real).permissions(), std::filesystem::perms::owner_read |
                                                             std::filesystem::perms::owner_write |
                                                             std::filesystem::perms::group_read);
}

TEST(ServerTest, InfoSections) {
  TestServer server;
  ASSERT_TRUE(server.Start()) << server.error();
  RedisConnection c = server.Connect();
  std::string all = Cmd(c.get(), {"INFO"}).str();
  for (const char* needle :
       {"# Server\r\n", "redis_version:7.0.0\r\n", "ebb_version:", "# Clients\r\n",
        "connected_clients:", "# Memory\r\n", "used_memory:", "# Persistence\r\n", "loading:0\r\n",
        "# Stats\r\n", "expired_keys:", "total_commands_processed:", "# Keyspace\r\n",
        "# Storage\r\n", "compactions:", "expired_rows_dropped:"}) {
    EXPECT_NE(all.find(needle), std::string::npos) << needle;
  }
  std::string one = Cmd(c.get(), {"INFO", "persistence"}).str();
  EXPECT_EQ(one.rfind("# Persistence\r\n", 0), 0u) << one;
  EXPECT_EQ(one.find("# Server"), std::string::npos);
  std::string two = Cmd(c.get(), {"info", "SERVER", "stats"}).str();
  EXPECT_NE(two.find("# Server"), std::string::npos);
  EXPECT_NE(two.find("\r\n\r\n# Stats\r\n"), std::string::npos) << two;
  EXPECT_EQ(Cmd(c.get(), {"INFO", "nosuch"}).str(), "");
  EXPECT_EQ(Cmd(c.get(), {"CONFIG", "RESETSTAT"}).ToString(), "OK");
  std::string stats = Cmd(c.get(), {"INFO", "stats"}).str();
  EXPECT_NE(stats.find("total_connections_received:0\r\n"), std::string::npos) << stats;
}

TEST(ServerTest, TimeAndCommandIntrospection) {
  TestServer server;
  ASSERT_TRUE(server.Start()) << server.error();
  RedisConnection c = server.Connect();
  Reply time = Cmd(c.get(), {"TIME"});
  ASSERT_EQ(time.size(), 2u);
  EXPECT_GT(std::stoll(time[0].str()), 1600000000);
  EXPECT_LT(std::stoll(time[1].str()), 1000000);

  long long count = Cmd(c.get(), {"COMMAND", "COUNT"}).integer();
  EXPECT_GE(count, 13);
  EXPECT_EQ(static_cast<long long>(Cmd(c.get(), {"COMMAND"}).size()), count);
  Reply info = Cmd(c.get(), {"COMMAND", "INFO", "ping", "nosuch", "config"});
  ASSERT_EQ(info.size(), 3u);
  EXPECT_EQ(info[0][0].str(), "ping");
  EXPECT_EQ(info[0][1].integer(), -1);
  EXPECT_TRUE(info[1].is_nil());
  ASSERT_EQ(info[2].size(), 10u);
  EXPECT_EQ(info[2][9].size(), 5u);  // config's subcommands
  EXPECT_EQ(info[2][9][0][0].str(), "config|get");

  // Key specs as Redis 7 gives them; keys a client cannot find by position make the command
  // movablekeys (cluster clients then ask COMMAND GETKEYS).
  Reply movable = Cmd(c.get(), {"COMMAND", "INFO", "get", "eval", "migrate"});
  ASSERT_EQ(movable.size(), 3u);
  EXPECT_EQ(movable[0][2].ToString().find("movablekeys"), std::string::npos);
  EXPECT_EQ(movable[0][8].ToString(),
            "1) 1) \"flags\"\n   2) 1) RO\n   3) \"begin_search\"\n   4) 1) \"type\"\n"
            "      2) \"index\"\n      3) \"spec\"\n      4) 1) \"index\"\n         2) "
            "(integer) 1\n   5) \"find_keys\"\n   6) 1) \"type\"\n      2) \"range\"\n"
            "      3) \"spec\"\n      4) 1) \"lastkey\"\n         2) (integer) 0\n"
            "         3) \"keystep\"\n         4) (integer) 1\n         5) \"limit\"\n"
            "         6) (integer) 0");
  EXPECT_NE(movable[1][2].ToString().find("movablekeys"), std::string::npos);
  EXPECT_NE(movable[1][8].ToString().find("\"keynum\""), std::string::npos);
  EXPECT_NE(movable[2][2].ToString().find("movablekeys"), std::string::npos);
  EXPECT_EQ(movable[2][8].size(), 2u);
  EXPECT_NE(movable[2][8][1].ToString().find("\"KEYS\""), std::string::npos);

  Reply docs = Cmd(c.get(), {"COMMAND", "DOCS", "echo"});
  ASSERT_EQ(docs.size(), 2u) << docs.ToString();
  EXPECT_EQ(docs[0].str(), "echo");
  EXPECT_EQ(docs[1][0].str(), "summary");
  EXPECT_EQ(docs[1][1].str(), "Returns the given string.");
  std::string docs_text = docs.ToString();
  EXPECT_NE(docs_text.find("\"arguments\""), std::string::npos) << docs_text;
  EXPECT_NE(docs_text.find("\"message\""), std::string::npos) << docs_text;

  Reply list = Cmd(c.get(), {"COMMAND", "LIST", "FILTERBY", "PATTERN", "config*"});
  std::string names = list.ToString();
  EXPECT_NE(names.find("\"config|get\""), std::string::npos) << names;
  EXPECT_EQ(names.find("\"ping\""), std::string::npos) << names;
}

TEST(ServerTest, ShutdownExitsCleanlyAndDataDirReopens) {
  TestServer server;
  ASSERT_TRUE(server.Start()) << server.error();
  RedisConnection c = server.Connect();
  EXPECT_EQ(Cmd(c.get(), {"SHUTDOWN", "BOGUS"}).str(), "ERR syntax error");
  EXPECT_EQ(Cmd(c.get(), {"SHUTDOWN", "ABORT"}).str(), "ERR No shutdown in progress.");
  Reply r = Cmd(c.get(), {"SHUTDOWN", "NOSAVE"});
  EXPECT_TRUE(r.is_io_error()) << r.ToString();  // no reply: the server closes and exits
  EXPECT_EQ(server.WaitExit(10000), 0);
  EXPECT_NE(server.ReadLog().find("ready to exit"), std::string::npos);
  ASSERT_TRUE(server.Start()) << server.error();
  c = server.Connect();
  EXPECT_EQ(Cmd(c.get(), {"PING"}).str(), "PONG");
}

// The io loop serves every client whether it sleeps at once (io-poll-us 0) or polls between
// requests, also across changes of the setting each way (the cron moves the loop from one way
// to the other), and a SHUTDOWN ends it even while it polls.
TEST(ServerTest, IoPollSettingKeepsServingAndShutsDown) {
  TestServer server;
  ASSERT_TRUE(server.Start({"--io-poll-us", "0"})) << server.error();
  RedisConnection a = server.Connect();
  RedisConnection b = server.Connect();
  EXPECT_EQ(Cmd(a.get(), {"CONFIG", "GET", "io-poll-us"})[1].str(), "0");
  EXPECT_TRUE(Cmd(a.get(), {"CONFIG", "SET", "io-poll-us", "-1"}).is_error());
  for (const char* poll_us : {"0", "1000000", "0", "1000000"}) {
    ASSERT_EQ(Cmd(a.get(), {"CONFIG", "SET", "io-poll-us", poll_us}).ToString(), "OK");
    for (int i = 0; i < 20; ++i) {
      Append(a.get(), {"SET", "a" + std::to_string(i), poll_us});
      Append(b.get(), {"ECHO", std::to_string(i)});
    }
    for (int i = 0; i < 20; ++i) {
      ASSERT_EQ(ReadReply(a.get()).ToString(), "OK");
      ASSERT_EQ(ReadReply(b.get()).str(), std::to_string(i));
    }
    EXPECT_EQ(Cmd(b.get(), {"GET", "a19"}).str(), poll_us);
  }
  EXPECT_EQ(Cmd(a.get(), {"CONFIG", "GET", "io-poll-us"})[1].str(), "1000000");
  EXPECT_TRUE(Cmd(a.get(), {"SHUTDOWN"}).is_io_error());
  EXPECT_EQ(server.WaitExit(10000), 0);
}

TEST(ServerTest, SigtermFlushesAndExitsZero) {
  TestServer server;
  ASSERT_TRUE(server.Start()) << server.error();
  RedisConnection c = server.Connect();
  EXPECT_EQ(Cmd(c.get(), {"PING"}).str(), "PONG");
  EXPECT_EQ(server.Stop(), 0);  // SIGTERM
  std::string log = server.ReadLog();
  EXPECT_NE(log.find("Received SIGTERM"), std::string::npos) << log;
  EXPECT_NE(log.find("Ready to accept connections tcp"), std::string::npos) << log;
}

TEST(ServerTest, StartUpLineSaysPortDirectoryKeysAndMode) {
  TestServer server;
  ASSERT_TRUE(server.Start()) << server.error();
  {
    RedisConnection c = server.Connect();
    for (const char* key : {"a", "b", "c"}) ASSERT_EQ(Cmd(c.get(), {"SET", key, "1"}).str(), "OK");
  }
  ASSERT_TRUE(server.Restart()) << server.error();
  const std::string log = server.ReadLog();
  const std::string line = fmt::format("Serving port {} tls-port 0 on ", server.port());
  const size_t at = log.rfind(line);
  ASSERT_NE(at, std::string::npos) << log;
  const std::string rest = log.substr(at, log.find('\n', at) - at);
  EXPECT_NE(rest.find("from '" + server.data_dir() + "': about 3 keys, standalone"),
            std::string::npos)
      << rest;
}

TEST(ServerTest, BadConfigExitsWithError) {
  TestServer server;
  EXPECT_FALSE(server.Start({"--port", "notaport"}));
  EXPECT_NE(server.error().find("port"), std::string::npos) << server.error();
}

// A port another process listens on stops the start with Redis's words, which tools that start
// servers (Redis's test harness) read to try another port.
TEST(ServerTest, APortInUseStopsTheStartAsRedisSaysIt) {
  int port = 0;
  const int fd = BindFreeLoopbackPort(&port);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::listen(fd, 1), 0);
  TestServer server;
  EXPECT_FALSE(server.Start({"--port", std::to_string(port)}));
  EXPECT_NE(
      server.error().find("Failed listening on port " + std::to_string(port) + " (tcp), aborting."),
      std::string::npos)
      << server.error();
  ::close(fd);
}

// A docker command line written for redis-server starts ebb: Redis's options without meaning
// for ebb are accepted with one log line each, appendfsync is wal-fsync, and a multi-valued
// option takes its values in one argument.
TEST(ServerTest, RedisCommandLineStartsEbb) {
  TestServer server;
  ASSERT_TRUE(server.Start({"--save", "", "--appendonly", "no", "--appendfsync", "always",
                            "--client-output-buffer-limit", "normal 8mb 4mb 5", "--requirepass",
                            "pass word", "--save"}))
      << server.error();
  RedisConnection c = server.Connect();
  EXPECT_EQ(Cmd(c.get(), {"AUTH", "pass word"}).ToString(), "OK");
  EXPECT_EQ(Cmd(c.get(), {"CONFIG", "GET", "wal-fsync"}).ToString(),
            "1) \"wal-fsync\"\n2) \"always\"");
  EXPECT_EQ(Cmd(c.get(), {"CONFIG", "GET", "client-output-buffer-limit"}).ToString(),
            "1) \"client-output-buffer-limit\"\n"
            "2) \"normal 8388608 4194304 5 slave 268435456 67108864 60 pubsub 33554432 8388608 "
            "60\"");
  const std::string log = server.ReadLog();
  size_t lines = 0;
  for (size_t at = log.find("Ignoring Redis option '"); at != std::string::npos;
       at = log.find("Ignoring Redis option '", at + 1)) {
    lines++;
  }
  EXPECT_EQ(lines, 3u) << log;
  EXPECT_NE(log.find("Ignoring Redis option 'appendonly no': "), std::string::npos) << log;
}

// wal-fsync always: several pipelining connections; every acknowledged write survives a kill,
// and the batches were committed through the group-commit thread.
TEST(ServerTest, GroupCommitUnderWalFsyncAlways) {
  TestServer server;
  ASSERT_TRUE(server.Start({"--wal-fsync", "always"})) << server.error();
  RedisConnection probe = server.Connect();
  constexpr int kConnections = 4;
  constexpr int kWrites = 100;
  std::vector<RedisConnection> conns;
  for (int c = 0; c < kConnections; ++c) conns.push_back(server.Connect());
  for (int i = 0; i < kWrites; ++i) {
    for (int c = 0; c < kConnections; ++c) {
      Append(conns[c].get(),
             {"SET", "k" + std::to_string(c) + "_" + std::to_string(i), "v" + std::to_string(i)});
      Append(conns[c].get(), {"ECHO", std::to_string(i)});
    }
  }
  for (int c = 0; c < kConnections; ++c) {
    for (int i = 0; i < kWrites; ++i) {
      ASSERT_EQ(ReadReply(conns[c].get()).ToString(), "OK");
      ASSERT_EQ(ReadReply(conns[c].get()).str(), std::to_string(i));  // order kept
    }
  }
  long long commits = InfoField(probe.get(), "stats", "wal_group_commits");
  EXPECT_GE(commits, 1);
  EXPECT_LE(commits, kConnections * kWrites);

  server.Kill();
  conns.clear();
  ASSERT_TRUE(server.Start({"--wal-fsync", "always"})) << server.error();
  RedisConnection c = server.Connect();
  for (int conn = 0; conn < kConnections; ++conn) {
    for (int i = 0; i < kWrites; i += 7) {
      EXPECT_EQ(Cmd(c.get(), {"GET", "k" + std::to_string(conn) + "_" + std::to_string(i)}).str(),
                "v" + std::to_string(i));
    }
  }
}

TEST(ServerTest, InfoKeyspaceCountsLiveKeys) {
  TestServer server;
  ASSERT_TRUE(server.Start()) << server.error();
  RedisConnection c = server.Connect();
  EXPECT_EQ(Cmd(c.get(), {"INFO", "keyspace"}).str(), "# Keyspace\r\n");
  ASSERT_EQ(Cmd(c.get(), {"SET", "a", "1"}).ToString(), "OK");
  ASSERT_EQ(Cmd(c.get(), {"SET", "b", "2", "EX", "100"}).ToString(), "OK");
  ASSERT_EQ(Cmd(c.get(), {"SELECT", "3"}).ToString(), "OK");
  ASSERT_EQ(Cmd(c.get(), {"SET", "c", "3"}).ToString(), "OK");
  std::string info = Cmd(c.get(), {"INFO", "keyspace"}).str();
  EXPECT_NE(info.find("db0:keys=2,expires=1,avg_ttl="), std::string::npos) << info;
  EXPECT_NE(info.find("db3:keys=1,expires=0,avg_ttl=0\r\n"), std::string::npos) << info;
}

TEST(ServerTest, WalFsyncSwitchesAtRuntime) {
  TestServer server;
  ASSERT_TRUE(server.Start()) << server.error();
  RedisConnection c = server.Connect();
  ASSERT_EQ(Cmd(c.get(), {"SET", "a", "1"}).ToString(), "OK");
  EXPECT_EQ(InfoField(c.get(), "stats", "wal_group_commits"), 0);
  ASSERT_EQ(Cmd(c.get(), {"CONFIG", "SET", "wal-fsync", "always"}).ToString(), "OK");
  ASSERT_EQ(Cmd(c.get(), {"SET", "b", "2"}).ToString(), "OK");
  EXPECT_EQ(InfoField(c.get(), "stats", "wal_group_commits"), 1);
  EXPECT_EQ(Cmd(c.get(), {"GET", "b"}).str(), "2");
}

}  // namespace
}  // namespace ebb::test
