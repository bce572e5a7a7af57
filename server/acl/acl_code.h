// AclCode: the outcomes of changing the ACL users (server/acl/acl.h, acl_user.h, acl_selector.h),
// and AclErrorText, the one place that words each from the constants of server/core/errors.h.
//
// A refused rule's code is Redis's reason for refusing it; Acl::SetUser and Acl::LoadConfigUsers
// pass it on with the rule as the detail, and the reporter decides the words around the reason:
//
//   Result<AclCode> r = acl.SetUser("alice", rules);
//   if (!r.ok()) return ctx.reply.Error(AclErrorText(r));
//   // "ERR Error in ACL SETUSER modifier '+nosuch': Unknown command or category name in ACL"
//   AclErrorText(r, AclRuleWording::kUserDeclaration);
//   // "Error in user declaration '+nosuch': Unknown command or category name in ACL"
//   AclErrorText(r, AclRuleWording::kReason);  // "Unknown command or category name in ACL"
//
// Thread-safety: pure functions.
#pragma once

#include <string>

#include "server/core/result.h"

namespace ebb::server {

enum class AclCode {
  kOk,
  // A rule refused (AclSelector::Apply, AclUser::Apply; detail: the rule, once Acl::SetUser or
  // Acl::LoadConfigUsers passes it on).
  kSyntaxError,
  kUnknownName,  // no command or category of that name
  kFirstArgOfSubcommand,
  kKeyPatternAfterAll,
  kChannelPatternAfterAll,
  kBadPasswordHash,
  kNoSuchPassword,
  // A user refused as a whole (Acl::SetUser, Acl::LoadConfigUsers).
  kUserNameSpaces,
  kUnmatchedParenthesis,  // detail: the argument opening the selector
  // ACL DELUSER default.
  kDeleteDefault,
  // Acl::LoadFile. Their texts are Redis's diagnostics without "ERR " (ACL LOAD's reply adds it,
  // the start logs them).
  kAclFileUnreadable,  // detail: "Error loading ACLs, opening file '<path>': <why>"
  kAclFileErrors,      // detail: each refused line's error, "<path>:<line>: <reason>. " ...
  // Acl::SaveFile (detail: what failed, for the log; the reply does not say).
  kSaveFailed,
};

// How AclErrorText words a refused rule or user (kSyntaxError to kUnmatchedParenthesis); the
// other codes have one wording.
enum class AclRuleWording {
  kSetUserReply,     // "ERR Error in ACL SETUSER modifier '<rule>': <reason>", "ERR <reason>"
  kUserDeclaration,  // the config file's: "Error in user declaration '<rule>': <reason>",
                     // "<reason>"
  kReason,           // Redis's reason alone
};

// The error text of a failure. REQUIRES: !r.ok().
std::string AclErrorText(const Result<AclCode>& r,
                         AclRuleWording wording = AclRuleWording::kSetUserReply);

}  // namespace ebb::server
