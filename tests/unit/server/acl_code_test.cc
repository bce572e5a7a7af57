// AclErrorText (server/acl/acl_code.h): each outcome of changing the ACL users spelled as Redis 7
// spells it, a refused rule in each of its wordings, and the outcomes the ACL's changes return.
#include "server/acl/acl_code.h"

#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "server/acl/acl.h"
#include "server/commands/register.h"
#include "server/core/command.h"

namespace ebb::server {
namespace {

TEST(AclCodeTest, WholeUserTexts) {
  EXPECT_EQ(AclErrorText(AclCode::kDeleteDefault), "ERR The 'default' user cannot be removed");
  EXPECT_EQ(AclErrorText(AclCode::kUserNameSpaces),
            "ERR Usernames can't contain spaces or null characters");
  EXPECT_EQ(AclErrorText(AclCode::kUserNameSpaces, AclRuleWording::kUserDeclaration),
            "Usernames can't contain spaces or null characters");
  const Result<AclCode> unmatched(AclCode::kUnmatchedParenthesis, "(~a");
  EXPECT_EQ(AclErrorText(unmatched),
            "ERR Unmatched parenthesis in acl selector starting at '(~a'.");
  EXPECT_EQ(AclErrorText(unmatched, AclRuleWording::kUserDeclaration),
            "Unmatched parenthesis in acl selector starting at '(~a'.");
  EXPECT_EQ(AclErrorText(unmatched, AclRuleWording::kReason),
            "Unmatched parenthesis in acl selector starting at '(~a'.");
}

TEST(AclCodeTest, ARefusedRuleInEachWording) {
  const Result<AclCode> r(AclCode::kUnknownName, "+nosuch");
  EXPECT_EQ(AclErrorText(r),
            "ERR Error in ACL SETUSER modifier '+nosuch': Unknown command or category name in ACL");
  EXPECT_EQ(AclErrorText(r, AclRuleWording::kUserDeclaration),
            "Error in user declaration '+nosuch': Unknown command or category name in ACL");
  EXPECT_EQ(AclErrorText(r, AclRuleWording::kReason), "Unknown command or category name in ACL");
  EXPECT_EQ(AclErrorText(AclCode::kSyntaxError, AclRuleWording::kReason), "Syntax error");
  EXPECT_EQ(AclErrorText(AclCode::kNoSuchPassword, AclRuleWording::kReason),
            "The password you are trying to remove from the user does not exist");
  EXPECT_EQ(AclErrorText(AclCode::kBadPasswordHash, AclRuleWording::kReason),
            "The password hash must be exactly 64 characters and contain only lowercase "
            "hexadecimal characters");
  EXPECT_EQ(AclErrorText(AclCode::kFirstArgOfSubcommand, AclRuleWording::kReason),
            "Allowing first-arg of a subcommand is not supported");
}

TEST(AclCodeTest, FileTexts) {
  EXPECT_EQ(AclErrorText({AclCode::kAclFileUnreadable, "Error loading ACLs, opening file 'x': y"}),
            "Error loading ACLs, opening file 'x': y");
  EXPECT_EQ(AclErrorText({AclCode::kAclFileErrors, "f:1: Syntax error. "}),
            "f:1: Syntax error. WARNING: ACL errors detected, no change to the previously active "
            "ACL rules was performed");
  EXPECT_EQ(AclErrorText({AclCode::kSaveFailed, "disk full"}),
            "ERR There was an error trying to save the ACLs. Please check the server logs for "
            "more information");
}

class AclOutcomesTest : public ::testing::Test {
 protected:
  AclOutcomesTest() { RegisterAllCommands(table_); }
  CommandTable table_;
};

TEST_F(AclOutcomesTest, ApplyRefusesWithTheReasonsCode) {
  AclSelector selector(&table_, /*all_channels=*/false);
  EXPECT_EQ(selector.Apply("bogus").code(), AclCode::kSyntaxError);
  EXPECT_EQ(selector.Apply("+nosuchcommand").code(), AclCode::kUnknownName);
  EXPECT_EQ(selector.Apply("+config|get|x").code(), AclCode::kFirstArgOfSubcommand);
  EXPECT_TRUE(selector.Apply("allkeys").ok());
  EXPECT_EQ(selector.Apply("~a*").code(), AclCode::kKeyPatternAfterAll);
  EXPECT_TRUE(selector.Apply("allchannels").ok());
  EXPECT_EQ(selector.Apply("&a*").code(), AclCode::kChannelPatternAfterAll);

  AclUser user("alice", &table_);
  EXPECT_EQ(user.Apply("<missing").code(), AclCode::kNoSuchPassword);
  EXPECT_EQ(user.Apply("#abc").code(), AclCode::kBadPasswordHash);
  EXPECT_EQ(user.Apply("(~a b)").code(), AclCode::kSyntaxError);
  EXPECT_EQ(user.selectors().size(), 1u);  // the refused selector is not added
}

TEST_F(AclOutcomesTest, SetUserNamesTheRefusedRuleAndChangesNothing) {
  Acl acl(&table_);
  const std::string_view good[] = {"on", ">pw"};
  ASSERT_TRUE(acl.SetUser("alice", good).ok());
  const std::string before = acl.Find("alice")->Describe();
  const std::string_view bad[] = {"off", "+nosuch"};
  const Result<AclCode> r = acl.SetUser("alice", bad);
  EXPECT_EQ(r.code(), AclCode::kUnknownName);
  EXPECT_EQ(r.detail(), "+nosuch");
  EXPECT_EQ(acl.Find("alice")->Describe(), before);

  const std::string_view open[] = {"on", "(~a", "+get"};
  const Result<AclCode> unmatched = acl.SetUser("bob", open);
  EXPECT_EQ(unmatched.code(), AclCode::kUnmatchedParenthesis);
  EXPECT_EQ(unmatched.detail(), "(~a");
  EXPECT_EQ(acl.Find("bob"), nullptr);
  EXPECT_EQ(acl.SetUser("a b", good).code(), AclCode::kUserNameSpaces);
}

TEST_F(AclOutcomesTest, LoadFileThatCannotBeOpened) {
  Acl acl(&table_);
  const Result<AclCode> r = acl.LoadFile("/nonexistent/ebb-acl-test/users.acl", nullptr);
  EXPECT_EQ(r.code(), AclCode::kAclFileUnreadable);
  EXPECT_EQ(r.detail().rfind("Error loading ACLs, opening file '/nonexistent/ebb-acl-test/", 0), 0u)
      << r.detail();
}

}  // namespace
}  // namespace ebb::server
