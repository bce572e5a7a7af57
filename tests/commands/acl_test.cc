// ACL users through the command layer, as Redis 7 answers (tests/unit/acl.tcl): creating and
// describing users, AUTH as a user, the command, key and channel checks, categories, requirepass
// as the default user's password, DELUSER disconnecting, scripts checked for their caller.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "server/acl/acl_user.h"
#include "server/core/client.h"
#include "server/core/digest.h"
#include "server/services/server_context.h"
#include "tests/support/command_runner.h"
#include "tests/support/temp_path.h"

namespace ebb::test {
namespace {

class AclTest : public CommandTest {};

TEST_F(AclTest, TheDefaultUserRunsEverything) {
  EXPECT_EQ(Do({"ACL", "WHOAMI"}), "$default");
  EXPECT_EQ(Do({"ACL", "USERS"}), "[$default]");
  EXPECT_EQ(Do({"ACL", "LIST"}), "[$user default on nopass ~* &* +@all]");
  EXPECT_EQ(R({"ACL", "GETUSER", "default"}),
            "1) \"flags\"\n2) 1) \"on\"\n   2) \"nopass\"\n"
            "3) \"passwords\"\n4) (empty array)\n5) \"commands\"\n6) \"+@all\"\n7) \"keys\"\n"
            "8) \"~*\"\n9) \"channels\"\n10) \"&*\"\n11) \"selectors\"\n12) (empty array)");
  EXPECT_EQ(Do({"ACL", "GETUSER", "nosuch"}), "nil");
}

TEST_F(AclTest, ANewUserHasNothingUntilGivenIt) {
  EXPECT_EQ(Do({"ACL", "SETUSER", "alice"}), "+OK");
  EXPECT_EQ(Do({"ACL", "LIST"}),
            "[$user alice off resetchannels -@all,"
            "$user default on nopass ~* &* +@all]");
  EXPECT_EQ(Do({"AUTH", "alice", "pw"}),
            "-WRONGPASS invalid username-password pair or user is disabled.");
  EXPECT_EQ(
      Do({"ACL", "SETUSER", "alice", "on", ">pw", "~app:*", "&news.*", "+get", "+set", "+@tlog"}),
      "+OK");
  EXPECT_EQ(Do({"ACL", "GETUSER", "alice"}),
            "[$flags,[$on],$passwords,[$" + server::Sha256Hex("pw") +
                "],$commands,$-@all +@tlog +get +set,$keys,$~app:*,$channels,$&news.*,"
                "$selectors,[]]");
  EXPECT_EQ(Do({"AUTH", "alice", "wrong"}),
            "-WRONGPASS invalid username-password pair or user is disabled.");
  EXPECT_EQ(Do({"AUTH", "alice", "pw"}), "+OK");
  EXPECT_EQ(Do({"ACL", "WHOAMI"}),
            "-NOPERM this user has no permissions to run the 'acl|whoami' "
            "command");
  EXPECT_EQ(Do({"SET", "app:1", "v"}), "+OK");
  EXPECT_EQ(Do({"GET", "app:1"}), "$v");
  EXPECT_EQ(Do({"TLOG", "INS", "app:log", "e", "1"}), "+OK");
  EXPECT_EQ(Do({"GET", "other"}),
            "-NOPERM this user has no permissions to access one of the keys used as arguments");
  EXPECT_EQ(Do({"DEL", "app:1"}), "-NOPERM this user has no permissions to run the 'del' command");
  EXPECT_EQ(Do({"PUBLISH", "news.1", "m"}),
            "-NOPERM this user has no permissions to run the 'publish' command");
  const size_t admin = ebb_->AddClient();
  EXPECT_EQ(DoAs(admin, {"ACL", "SETUSER", "alice", "+publish", "+psubscribe"}), "+OK");
  EXPECT_EQ(Do({"PUBLISH", "news.1", "m"}), ":0");  // the change reached the connected client
  EXPECT_EQ(Do({"PUBLISH", "sports", "m"}),
            "-NOPERM this user has no permissions to access one of the channels used as "
            "arguments");
  // A pattern must equal one of the user's patterns, not merely match it.
  EXPECT_EQ(Do({"PSUBSCRIBE", "news.1*"}),
            "-NOPERM this user has no permissions to access one of the channels used as "
            "arguments");
  // AUTH, HELLO, QUIT and RESET are never refused by the command check.
  EXPECT_EQ(Do({"AUTH", "default", "x"}), "+OK");
  EXPECT_EQ(Do({"ACL", "WHOAMI"}), "$default");
}

TEST_F(AclTest, ReadOnlyPatternsAdmitReadsOnly) {
  EXPECT_EQ(Do({"SET", "cfg:a", "1"}), "+OK");
  EXPECT_EQ(Do({"ACL", "SETUSER", "reader", "on", "nopass", "%R~cfg:*", "+@read", "+@write"}),
            "+OK");
  EXPECT_EQ(Do({"AUTH", "reader", "anything"}), "+OK");
  EXPECT_EQ(Do({"GET", "cfg:a"}), "$1");
  EXPECT_EQ(Do({"MGET", "cfg:a", "cfg:b"}), "[$1,nil]");
  EXPECT_EQ(Do({"SET", "cfg:a", "2"}),
            "-NOPERM this user has no permissions to access one of the keys used as arguments");
  EXPECT_EQ(Do({"MGET", "cfg:a", "x"}),
            "-NOPERM this user has no permissions to access one of the keys used as arguments");
}

// Each key needs the access the command's use of it needs (Redis 7's key-spec flags): a key only
// written needs W, one read R, one only tested for existence or size either.
TEST_F(AclTest, KeysNeedTheAccessTheCommandUsesThemFor) {
  EXPECT_EQ(Do({"SET", "read", "bar"}), "+OK");
  EXPECT_EQ(
      Do({"ACL", "SETUSER", "rw", "on", "nopass", "+@all", "%R~read*", "%W~write*", "%RW~rw*"}),
      "+OK");
  const std::string denied =
      "-NOPERM this user has no permissions to access one of the keys used as arguments";
  EXPECT_EQ(Do({"AUTH", "rw", "x"}), "+OK");
  EXPECT_EQ(Do({"SET", "write", "v"}), "+OK");
  EXPECT_EQ(Do({"SET", "write", "v", "GET"}), denied);
  EXPECT_EQ(Do({"SET", "write", "v", "EX", "GET"}), denied);  // GET anywhere, as Redis
  EXPECT_EQ(Do({"SET", "read", "v"}), denied);
  EXPECT_EQ(Do({"GET", "write"}), denied);
  EXPECT_EQ(Do({"COPY", "read", "write2"}), ":1");
  EXPECT_EQ(Do({"COPY", "write", "read"}), denied);
  EXPECT_EQ(Do({"BITFIELD", "read", "GET", "u4", "0"}), "[:6]");
  EXPECT_EQ(Do({"BITFIELD", "read", "GET", "u4", "0", "SET", "u4", "0", "1"}), denied);
  EXPECT_EQ(Do({"BITFIELD", "write", "GET", "u4", "0"}), denied);
  EXPECT_EQ(Do({"DEL", "write", "write2"}), ":2");
  EXPECT_EQ(Do({"PUT", "write", "v", "TS", "5"}), "+OK");
  EXPECT_EQ(Do({"TLOG", "INS", "writelog", "e", "1"}), "+OK");
  EXPECT_EQ(Do({"TLOG", "GET", "writelog"}), denied);
  EXPECT_EQ(Do({"TLOG", "SIZE", "writelog"}), ":1");
  for (const char* key : {"read", "write", "rw"}) {
    for (const char* command : {"EXISTS", "TYPE", "STRLEN", "TOUCH"}) {
      EXPECT_NE(Do({command, key}).substr(0, 7), "-NOPERM") << command << " " << key;
    }
  }
  EXPECT_EQ(Do({"EXISTS", "nothing"}), denied);
  EXPECT_EQ(Do({"AUTH", "default", ""}), "+OK");
  for (const char* key : {"read", "write", "rw"}) {
    EXPECT_EQ(Do({"ACL", "DRYRUN", "rw", "MEMORY", "USAGE", key}), "+OK") << key;
  }
  EXPECT_EQ(Do({"ACL", "DRYRUN", "rw", "EVAL", "", "1", "rw1"}), "+OK");
  EXPECT_EQ(Do({"ACL", "DRYRUN", "rw", "EVAL", "", "1", "read"}),
            "$This user has no permissions to access the 'read' key");
  EXPECT_EQ(Do({"ACL", "DRYRUN", "rw", "EVAL_RO", "", "1", "read"}), "+OK");
  EXPECT_EQ(Do({"ACL", "DRYRUN", "rw", "MIGRATE", "h", "1", "", "0", "5000", "KEYS", "write"}),
            "$This user has no permissions to access the 'write' key");
}

// A request is allowed when one selector allows all of it; the root selector is the rules
// outside parentheses.
TEST_F(AclTest, SelectorsEachAllowAWholeRequest) {
  EXPECT_EQ(Do({"ACL", "SETUSER", "sel", "on", "nopass", "-@all", "resetkeys"}), "+OK");
  EXPECT_EQ(Do({"ACL", "SETUSER", "sel", "(+@write ~write::*)", "(+@read", "~read::*)"}), "+OK");
  EXPECT_EQ(Do({"AUTH", "sel", "x"}), "+OK");
  EXPECT_EQ(Do({"PING"}), "-NOPERM this user has no permissions to run the 'ping' command");
  EXPECT_EQ(Do({"SET", "write::a", "v"}), "+OK");
  EXPECT_EQ(Do({"GET", "read::a"}), "nil");
  const std::string denied =
      "-NOPERM this user has no permissions to access one of the keys used as arguments";
  EXPECT_EQ(Do({"GET", "write::a"}), denied);
  EXPECT_EQ(Do({"SET", "read::a", "v"}), denied);
  EXPECT_EQ(Do({"AUTH", "default", ""}), "+OK");
  // R in one selector and W in another do not add up.
  EXPECT_EQ(
      Do({"ACL", "SETUSER", "split", "on", "nopass", "(%R~read* +@all)", "(%W~write* +@all)"}),
      "+OK");
  EXPECT_EQ(Do({"ACL", "DRYRUN", "split", "COPY", "read", "write"}),
            "$This user has no permissions to access the 'write' key");
  EXPECT_EQ(Do({"ACL", "DRYRUN", "split", "SET", "write", "v"}), "+OK");
  EXPECT_EQ(Do({"ACL", "DRYRUN", "split", "GET", "read"}), "+OK");
}

TEST_F(AclTest, SelectorsAreDescribedAndCleared) {
  EXPECT_EQ(
      Do({"ACL", "SETUSER", "info", "-@all", "+get", "resetchannels", "&channel1", "%R~foo1",
          "%W~bar1", "~baz1", "(-@all +set resetchannels &channel2 %R~foo2 %W~bar2 ~baz2)", "()"}),
      "+OK");
  EXPECT_EQ(Do({"ACL", "GETUSER", "info"}),
            "[$flags,[$off],$passwords,[],$commands,$-@all +get,$keys,$%R~foo1 %W~bar1 ~baz1,"
            "$channels,$&channel1,$selectors,["
            "[$commands,$-@all +set,$keys,$%R~foo2 %W~bar2 ~baz2,$channels,$&channel2],"
            "[$commands,$-@all,$keys,$,$channels,$]]]");
  EXPECT_EQ(Do({"ACL", "LIST"}),
            "[$user default on nopass ~* &* +@all,"
            "$user info off %R~foo1 %W~bar1 ~baz1 resetchannels &channel1 -@all +get "
            "(%R~foo2 %W~bar2 ~baz2 resetchannels &channel2 -@all +set) "
            "(resetchannels -@all)]");
  EXPECT_EQ(Do({"ACL", "SETUSER", "info", "clearselectors"}), "+OK");
  EXPECT_EQ(Do({"ACL", "GETUSER", "info"}).substr(Do({"ACL", "GETUSER", "info"}).rfind('$')),
            "$selectors,[]]");
  EXPECT_EQ(Do({"ACL", "SETUSER", "info", "(~a)", "reset"}), "+OK");
  EXPECT_EQ(Do({"ACL", "LIST"}),
            "[$user default on nopass ~* &* +@all,"
            "$user info off sanitize-payload resetchannels -@all]");
}

TEST_F(AclTest, SelectorErrorsAsRedisGivesThem) {
  EXPECT_EQ(Do({"ACL", "SETUSER", "bad", "on", "(this-is-invalid)"}),
            "-ERR Error in ACL SETUSER modifier '(this-is-invalid)': Syntax error");
  EXPECT_EQ(Do({"ACL", "SETUSER", "bad", "on", "(&*", "&fail)"}),
            "-ERR Error in ACL SETUSER modifier '(&* &fail)': Adding a pattern after the * "
            "pattern (or the 'allchannels' flag) is not valid and does not have any effect. Try "
            "'resetchannels' to start with an empty list of channels");
  EXPECT_EQ(Do({"ACL", "SETUSER", "bad", "on", "(~a", "+get"}),
            "-ERR Unmatched parenthesis in acl selector starting at '(~a'.");
  EXPECT_EQ(Do({"ACL", "SETUSER", "bad", " () "}),
            "-ERR Error in ACL SETUSER modifier ' () ': Syntax error");
  EXPECT_EQ(Do({"ACL", "SETUSER", "bad", ")"}),
            "-ERR Error in ACL SETUSER modifier ')': Syntax error");
  // A rule ending with ')' inside a selector would read back from the aclfile as the end of
  // the selector, with the rules after it given to the root.
  EXPECT_EQ(Do({"ACL", "SETUSER", "bad", "(~a) +@all +select|0)"}),
            "-ERR Error in ACL SETUSER modifier '(~a) +@all +select|0)': Syntax error");
  EXPECT_EQ(Do({"ACL", "GETUSER", "bad"}), "nil");
}

// Of the selectors that refuse, the log and the error name the one that got furthest.
TEST_F(AclTest, TheRefusalThatGotFurthestIsReported) {
  EXPECT_EQ(
      Do({"ACL", "SETUSER", "far", "on", "nopass", "+mget", "~key", "(+mget ~key ~otherkey)"}),
      "+OK");
  EXPECT_EQ(Do({"AUTH", "far", "x"}), "+OK");
  EXPECT_EQ(Do({"GET", "key"}), "-NOPERM this user has no permissions to run the 'get' command");
  EXPECT_EQ(Do({"MGET", "otherkey", "someotherkey"}).substr(0, 7), "-NOPERM");
  EXPECT_EQ(Do({"MGET", "key", "otherkey", "someotherkey"}).substr(0, 7), "-NOPERM");
  EXPECT_EQ(Do({"AUTH", "default", ""}), "+OK");
  const Reply log = ebb_->Cmd({"ACL", "LOG"});
  ASSERT_EQ(log.size(), 2u) << Canon(log);  // the two MGETs are one entry, counted twice
  EXPECT_EQ(log[0][3].str() + " " + log[0][7].str() + " " + std::to_string(log[0][1].integer()),
            "key someotherkey 2");
  EXPECT_EQ(log[1][3].str() + " " + log[1][7].str(), "command get");
}

TEST_F(AclTest, CategoriesAndSubcommands) {
  EXPECT_EQ(Do({"ACL", "SETUSER", "ops", "on", "nopass", "allkeys", "+@all", "-@dangerous",
                "+config|get"}),
            "+OK");
  const std::string rules = Do({"ACL", "GETUSER", "ops"});
  // Described as Redis describes a bitmap: the best-fitting categories, then single commands.
  EXPECT_NE(rules.find("$+@all -@dangerous +config|get,"), std::string::npos) << rules;
  EXPECT_NE(rules.find("+config|get"), std::string::npos) << rules;
  EXPECT_EQ(Do({"AUTH", "ops", "x"}), "+OK");
  EXPECT_EQ(Do({"SET", "k", "v"}), "+OK");
  EXPECT_EQ(Do({"CONFIG", "GET", "timeout"}), "[$timeout,$0]");
  EXPECT_EQ(Do({"CONFIG", "SET", "timeout", "1"}),
            "-NOPERM this user has no permissions to run the 'config|set' command");
  EXPECT_EQ(Do({"MULTI"}), "+OK");
  EXPECT_EQ(Do({"CONFIG", "SET", "timeout", "1"}),
            "-NOPERM this user has no permissions to run the 'config|set' command");
  EXPECT_EQ(Do({"EXEC"}), "-EXECABORT Transaction discarded because of previous errors.");
}

// A category no ebb command is in (@set, @list) changes no bit, yet the rule reads back as
// written — against the base it differs from — until +@all or -@all starts over.
TEST_F(AclTest, ACategoryWithoutCommandsIsDescribedAsGiven) {
  EXPECT_EQ(Do({"ACL", "SETUSER", "additive", "reset", "+@all", "-@set"}), "+OK");
  EXPECT_NE(Do({"ACL", "GETUSER", "additive"}).find("$+@all -@set,"), std::string::npos)
      << Do({"ACL", "GETUSER", "additive"});
  EXPECT_EQ(Do({"ACL", "SETUSER", "restrictive", "reset", "-@all", "+@list", "+@set", "-@list"}),
            "+OK");
  EXPECT_NE(Do({"ACL", "GETUSER", "restrictive"}).find("$-@all +@set,"), std::string::npos)
      << Do({"ACL", "GETUSER", "restrictive"});
  EXPECT_EQ(Do({"ACL", "SETUSER", "restrictive", "+@all"}), "+OK");
  EXPECT_NE(Do({"ACL", "GETUSER", "restrictive"}).find("$+@all,"), std::string::npos)
      << Do({"ACL", "GETUSER", "restrictive"});
  EXPECT_EQ(Do({"ACL", "SETUSER", "additive", "-@all", "+@string", "+@hash"}), "+OK");
  EXPECT_NE(Do({"ACL", "GETUSER", "additive"}).find("$-@all +@hash +@string"), std::string::npos)
      << Do({"ACL", "GETUSER", "additive"});
}

// +command|first-arg (Redis's allowed first-args): a command without subcommands runs with the
// first arguments named only; a subcommand cannot take one; +command or -command drops them.
TEST_F(AclTest, FirstArgRules) {
  EXPECT_EQ(
      Do({"ACL", "SETUSER", "db0", "on", "nopass", "-@all", "+acl", "+select|0", "+select|1"}),
      "+OK");
  EXPECT_NE(Do({"ACL", "GETUSER", "db0"}).find("$-@all +acl +select|0 +select|1,"),
            std::string::npos)
      << Do({"ACL", "GETUSER", "db0"});
  EXPECT_EQ(Do({"AUTH", "db0", "x"}), "+OK");
  EXPECT_EQ(Do({"SELECT", "0"}), "+OK");
  EXPECT_EQ(Do({"SELECT", "1"}), "+OK");
  EXPECT_EQ(Do({"SELECT", "2"}),
            "-NOPERM this user has no permissions to run the 'select' command");
  EXPECT_EQ(Do({"ACL", "SETUSER", "db0", "+select|"}),
            "-ERR Error in ACL SETUSER modifier '+select|': Syntax error");
  for (const char* rule : {"-config|asdf", "-select|0"}) {
    EXPECT_EQ(Do({"ACL", "SETUSER", "db0", rule}),
              "-ERR Error in ACL SETUSER modifier '" + std::string(rule) +
                  "': Unknown command or category name in ACL");
  }
  EXPECT_EQ(Do({"ACL", "SETUSER", "db0", "-select"}), "+OK");
  EXPECT_EQ(Do({"SELECT", "0"}),
            "-NOPERM this user has no permissions to run the 'select' command");
}

// ACL LOG as Redis 7 fills it: the reason, context and object of each refusal, repeats counted
// on one entry, failed AUTH under the name it gave, a count, RESET, and acllog-max-len.
TEST_F(AclTest, AclLogRecordsRefusals) {
  EXPECT_EQ(Do({"ACL", "SETUSER", "ant", ">foo", "on", "+set", "+get", "+multi", "+exec",
                "+discard", "+eval", "+publish", "~object:*", "resetchannels"}),
            "+OK");
  EXPECT_EQ(Do({"AUTH", "ant", "foo"}), "+OK");
  EXPECT_NE(Do({"INCR", "object:1"}).find("NOPERM"), std::string::npos);
  EXPECT_NE(Do({"INCR", "object:1"}).find("NOPERM"), std::string::npos);
  EXPECT_NE(Do({"SET", "other", "1"}).find("NOPERM"), std::string::npos);
  EXPECT_NE(Do({"PUBLISH", "chan", "m"}).find("NOPERM"), std::string::npos);
  EXPECT_EQ(Do({"MULTI"}), "+OK");
  EXPECT_NE(Do({"TLOG", "GET", "object:1"}).find("NOPERM"), std::string::npos);
  EXPECT_EQ(Do({"DISCARD"}), "+OK");
  EXPECT_NE(Do({"EVAL", "return redis.call('incr', 'object:2')", "0"}).find("can't run"),
            std::string::npos);
  EXPECT_EQ(Do({"AUTH", "ant", "wrong"}),
            "-WRONGPASS invalid username-password pair or user is disabled.");
  EXPECT_EQ(Do({"AUTH", "default", ""}), "+OK");
  // Newest first: reason, context, object, username, count.
  const Reply log = ebb_->Cmd({"ACL", "LOG"});
  ASSERT_EQ(log.size(), 6u) << Canon(log);
  std::vector<std::string> seen;
  for (size_t i = 0; i < log.size(); i++) {
    const Reply& e = log[i];
    ASSERT_EQ(e.size(), 14u);
    EXPECT_EQ(e[0].str(), "count");
    EXPECT_EQ(e[10].str(), "age-seconds");
    EXPECT_NE(e[13].str().find("user=ant"), std::string::npos) << e[13].str();
    seen.push_back(e[3].str() + " " + e[5].str() + " " + e[7].str() + " " + e[9].str() + " " +
                   std::to_string(e[1].integer()));
  }
  EXPECT_EQ(seen,
            (std::vector<std::string>{"auth toplevel AUTH ant 1", "command lua incr ant 1",
                                      "command multi tlog|get ant 1", "channel toplevel chan ant 1",
                                      "key toplevel other ant 1", "command toplevel incr ant 2"}));
  EXPECT_EQ(ebb_->Cmd({"ACL", "LOG", "2"}).size(), 2u);
  EXPECT_EQ(Do({"ACL", "LOG", "x"}), "-ERR value is not an integer or out of range");
  EXPECT_EQ(Do({"ACL", "LOG", "1", "2"}),
            "-ERR unknown subcommand or wrong number of arguments for 'LOG'. Try ACL HELP.");
  EXPECT_EQ(Do({"CONFIG", "SET", "acllog-max-len", "2"}), "+OK");
  EXPECT_EQ(Do({"AUTH", "nobody", "x"}).substr(0, 10), "-WRONGPASS");  // a new entry trims
  EXPECT_EQ(ebb_->Cmd({"ACL", "LOG"}).size(), 2u);
  EXPECT_EQ(Do({"ACL", "LOG", "RESET"}), "+OK");
  EXPECT_EQ(Do({"ACL", "LOG"}), "[]");
}

TEST_F(AclTest, SetUserIsAllOrNothingWithRedisErrors) {
  EXPECT_EQ(Do({"ACL", "SETUSER", "bob", "on", "+nosuch"}),
            "-ERR Error in ACL SETUSER modifier '+nosuch': Unknown command or category name in "
            "ACL");
  EXPECT_EQ(Do({"ACL", "GETUSER", "bob"}), "nil");  // not created
  EXPECT_EQ(Do({"ACL", "SETUSER", "bob", "on", "+@nosuch"}),
            "-ERR Error in ACL SETUSER modifier '+@nosuch': Unknown command or category name in "
            "ACL");
  EXPECT_EQ(Do({"ACL", "SETUSER", "bob", "bogus"}),
            "-ERR Error in ACL SETUSER modifier 'bogus': Syntax error");
  EXPECT_EQ(Do({"ACL", "SETUSER", "bob", "<nopw"}),
            "-ERR Error in ACL SETUSER modifier '<nopw': The password you are trying to remove "
            "from the user does not exist");
  EXPECT_EQ(Do({"ACL", "SETUSER", "bob", "#abc"}),
            "-ERR Error in ACL SETUSER modifier '#abc': The password hash must be exactly 64 "
            "characters and contain only lowercase hexadecimal characters");
  EXPECT_EQ(Do({"ACL", "SETUSER", "bob", "allkeys", "~x"}),
            "-ERR Error in ACL SETUSER modifier '~x': Adding a pattern after the * pattern (or "
            "the 'allkeys' flag) is not valid and does not have any effect. Try 'resetkeys' to "
            "start with an empty list of patterns");
  EXPECT_EQ(Do({"ACL", "SETUSER", "b ob"}),
            "-ERR Usernames can't contain spaces or null characters");
  EXPECT_EQ(Do({"ACL", "SETUSER", "bob", "on", ">a", ">b", "<a", "#" + server::Sha256Hex("c")}),
            "+OK");
  const std::string bob = Do({"ACL", "GETUSER", "bob"});
  EXPECT_NE(
      bob.find("$passwords,[$" + server::Sha256Hex("b") + ",$" + server::Sha256Hex("c") + "]"),
      std::string::npos)
      << bob;
  EXPECT_EQ(Do({"AUTH", "bob", "c"}), "+OK");
  EXPECT_EQ(Do({"AUTH", "bob", "a"}),
            "-WRONGPASS invalid username-password pair or user is disabled.");
}

TEST_F(AclTest, CommandArgumentRulesAsRedisRefusesThem) {
  EXPECT_EQ(Do({"ACL", "SETUSER", "bob", "+config|get|appendonly"}),
            "-ERR Error in ACL SETUSER modifier '+config|get|appendonly': Allowing first-arg of "
            "a subcommand is not supported");
  EXPECT_EQ(Do({"ACL", "SETUSER", "bob", "+get|key1|key2"}),
            "-ERR Error in ACL SETUSER modifier '+get|key1|key2': Unknown command or category "
            "name in ACL");
  EXPECT_EQ(Do({"ACL", "SETUSER", "bob", "+config|"}),
            "-ERR Error in ACL SETUSER modifier '+config|': Syntax error");
  EXPECT_EQ(Do({"ACL", "SETUSER", "bob", "+config|asdf"}),
            "-ERR Error in ACL SETUSER modifier '+config|asdf': Unknown command or category name "
            "in ACL");
  EXPECT_EQ(Do({"ACL", "GETUSER", "bob"}), "nil");
}

// Redis lists sanitize-payload or skip-sanitize-payload only once given; `reset` gives the first.
TEST_F(AclTest, PayloadFlagsAreListedOnceSet) {
  EXPECT_EQ(Do({"ACL", "SETUSER", "a", "on"}), "+OK");
  EXPECT_EQ(Do({"ACL", "SETUSER", "b", "reset"}), "+OK");
  EXPECT_EQ(Do({"ACL", "SETUSER", "c", "skip-sanitize-payload"}), "+OK");
  EXPECT_EQ(Do({"ACL", "LIST"}),
            "[$user a on resetchannels -@all,$user b off sanitize-payload resetchannels -@all,"
            "$user c off skip-sanitize-payload resetchannels -@all,"
            "$user default on nopass ~* &* +@all]");
}

// acl-pubsub-default decides the channels of users created from then on, and of `reset`.
TEST_F(AclTest, PubsubDefaultAppliesToNewUsers) {
  EXPECT_EQ(Do({"CONFIG", "GET", "acl-pubsub-default"}), "[$acl-pubsub-default,$resetchannels]");
  EXPECT_EQ(Do({"CONFIG", "SET", "acl-pubsub-default", "allchannels"}), "+OK");
  EXPECT_EQ(Do({"ACL", "SETUSER", "all"}), "+OK");
  EXPECT_EQ(Do({"ACL", "SETUSER", "again", "reset"}), "+OK");
  EXPECT_EQ(Do({"ACL", "SETUSER", "more", "&news"}),
            "-ERR Error in ACL SETUSER modifier '&news': Adding a pattern after the * pattern (or "
            "the 'allchannels' flag) is not valid and does not have any effect. Try "
            "'resetchannels' to start with an empty list of channels");
  EXPECT_EQ(Do({"CONFIG", "SET", "acl-pubsub-default", "resetchannels"}), "+OK");
  EXPECT_EQ(Do({"ACL", "SETUSER", "none"}), "+OK");
  EXPECT_EQ(Do({"ACL", "LIST"}),
            "[$user again off sanitize-payload &* -@all,$user all off &* -@all,"
            "$user default on nopass ~* &* +@all,$user none off resetchannels -@all]");
  EXPECT_EQ(Do({"CONFIG", "SET", "acl-pubsub-default", "some"}).rfind("-ERR", 0), 0u);
}

// ACL SETUSER disconnects the user's subscribers to what it may no longer access, and keeps
// those whose subscriptions its new rules still allow.
TEST_F(AclTest, RevokedChannelsDisconnectSubscribers) {
  EXPECT_EQ(Do({"ACL", "SETUSER", "sub", "on", "nopass", "+@all", "&news", "&alerts.*"}), "+OK");
  const size_t reader = ebb_->AddClient();
  const size_t watcher = ebb_->AddClient();
  EXPECT_EQ(DoAs(reader, {"AUTH", "sub", "x"}), "+OK");
  EXPECT_EQ(DoAs(watcher, {"AUTH", "sub", "x"}), "+OK");
  EXPECT_EQ(DoAs(reader, {"SUBSCRIBE", "news"}), "[$subscribe,$news,:1]");
  EXPECT_EQ(DoAs(watcher, {"PSUBSCRIBE", "alerts.*"}), "[$psubscribe,$alerts.*,:1]");
  auto closing = [&] {
    std::vector<size_t> ids;
    for (const auto& [id, client] : ebb_->context().clients().all()) {
      if (client->close_requested()) ids.push_back(id);
    }
    return ids.size();
  };
  EXPECT_EQ(Do({"ACL", "SETUSER", "sub", "&more"}), "+OK");  // a superset: nobody goes
  EXPECT_EQ(closing(), 0u);
  EXPECT_EQ(Do({"ACL", "SETUSER", "sub", "resetchannels", "&alerts.*"}), "+OK");
  EXPECT_EQ(closing(), 1u);  // the reader of news
  EXPECT_EQ(Do({"ACL", "SETUSER", "sub", "resetchannels", "&alerts.1"}), "+OK");
  EXPECT_EQ(closing(), 2u);  // a pattern must be allowed literally
}

TEST_F(AclTest, RequirepassIsTheDefaultUsersPassword) {
  EXPECT_EQ(Do({"AUTH", "x"}),
            "-ERR AUTH <password> called without any password configured for the default user. "
            "Are you sure your configuration is correct?");
  const size_t before = ebb_->AddClient();
  EXPECT_EQ(Do({"CONFIG", "SET", "requirepass", "s3cret"}), "+OK");
  // As Redis: clients connected while no password was needed stay authenticated as `default`.
  EXPECT_EQ(DoAs(before, {"GET", "k"}), "nil");
  const size_t other = ebb_->AddClient();
  EXPECT_EQ(DoAs(other, {"GET", "k"}), "-NOAUTH Authentication required.");
  EXPECT_EQ(DoAs(other, {"AUTH", "wrong"}),
            "-WRONGPASS invalid username-password pair or user is disabled.");
  EXPECT_EQ(DoAs(other, {"AUTH", "default", "s3cret"}), "+OK");
  EXPECT_EQ(DoAs(other, {"GET", "k"}), "nil");
  EXPECT_EQ(Do({"ACL", "GETUSER", "default"}).find("$nopass"), std::string::npos);
  EXPECT_EQ(Do({"CONFIG", "SET", "requirepass", ""}), "+OK");
  EXPECT_EQ(Do({"ACL", "LIST"}), "[$user default on nopass ~* &* +@all]");
  // Turning the default user off makes every new client authenticate.
  EXPECT_EQ(Do({"ACL", "SETUSER", "default", "off"}), "+OK");
  const size_t fresh = ebb_->AddClient();
  EXPECT_EQ(DoAs(fresh, {"PING"}), "-NOAUTH Authentication required.");
  EXPECT_EQ(DoAs(fresh, {"HELLO", "3"}),
            "-NOAUTH HELLO must be called with the client already authenticated, otherwise the "
            "HELLO <proto> AUTH <user> <pass> option can be used to authenticate the client and "
            "select the RESP protocol version at the same time");
}

TEST_F(AclTest, DelUserDisconnectsItsClients) {
  EXPECT_EQ(Do({"ACL", "SETUSER", "temp", "on", ">pw", "+@all", "allkeys"}), "+OK");
  const size_t other = ebb_->AddClient();
  EXPECT_EQ(DoAs(other, {"AUTH", "temp", "pw"}), "+OK");
  const std::string list = DoAs(other, {"CLIENT", "LIST"});
  EXPECT_NE(list.find(" user=temp "), std::string::npos) << list;
  EXPECT_EQ(Do({"ACL", "DELUSER", "temp", "nosuch"}), ":1");
  EXPECT_EQ(Do({"ACL", "DELUSER", "default"}), "-ERR The 'default' user cannot be removed");
  EXPECT_EQ(Do({"ACL", "USERS"}), "[$default]");
  size_t closing = 0;
  for (const auto& [id, client] : ebb_->context().clients().all()) {
    closing += client->close_requested() ? 1 : 0;
    EXPECT_TRUE(client->user() == nullptr || client->user()->name() == "default");
  }
  EXPECT_EQ(closing, 1u);
}

TEST_F(AclTest, CatGenpassDryrun) {
  const std::string cats = Do({"ACL", "CAT"});
  for (const char* c : {"$keyspace", "$read", "$write", "$string", "$pubsub", "$admin", "$fast",
                        "$slow", "$dangerous", "$connection", "$transaction", "$scripting", "$hash",
                        "$tlog", "$treg", "$timeseries"}) {
    EXPECT_NE(cats.find(c), std::string::npos) << c;
  }
  const std::string tlog = Do({"ACL", "CAT", "tlog"});
  EXPECT_NE(tlog.find("$tlog|ins"), std::string::npos) << tlog;
  EXPECT_EQ(tlog.find("$get"), std::string::npos) << tlog;
  EXPECT_EQ(Do({"ACL", "CAT", "hash"}), "[]");
  EXPECT_EQ(Do({"ACL", "CAT", "nope"}), "-ERR Unknown category 'nope'");
  EXPECT_EQ(Do({"ACL", "GENPASS"}).size(), 1u + 64u);
  EXPECT_EQ(Do({"ACL", "GENPASS", "5"}).size(), 1u + 2u);
  EXPECT_EQ(Do({"ACL", "GENPASS", "0"}),
            "-ERR ACL GENPASS argument must be the number of bits for the output password, a "
            "positive number up to 4096");
  EXPECT_NE(Do({"ACL", "GENPASS"}), Do({"ACL", "GENPASS"}));
  EXPECT_EQ(Do({"ACL", "SETUSER", "r", "on", "~a*", "+get"}), "+OK");
  EXPECT_EQ(Do({"ACL", "DRYRUN", "r", "GET", "abc"}), "+OK");
  EXPECT_EQ(Do({"ACL", "DRYRUN", "r", "SET", "abc", "1"}),
            "$This user has no permissions to run the 'set' command");
  EXPECT_EQ(Do({"ACL", "DRYRUN", "r", "GET", "zzz"}),
            "$This user has no permissions to access the 'zzz' key");
  EXPECT_EQ(Do({"ACL", "SETUSER", "r", "+publish", "&news"}), "+OK");
  EXPECT_EQ(Do({"ACL", "DRYRUN", "r", "PUBLISH", "sports", "m"}),
            "$This user has no permissions to access the 'sports' channel");
  EXPECT_EQ(Do({"ACL", "CAT", "read", "write"}),
            "-ERR unknown subcommand or wrong number of arguments for 'CAT'. Try ACL HELP.");
  EXPECT_EQ(Do({"ACL", "DRYRUN", "nobody", "GET", "a"}), "-ERR User 'nobody' not found");
  EXPECT_EQ(Do({"ACL", "DRYRUN", "r", "NOPE"}), "-ERR Command 'NOPE' not found");
  EXPECT_EQ(Do({"ACL", "SAVE"})
                .rfind("-ERR This Redis instance is not configured to use an ACL "
                       "file.",
                       0),
            0u);
}

TEST_F(AclTest, ScriptsRunWithTheirCallersPermissions) {
  EXPECT_EQ(Do({"ACL", "SETUSER", "s", "on", "nopass", "~k*", "+eval", "+get"}), "+OK");
  EXPECT_EQ(Do({"AUTH", "s", "x"}), "+OK");
  EXPECT_EQ(Do({"EVAL", "return redis.call('GET', KEYS[1])", "1", "k1"}), "nil");
  const std::string denied = Do({"EVAL", "return redis.call('SET', KEYS[1], 'v')", "1", "k1"});
  EXPECT_NE(denied.find("The user executing the script can't run this command or subcommand"),
            std::string::npos)
      << denied;
  // redis.acl_check_cmd asks the same question without running the command.
  EXPECT_EQ(Do({"EVAL", "return redis.acl_check_cmd('get', 'k1')", "0"}), ":1");
  EXPECT_EQ(Do({"EVAL", "return redis.acl_check_cmd('set', 'k1', 'v')", "0"}), "nil");
  EXPECT_EQ(Do({"EVAL", "return redis.acl_check_cmd('get', 'zz')", "0"}), "nil");
  // The keys a script declares are checked before it runs, as any command's keys are.
  EXPECT_EQ(Do({"EVAL", "return 1", "2", "k1", "zz"}),
            "-NOPERM this user has no permissions to access one of the keys used as arguments");
  const std::string key = Do({"EVAL", "return redis.call('GET', 'other')", "0"});
  EXPECT_NE(key.find("can't access at least one of the keys mentioned in the command arguments"),
            std::string::npos)
      << key;
}

// Redis's ACLStringHasSpaces: whitespace or NUL in a key or channel pattern is a syntax error,
// in a user name its own error; nothing is changed.
TEST_F(AclTest, PatternsAndNamesWithSpacesAreRefused) {
  for (const std::string& rule :
       {std::string("~a\nuser evil on nopass ~* &*"), std::string("~a b"), std::string("%R~a\tb"),
        std::string("~a\rb"), std::string("~a\0b", 4), std::string("&c\nuser evil"),
        std::string("&c d"), std::string("&c\vd")}) {
    std::string shown = rule;  // a reply line shows a line break as a space
    std::replace(shown.begin(), shown.end(), '\n', ' ');
    std::replace(shown.begin(), shown.end(), '\r', ' ');
    EXPECT_EQ(Do({"ACL", "SETUSER", "eve", "on", rule}),
              "-ERR Error in ACL SETUSER modifier '" + shown + "': Syntax error");
  }
  EXPECT_EQ(Do({"ACL", "SETUSER", "e\nve"}),
            "-ERR Usernames can't contain spaces or null characters");
  EXPECT_EQ(Do({"ACL", "SETUSER", "e\tve"}),
            "-ERR Usernames can't contain spaces or null characters");
  EXPECT_EQ(Do({"ACL", "SETUSER", std::string("e\0ve", 4)}),
            "-ERR Usernames can't contain spaces or null characters");
  EXPECT_EQ(Do({"ACL", "USERS"}), "[$default]");
}

// A transaction's commands are checked again when EXEC runs them: one the user may no longer run
// answers Redis's NOPERM in its place; the others run.
TEST_F(AclTest, ExecChecksTheRulesAsTheyAreNow) {
  EXPECT_EQ(Do({"SET", "keep", "1"}), "+OK");
  EXPECT_EQ(Do({"ACL", "SETUSER", "low", "on", "nopass", "allkeys", "allchannels", "+@all"}),
            "+OK");
  const size_t low = ebb_->AddClient();
  EXPECT_EQ(DoAs(low, {"AUTH", "low", "x"}), "+OK");
  EXPECT_EQ(DoAs(low, {"MULTI"}), "+OK");
  EXPECT_EQ(DoAs(low, {"SET", "other", "1"}), "+QUEUED");
  EXPECT_EQ(DoAs(low, {"FLUSHDB"}), "+QUEUED");
  EXPECT_EQ(DoAs(low, {"PUBLISH", "news", "m"}), "+QUEUED");
  EXPECT_EQ(DoAs(low, {"SET", "k1", "v"}), "+QUEUED");
  EXPECT_EQ(Do({"ACL", "SETUSER", "low", "resetkeys", "~k*", "resetchannels", "-flushdb"}), "+OK");
  const std::string changed =
      "-NOPERM ACLs rules changed between the moment the transaction was accumulated and the "
      "EXEC call. This command is no longer allowed for the following reason: ";
  EXPECT_EQ(DoAs(low, {"EXEC"}),
            "[" + changed + "no permission to touch the specified keys," + changed +
                "no permission to execute the command or subcommand," + changed +
                "no permission to access one of the channels used as arguments,+OK]");
  EXPECT_EQ(Do({"EXISTS", "keep", "other", "k1"}), ":2");
}

// ACL SAVE writes ACL LIST's lines to the aclfile; ACL LOAD replaces every user with the file's,
// all or nothing, disconnecting the clients of replaced users.
class AclFileTest : public CommandTest {
 protected:
  std::vector<std::string> RunnerOptions() const override { return {"--aclfile", Path()}; }
  void TearDown() override { std::remove(Path().c_str()); }
  static std::string Path() { return ProcessTempPath("ebb-acl-test-users", "acl"); }
};

TEST_F(AclFileTest, SaveThenLoad) {
  std::remove(Path().c_str());
  EXPECT_EQ(Do({"ACL", "LOAD"}).rfind("-ERR Error loading ACLs, opening file '" + Path() + "'", 0),
            0u);
  EXPECT_EQ(Do({"ACL", "SETUSER", "alice", "on", ">pw", "~a:*", "+get"}), "+OK");
  EXPECT_EQ(Do({"ACL", "SAVE"}), "+OK");
  std::ifstream in(Path());
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_EQ(text.str(), "user alice on #" + server::Sha256Hex("pw") +
                            " ~a:* resetchannels -@all +get\n"
                            "user default on nopass ~* &* +@all\n");
  EXPECT_EQ(Do({"ACL", "SETUSER", "bob", "on", "nopass"}), "+OK");
  const size_t bobs = ebb_->AddClient();
  EXPECT_EQ(DoAs(bobs, {"AUTH", "bob", "x"}), "+OK");
  EXPECT_EQ(Do({"ACL", "LOAD"}), "+OK");
  EXPECT_EQ(Do({"ACL", "USERS"}), "[$alice,$default]");
  EXPECT_EQ(Do({"AUTH", "alice", "pw"}), "+OK");
  // A bad line changes nothing and names its place.
  std::ofstream(Path()) << "user carol on\nuser dave +nosuch\nbogus\n";
  EXPECT_EQ(Do({"AUTH", "default", "x"}), "+OK");
  EXPECT_EQ(Do({"ACL", "LOAD"}),
            "-ERR " + Path() +
                ":2: Error in applying operation '+nosuch': Unknown command or "
                "category name in ACL. " +
                Path() +
                ":3 should start with user keyword followed by the username. WARNING: ACL errors "
                "detected, no change to the previously active ACL rules was performed");
  EXPECT_EQ(Do({"ACL", "USERS"}), "[$alice,$default]");
}

TEST_F(AclFileTest, SelectorsAreSavedAndLoaded) {
  EXPECT_EQ(Do({"ACL", "SETUSER", "bob", "on", "+@list", "(+set %W~w*)", "(+get", "%R~r*)"}),
            "+OK");
  const std::string before = Do({"ACL", "GETUSER", "bob"});
  EXPECT_EQ(Do({"ACL", "SAVE"}), "+OK");
  EXPECT_EQ(Do({"ACL", "DELUSER", "bob"}), ":1");
  EXPECT_EQ(Do({"ACL", "LOAD"}), "+OK");
  EXPECT_EQ(Do({"ACL", "GETUSER", "bob"}), before);
  std::ofstream(Path()) << "user carol on (+get ~a\n";
  EXPECT_EQ(Do({"ACL", "LOAD"}),
            "-ERR " + Path() +
                ":1: Unmatched parenthesis in selector definition.WARNING: ACL errors detected, "
                "no change to the previously active ACL rules was performed");
}

// A rule cannot smuggle a line into the aclfile: what ACL SAVE writes, ACL LOAD reads back as
// the same users.
TEST_F(AclFileTest, NoRuleAddsALineToTheFile) {
  EXPECT_NE(Do({"ACL", "SETUSER", "alice", "on", "nopass", "~a\nuser evil on nopass ~* &*"}),
            "+OK");
  EXPECT_NE(Do({"ACL", "SETUSER", "alice", "on", "nopass", "&c\nuser evil on nopass ~* &*"}),
            "+OK");
  EXPECT_EQ(Do({"ACL", "SETUSER", "alice", "on", ">pw", "~a:*", "&c"}), "+OK");
  EXPECT_EQ(Do({"ACL", "SAVE"}), "+OK");
  EXPECT_EQ(Do({"ACL", "LOAD"}), "+OK");
  EXPECT_EQ(Do({"ACL", "USERS"}), "[$alice,$default]");
}

}  // namespace
}  // namespace ebb::test
