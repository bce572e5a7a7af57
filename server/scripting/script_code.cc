#include "server/scripting/script_code.h"

#include "server/core/errors.h"

namespace ebb::server::scripting {

std::string ScriptErrorText(const Result<ScriptCode>& r) {
  const std::string& detail = r.detail();
  switch (r.code()) {
    case ScriptCode::kOk:
      break;
    case ScriptCode::kInvalidShebang:
      return std::string(kInvalidScriptShebang);
    case ScriptCode::kInvalidShebangEngine:
      return std::string(kInvalidShebangEngine);
    case ScriptCode::kUnexpectedShebangEngine:
      return UnexpectedShebangEngineError(detail);
    case ScriptCode::kUnknownShebangOption:
      return UnknownShebangOptionError(detail);
    case ScriptCode::kUnexpectedShebangFlag:
      return UnexpectedShebangFlagError(detail);
    case ScriptCode::kScriptCompile:
      return ScriptCompileError(detail);
    case ScriptCode::kMissingLibraryMetadata:
      return std::string(kMissingLibraryMetadata);
    case ScriptCode::kInvalidLibraryMetadata:
      return std::string(kInvalidLibraryMetadata);
    case ScriptCode::kLibraryNameTwice:
      return std::string(kLibraryNameTwice);
    case ScriptCode::kInvalidMetadataValue:
      return InvalidMetadataValueError(detail);
    case ScriptCode::kLibraryNameMissing:
      return std::string(kLibraryNameMissing);
    case ScriptCode::kInvalidLibraryName:
      return std::string(kInvalidLibraryName);
    case ScriptCode::kEngineNotFound:
      return EngineNotFoundError(detail);
    case ScriptCode::kLibraryExistsOnLoad:
      return LibraryExistsQuotedError(detail);
    case ScriptCode::kFunctionCompile:
      return FunctionCompileError(detail);
    case ScriptCode::kRegisteringFunctions:
      return RegisteringFunctionsError(detail);
    case ScriptCode::kNoFunctionsRegistered:
      return std::string(kNoFunctionsRegistered);
    case ScriptCode::kFunctionExists:
      return FunctionExistsError(detail);
    case ScriptCode::kLibraryNotFound:
      return std::string(kLibraryNotFound);
    case ScriptCode::kBadDumpPayload:
      return std::string(kBadDumpPayload);
    case ScriptCode::kLibraryExistsOnRestore:
      return LibraryExistsError(detail);
    case ScriptCode::kLibrariesNotSaved:
      return MisconfError(detail);
    case ScriptCode::kLibrariesNotOpened:
      return detail;
  }
  return {};
}

}  // namespace ebb::server::scripting
