// ScriptEngine's functions: FUNCTION LOAD's libraries, redis.register_function, FCALL, and the
// engine row that keeps the libraries (script_engine.h, "Functions"; docs/scripting.md).
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <cstring>

extern "C" {
#include <lauxlib.h>
#include <lua.h>
}

#include "protocol/split_args.h"
#include "server/core/client.h"
#include "server/core/command.h"
#include "server/core/errors.h"
#include "server/scripting/lua_registry.h"
#include "server/scripting/lua_values.h"
#include "server/scripting/script_engine.h"
#include "server/services/server_context.h"
#include "storage/env/file.h"
#include "storage/util/coding.h"
#include "storage/util/crc32c.h"
#include "types/keyspace.h"

namespace ebb::server::scripting {

namespace {

// Library code that runs longer than this while loading is stopped (Redis's LOAD_TIMEOUT_MS).
constexpr std::chrono::milliseconds kLoadTimeout{500};

constexpr std::string_view kDumpMagic = "EBBFUNC";
constexpr char kDumpVersion = 1;

bool ValidName(std::string_view name) {
  if (name.empty()) return false;
  return std::all_of(name.begin(), name.end(),
                     [](unsigned char c) { return std::isalnum(c) || c == '_'; });
}

// Function names are case-insensitive, as in Redis.
std::string Lower(std::string_view name) {
  std::string lower(name);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return lower;
}

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

ScriptEngine::LoadState* CurrentLoad(lua_State* L) {
  lua_pushlightuserdata(L, &kLoadKey);
  lua_rawget(L, LUA_REGISTRYINDEX);
  auto* load = static_cast<ScriptEngine::LoadState*>(lua_touserdata(L, -1));
  lua_pop(L, 1);
  return load;
}

void LoadHook(lua_State* L, lua_Debug*) {
  ScriptEngine::LoadState* load = CurrentLoad(L);
  if (load == nullptr || std::chrono::steady_clock::now() - load->start < kLoadTimeout) return;
  // Every line from now on raises again, so pcall inside the library cannot swallow it.
  lua_sethook(L, LoadHook, LUA_MASKLINE, 0);
  RaiseError(L, "FUNCTION LOAD timeout");
}

// Reads the flags table on the top of the stack (strings naming ScriptFlag) into *flags, leaving
// the stack as it was. Returns the error message, or nullptr.
const char* ReadRegistrationFlags(lua_State* L, uint32_t* flags) {
  for (int i = 1;; ++i) {
    lua_rawgeti(L, -1, i);
    if (lua_isnil(L, -1)) {
      lua_pop(L, 1);
      return nullptr;
    }
    const std::optional<ScriptFlag> flag =
        lua_type(L, -1) == LUA_TSTRING ? ScriptFlagNamed(lua_tostring(L, -1)) : std::nullopt;
    lua_pop(L, 1);
    if (!flag) return "unknown flag given";
    *flags |= *flag;
  }
}

// Reads one named argument of redis.register_function's table, its key and value on the top of
// the stack, into *f. Pops the value when it returns nullptr; leaves both for an error message.
const char* ReadNamedRegistrationArgument(lua_State* L, std::string_view key,
                                          ScriptEngine::Function* f, bool* has_name,
                                          bool* has_callback) {
  if (EqualsIgnoreCase(key, "function_name")) {
    if (!lua_isstring(L, -1)) {
      return "function_name argument given to redis.register_function must be a string";
    }
    size_t length = 0;
    const char* name = lua_tolstring(L, -1, &length);
    f->name.assign(name, length);
    *has_name = true;
  } else if (EqualsIgnoreCase(key, "description")) {
    if (!lua_isstring(L, -1)) {
      return "description argument given to redis.register_function must be a string";
    }
    f->description = lua_tostring(L, -1);
  } else if (EqualsIgnoreCase(key, "callback")) {
    if (!lua_isfunction(L, -1)) {
      return "callback argument given to redis.register_function must be a function";
    }
    if (*has_callback) luaL_unref(L, LUA_REGISTRYINDEX, f->ref);
    f->ref = luaL_ref(L, LUA_REGISTRYINDEX);  // pops the value
    *has_callback = true;
    return nullptr;
  } else if (EqualsIgnoreCase(key, "flags")) {
    if (!lua_istable(L, -1)) {
      return "flags argument to redis.register_function must be a table representing "
             "function flags";
    }
    if (const char* error = ReadRegistrationFlags(L, &f->flags)) return error;
  } else {
    return "unknown argument given to redis.register_function";
  }
  lua_pop(L, 1);
  return nullptr;
}

// Reads redis.register_function's arguments into *f (its callback referenced in the registry).
// Returns the error message, or nullptr. Holds no C++ object across a Lua error: the caller
// raises after it returns.
const char* ReadRegistration(lua_State* L, ScriptEngine::Function* f, bool* has_callback) {
  const int argc = lua_gettop(L);
  if (argc < 1 || argc > 2) return "wrong number of arguments to redis.register_function";
  if (argc == 2) {
    if (!lua_isstring(L, 1)) return "first argument to redis.register_function must be a string";
    if (!lua_isfunction(L, 2)) {
      return "second argument to redis.register_function must be a function";
    }
    size_t length = 0;
    const char* name = lua_tolstring(L, 1, &length);
    f->name.assign(name, length);
    f->ref = luaL_ref(L, LUA_REGISTRYINDEX);
    *has_callback = true;
    return nullptr;
  }
  if (!lua_istable(L, 1)) {
    return "calling redis.register_function with a single argument is only applicable to Lua "
           "table (representing named arguments).";
  }
  bool has_name = false;
  lua_pushnil(L);
  while (lua_next(L, 1)) {
    if (lua_type(L, -2) != LUA_TSTRING) {
      lua_pop(L, 2);
      return "named argument key given to redis.register_function is not a string";
    }
    const std::string_view key = lua_tostring(L, -2);
    if (const char* error = ReadNamedRegistrationArgument(L, key, f, &has_name, has_callback)) {
      lua_pop(L, 2);
      return error;
    }
  }
  if (!has_name) return "redis.register_function must get a function name argument";
  if (!*has_callback) return "redis.register_function must get a callback argument";
  return nullptr;
}

// Points the functions' environment at the globals under `globals_key` (the loading API while a
// library loads, the running API after).
void SetFunctionGlobals(lua_State* L, char* globals_key) {
  lua_pushlightuserdata(L, &kFunctionMetaKey);
  lua_rawget(L, LUA_REGISTRYINDEX);
  lua_pushlightuserdata(L, globals_key);
  lua_rawget(L, LUA_REGISTRYINDEX);
  lua_setfield(L, -2, "__index");
  lua_pop(L, 1);
}

// Runs the compiled library code on the top of the stack, its redis.register_function calls
// adding to *library, under the load timeout. Returns lua_pcall's status (the error on the
// stack when not 0).
int RunLibraryChunk(lua_State* L, ScriptEngine::Library* library) {
  lua_pushlightuserdata(L, &kFunctionEnvKey);
  lua_rawget(L, LUA_REGISTRYINDEX);
  lua_setfenv(L, -2);
  // While the library loads, its environment reads the loading API.
  SetFunctionGlobals(L, &kLoadGlobalsKey);
  ScriptEngine::LoadState load{library, std::chrono::steady_clock::now()};
  lua_pushlightuserdata(L, &kLoadKey);
  lua_pushlightuserdata(L, &load);
  lua_rawset(L, LUA_REGISTRYINDEX);
  lua_sethook(L, LoadHook, LUA_MASKCOUNT, 100000);
  const int status = lua_pcall(L, 0, 0, 0);
  lua_sethook(L, nullptr, 0, 0);
  lua_pushlightuserdata(L, &kLoadKey);
  lua_pushnil(L);
  lua_rawset(L, LUA_REGISTRYINDEX);
  SetFunctionGlobals(L, &kRunGlobalsKey);
  return status;
}

// The message of the error a library raised while loading (on the top of the stack).
std::string LoadErrorMessage(lua_State* L) {
  std::string message;
  if (lua_istable(L, -1)) {
    lua_getfield(L, -1, "err");
    message = lua_isstring(L, -1) ? lua_tostring(L, -1) : "unknown error";
    lua_pop(L, 1);
  } else {
    message = GenericError(lua_isstring(L, -1) ? lua_tostring(L, -1) : "unknown error");
  }
  return message;
}

// Adds the registration on L's stack to `load`'s library; the error message, or nullptr.
const char* Register(lua_State* L, ScriptEngine::LoadState* load) {
  ScriptEngine::Function f;
  bool has_callback = false;
  const char* error = ReadRegistration(L, &f, &has_callback);
  if (error == nullptr && !ValidName(f.name)) {
    error =
        "Library names can only contain letters, numbers, or underscores(_) and must be at "
        "least one character long";
  }
  if (error == nullptr && load->library->functions.contains(f.name)) {
    error = "Function already exists in the library";
  }
  if (error != nullptr) {
    if (has_callback) luaL_unref(L, LUA_REGISTRYINDEX, f.ref);
    return error;
  }
  load->library->functions.emplace(f.name, std::move(f));
  return nullptr;
}

// Redis's functionExtractLibMetaData: "#!<engine> name=<library>" on the first line.
Result<ScriptCode> ParseLibraryShebang(std::string_view code, std::string* engine,
                                       std::string* name, size_t* shebang_length) {
  if (!code.starts_with("#!")) return ScriptCode::kMissingLibraryMetadata;
  const size_t end = code.find('\n');
  std::vector<std::string> parts;
  if (end == std::string_view::npos || !protocol::SplitArgs(code.substr(0, end), &parts) ||
      parts.empty()) {
    return ScriptCode::kInvalidLibraryMetadata;
  }
  *engine = parts[0].substr(2);
  bool named = false;
  for (size_t i = 1; i < parts.size(); ++i) {
    if (parts[i].size() >= 5 &&
        EqualsIgnoreCase(std::string_view(parts[i]).substr(0, 5), "name=")) {
      if (named) return ScriptCode::kLibraryNameTwice;
      *name = parts[i].substr(5);
      named = true;
      continue;
    }
    return {ScriptCode::kInvalidMetadataValue, parts[i]};
  }
  if (!named) return ScriptCode::kLibraryNameMissing;
  *shebang_length = end;
  return {};
}

// The library codes of a FUNCTION DUMP payload (DumpLibraries's format); false when it is
// damaged (its magic, version, checksum or lengths wrong).
bool SplitDumpPayload(std::string_view payload, std::vector<std::string_view>* codes) {
  if (payload.size() < kDumpMagic.size() + 1 + 4 || !payload.starts_with(kDumpMagic) ||
      payload[kDumpMagic.size()] != kDumpVersion) {
    return false;
  }
  const std::string_view body = payload.substr(0, payload.size() - 4);
  if (storage::DecodeFixed32(payload.data() + body.size()) != storage::crc32c::Value(body)) {
    return false;
  }
  std::string_view in = body.substr(kDumpMagic.size() + 1);
  uint64_t count = 0;
  if (!storage::GetVarint64(&in, &count)) return false;
  for (uint64_t i = 0; i < count; ++i) {
    uint64_t length = 0;
    if (!storage::GetVarint64(&in, &length) || length > in.size()) return false;
    codes->push_back(in.substr(0, length));
    in.remove_prefix(length);
  }
  return true;
}

}  // namespace

int ScriptEngine::RegisterFunction(lua_State* L) {
  LoadState* load = CurrentLoad(L);
  if (load == nullptr) {
    return RaiseError(L, "redis.register_function can only be called on FUNCTION LOAD command");
  }
  const char* error = Register(L, load);
  if (error != nullptr) return RaiseError(L, error);
  return 0;
}

void ScriptEngine::ReleaseLibrary(const Library& library) {
  for (const auto& [name, f] : library.functions) luaL_unref(L_, LUA_REGISTRYINDEX, f.ref);
}

void ScriptEngine::IndexFunctions() {
  function_index_.clear();
  for (const auto& [library_name, library] : libraries_) {
    for (const auto& [name, f] : library.functions) function_index_.emplace(Lower(name), &f);
  }
}

size_t ScriptEngine::function_count() const { return function_index_.size(); }

Result<ScriptCode, std::string> ScriptEngine::LoadLibraryInto(
    std::string_view code, bool replace, std::map<std::string, Library>* into) {
  std::string engine;
  std::string name;
  size_t shebang_length = 0;
  if (Result<ScriptCode> r = ParseLibraryShebang(code, &engine, &name, &shebang_length); !r.ok()) {
    return r;
  }
  if (!ValidName(name)) return ScriptCode::kInvalidLibraryName;
  if (!EqualsIgnoreCase(engine, "lua")) return {ScriptCode::kEngineNotFound, engine};
  const auto old = into->find(name);
  if (old != into->end() && !replace) return {ScriptCode::kLibraryExistsOnLoad, name};
  Library library{.name = name, .code = std::string(code)};
  lua_State* L = L_;
  lua_settop(L, 0);
  // The shebang line is left out and its newline kept, so line numbers stay the code's.
  const std::string_view body = code.substr(shebang_length);
  if (Result<ScriptCode> r = CompileChunk(L, body, "@user_function", ScriptCode::kFunctionCompile);
      !r.ok()) {
    return r;
  }
  const int status = RunLibraryChunk(L, &library);
  auto fail = [&](Result<ScriptCode> error) {
    ReleaseLibrary(library);
    lua_settop(L, 0);
    return error;
  };
  if (status != 0) return fail({ScriptCode::kRegisteringFunctions, LoadErrorMessage(L)});
  lua_settop(L, 0);
  if (library.functions.empty()) return fail(ScriptCode::kNoFunctionsRegistered);
  for (const auto& [function_name, f] : library.functions) {
    for (const auto& [other_name, other] : *into) {
      if (other_name != name && other.functions.contains(function_name)) {
        return fail({ScriptCode::kFunctionExists, function_name});
      }
    }
  }
  if (old != into->end()) {
    ReleaseLibrary(old->second);
    into->erase(old);
  }
  into->emplace(name, std::move(library));
  return name;
}

Result<ScriptCode, std::string> ScriptEngine::LoadLibrary(std::string_view code, bool replace) {
  const std::string before = DumpLibraries();
  Result<ScriptCode, std::string> loaded = LoadLibraryInto(code, replace, &libraries_);
  if (!loaded.ok()) return loaded;
  IndexFunctions();
  if (Result<ScriptCode> saved = Persist(before); !saved.ok()) return saved;
  return loaded;
}

Result<ScriptCode> ScriptEngine::DeleteLibrary(std::string_view name) {
  const auto it = libraries_.find(std::string(name));
  if (it == libraries_.end()) return ScriptCode::kLibraryNotFound;
  const std::string before = DumpLibraries();
  ReleaseLibrary(it->second);
  libraries_.erase(it);
  IndexFunctions();
  return Persist(before);
}

Result<ScriptCode> ScriptEngine::FlushLibraries() {
  const std::string before = DumpLibraries();
  for (const auto& [name, library] : libraries_) ReleaseLibrary(library);
  libraries_.clear();
  Rebuild();  // a fresh Lua state: nothing a library did to the old one survives
  return Persist(before);
}

std::string ScriptEngine::DumpLibraries() const {
  std::string out(kDumpMagic);
  out.push_back(kDumpVersion);
  storage::PutVarint64(&out, libraries_.size());
  for (const auto& [name, library] : libraries_) {
    storage::PutVarint64(&out, library.code.size());
    out.append(library.code);
  }
  storage::PutFixed32(&out, storage::crc32c::Value(out));
  return out;
}

Result<ScriptCode> ScriptEngine::RestoreLibraries(std::string_view payload, RestorePolicy policy) {
  std::vector<std::string_view> codes;
  if (!SplitDumpPayload(payload, &codes)) return ScriptCode::kBadDumpPayload;
  std::map<std::string, Library> loaded;
  auto release = [&] {
    for (const auto& [name, library] : loaded) ReleaseLibrary(library);
  };
  for (std::string_view code : codes) {
    Result<ScriptCode, std::string> library = LoadLibraryInto(code, false, &loaded);
    if (!library.ok()) {
      release();
      return library.failure();
    }
  }
  const std::string before = DumpLibraries();
  if (policy == RestorePolicy::kFlush) {
    for (const auto& [name, library] : libraries_) ReleaseLibrary(library);
    libraries_ = std::move(loaded);
  } else {
    // Redis's libraryJoin: a library of the same name is an error (APPEND) or is replaced
    // (REPLACE); a function another library already has is an error either way.
    for (const auto& [name, library] : loaded) {
      if (policy == RestorePolicy::kAppend && libraries_.contains(name)) {
        release();
        return {ScriptCode::kLibraryExistsOnRestore, name};
      }
      for (const auto& [function_name, f] : library.functions) {
        for (const auto& [other_name, other] : libraries_) {
          if (other_name != name && other.functions.contains(function_name)) {
            release();
            return {ScriptCode::kFunctionExists, function_name};
          }
        }
      }
    }
    for (auto& [name, library] : loaded) {
      const auto old = libraries_.find(name);
      if (old != libraries_.end()) {
        ReleaseLibrary(old->second);
        libraries_.erase(old);
      }
      libraries_.emplace(name, std::move(library));
    }
  }
  IndexFunctions();
  return Persist(before);
}

Result<ScriptCode> ScriptEngine::OpenLibraries(const std::string& legacy_file) {
  persist_ = false;  // nothing is written while the libraries load
  types::Keyspace& keyspace = server_->keyspace();
  std::string payload;
  storage::Status s = keyspace.GetSystemRow(types::Keyspace::kFunctionLibrariesRow, &payload);
  if (s.ok()) {
    if (Result<ScriptCode> r = RestoreLibraries(payload, RestorePolicy::kFlush); !r.ok()) {
      return {ScriptCode::kLibrariesNotOpened, "the function libraries row: " + ScriptErrorText(r)};
    }
    persist_ = true;
    return {};
  }
  if (!s.IsNotFound()) {
    return {ScriptCode::kLibrariesNotOpened,
            "cannot read the function libraries row: " + s.ToString()};
  }
  const auto fs = storage::DefaultFileSystem();
  if (!fs->FileExists(legacy_file)) {
    persist_ = true;
    return {};
  }
  // An older ebb's functions file: the same payload. Moved into the row, then removed.
  std::unique_ptr<storage::SequentialFile> file;
  s = fs->NewSequentialFile(legacy_file, &file);
  std::vector<char> scratch(1 << 16);
  while (s.ok()) {
    std::string_view chunk;
    s = file->Read(scratch.size(), &chunk, scratch.data());
    if (!s.ok() || chunk.empty()) break;
    payload.append(chunk);
  }
  if (!s.ok()) {
    return {ScriptCode::kLibrariesNotOpened, "cannot read " + legacy_file + ": " + s.ToString()};
  }
  if (Result<ScriptCode> r = RestoreLibraries(payload, RestorePolicy::kFlush); !r.ok()) {
    return {ScriptCode::kLibrariesNotOpened, legacy_file + ": " + ScriptErrorText(r)};
  }
  persist_ = true;
  s = SaveLibraries();
  if (s.ok()) s = fs->RemoveFile(legacy_file);
  if (!s.ok()) {
    return {ScriptCode::kLibrariesNotOpened,
            "moving " + legacy_file + " into the engine: " + s.ToString()};
  }
  spdlog::info("Moved the function libraries of {} into the engine", legacy_file);
  return {};
}

void ScriptEngine::ReloadLibraries() {
  std::string payload;
  storage::Status s =
      server_->keyspace().GetSystemRow(types::Keyspace::kFunctionLibrariesRow, &payload);
  if (s.IsNotFound()) {  // the master has none
    for (const auto& [name, library] : libraries_) ReleaseLibrary(library);
    libraries_.clear();
    IndexFunctions();
    return;
  }
  if (!s.ok()) {
    spdlog::error("Cannot read the function libraries row: {}", s.ToString());
    return;
  }
  if (payload == DumpLibraries()) return;
  const bool persist = persist_;
  persist_ = false;  // the row already holds them
  if (Result<ScriptCode> r = RestoreLibraries(payload, RestorePolicy::kFlush); !r.ok()) {
    spdlog::error("Cannot load the function libraries row: {}", ScriptErrorText(r));
  }
  persist_ = persist;
}

Result<ScriptCode> ScriptEngine::Persist(const std::string& before) {
  const storage::Status s = SaveLibraries();
  if (s.ok()) return {};
  spdlog::error("Cannot write the function libraries: {}", s.ToString());
  const Result<ScriptCode> failure(ScriptCode::kLibrariesNotSaved, s.message());
  // The libraries follow the row, so that a restart finds what the server shows. The row holds
  // the change when the write reached the engine and only its sync failed (it then survives a
  // restart, as any write meeting that fault does); otherwise it still holds `before`, which
  // loads again (a payload DumpLibraries made) without being written again.
  std::string row;
  if (server_->keyspace().GetSystemRow(types::Keyspace::kFunctionLibrariesRow, &row).ok() &&
      row == DumpLibraries()) {
    return failure;
  }
  persist_ = false;
  (void)RestoreLibraries(before, RestorePolicy::kFlush);
  persist_ = true;
  return failure;
}

storage::Status ScriptEngine::SaveLibraries() {
  if (!persist_) return storage::Status::OK();
  return server_->keyspace().PutSystemRow(types::Keyspace::kFunctionLibrariesRow, DumpLibraries());
}

void ScriptEngine::CallFunction(CommandContext& ctx, std::string_view name, bool read_only,
                                std::span<const std::string_view> keys,
                                std::span<const std::string_view> args) {
  const auto it = function_index_.find(Lower(name));
  if (it == function_index_.end()) return ctx.reply.Error(kFunctionNotFound);
  const Function& f = *it->second;
  if (!MayRun(ctx, f.flags, read_only)) return;
  RunState run{.engine = this,
               .ctx = &ctx,
               .read_only = read_only || (f.flags & kScriptNoWrites) != 0,
               .allow_oom = (f.flags & kScriptAllowOom) != 0,
               .allow_cross_slot = (f.flags & kScriptAllowCrossSlot) != 0,
               .db = ctx.client.db_index(),
               .eval = false};
  lua_State* L = L_;
  lua_settop(L, 0);
  lua_pushlightuserdata(L, &kHandlerKey);
  lua_rawget(L, LUA_REGISTRYINDEX);
  lua_rawgeti(L, LUA_REGISTRYINDEX, f.ref);
  PushArray(L, keys);
  PushArray(L, args);
  Execute(ctx, run, 2, f.name);
  lua_settop(L, 0);
}

}  // namespace ebb::server::scripting
