#include "server/acl/acl_code.h"

#include <string_view>

#include "server/core/errors.h"

namespace ebb::server {
namespace {

// Redis's reason for refusing a rule or a user; empty for the other codes.
std::string RefusalReason(const Result<AclCode>& r) {
  switch (r.code()) {
    case AclCode::kSyntaxError:
      return std::string(kAclSyntaxError);
    case AclCode::kUnknownName:
      return std::string(kAclUnknownName);
    case AclCode::kFirstArgOfSubcommand:
      return std::string(kAclFirstArgOfSubcommand);
    case AclCode::kKeyPatternAfterAll:
      return std::string(kAclKeyPatternAfterAll);
    case AclCode::kChannelPatternAfterAll:
      return std::string(kAclChannelPatternAfterAll);
    case AclCode::kBadPasswordHash:
      return std::string(kAclBadHash);
    case AclCode::kNoSuchPassword:
      return std::string(kAclNoSuchPassword);
    case AclCode::kUserNameSpaces:
      return std::string(kAclUserNameSpaces);
    case AclCode::kUnmatchedParenthesis:
      return AclUnmatchedParenthesisError(r.detail());
    default:
      return {};
  }
}

// The refusal of a rule (detail: the rule) or of a user as a whole, as `wording` says.
std::string RefusalText(const Result<AclCode>& r, AclRuleWording wording) {
  const std::string reason = RefusalReason(r);
  const bool whole_user =
      r.code() == AclCode::kUserNameSpaces || r.code() == AclCode::kUnmatchedParenthesis;
  const std::string_view rule = whole_user ? std::string_view() : std::string_view(r.detail());
  switch (wording) {
    case AclRuleWording::kSetUserReply:
      return AclSetUserError(rule, reason);
    case AclRuleWording::kUserDeclaration:
      return whole_user ? reason : AclUserDeclarationError(rule, reason);
    case AclRuleWording::kReason:
      break;
  }
  return reason;
}

}  // namespace

std::string AclErrorText(const Result<AclCode>& r, AclRuleWording wording) {
  switch (r.code()) {
    case AclCode::kOk:
      break;
    case AclCode::kSyntaxError:
    case AclCode::kUnknownName:
    case AclCode::kFirstArgOfSubcommand:
    case AclCode::kKeyPatternAfterAll:
    case AclCode::kChannelPatternAfterAll:
    case AclCode::kBadPasswordHash:
    case AclCode::kNoSuchPassword:
    case AclCode::kUserNameSpaces:
    case AclCode::kUnmatchedParenthesis:
      return RefusalText(r, wording);
    case AclCode::kDeleteDefault:
      return std::string(kAclDeleteDefault);
    case AclCode::kAclFileUnreadable:
      return r.detail();
    case AclCode::kAclFileErrors:
      return r.detail() + std::string(kAclLoadNoChange);
    case AclCode::kSaveFailed:
      return std::string(kAclSaveFailed);
  }
  return {};
}

}  // namespace ebb::server
