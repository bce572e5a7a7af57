// ScriptCode: the outcomes of keeping scripts and function libraries (script_engine.h), and
// ScriptErrorText, the one place that turns each into the error text a client reads.
//
// ScriptEngine's functions that compile, load, delete, restore or save return Result<ScriptCode>
// (server/core/result.h). A failure's detail is the name its text quotes (an engine, a library,
// a function, a shebang flag) or free text from elsewhere: Lua's message for a script that does
// not compile or a library that raised while loading, the storage error of a failed save. The
// texts are Redis 7's, spelled in server/core/errors.h.
// Thread-safety: values and a pure function.
#pragma once

#include <string>

#include "server/core/result.h"

namespace ebb::server::scripting {

enum class ScriptCode {
  kOk,
  // A script's shebang, `#!lua flags=...` (ParseShebang).
  kInvalidShebang,           // no newline after the shebang
  kInvalidShebangEngine,     // an empty or unbalanced shebang line
  kUnexpectedShebangEngine,  // detail: the engine named
  kUnknownShebangOption,     // detail: the option
  kUnexpectedShebangFlag,    // detail: the flag
  kScriptCompile,            // detail: Lua's message
  // A library's metadata line, `#!lua name=<library>`, and its loading (FUNCTION LOAD, RESTORE).
  kMissingLibraryMetadata,
  kInvalidLibraryMetadata,
  kLibraryNameTwice,
  kInvalidMetadataValue,  // detail: the value
  kLibraryNameMissing,
  kInvalidLibraryName,
  kEngineNotFound,          // detail: the engine
  kLibraryExistsOnLoad,     // detail: the library (FUNCTION LOAD without REPLACE)
  kFunctionCompile,         // detail: Lua's message
  kRegisteringFunctions,    // detail: the error the library's code raised
  kNoFunctionsRegistered,   // the library registered none
  kFunctionExists,          // detail: the function, which another library has
  kLibraryNotFound,         // FUNCTION DELETE
  kBadDumpPayload,          // FUNCTION RESTORE: a damaged payload
  kLibraryExistsOnRestore,  // detail: the library (FUNCTION RESTORE APPEND)
  kLibrariesNotSaved,       // detail: the storage error: the engine's row could not be written
  // OpenLibraries at start: detail is the log line's reason (the row or the legacy file).
  kLibrariesNotOpened,
};

// The error text of a failure (Redis's words; "ERR ..." or "MISCONF ..."). REQUIRES: !r.ok().
std::string ScriptErrorText(const Result<ScriptCode>& r);

}  // namespace ebb::server::scripting
