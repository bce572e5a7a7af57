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
    if (EqualsIgnoreCase(key, "function_name")) {
      if (!lua_isstring(L, -1)) {
        lua_pop(L, 2);
        return "function_name argument given to redis.register_function must be a string";
      }
      size_t length = 0;
      const char* name = lua_tolstring(L, -1, &length);
      f->name.assign(name, length);
      has_name = true;
    } else if (EqualsIgnoreCase(key, "description")) {
      if (!lua_isstring(L, -1)) {
        lua_pop(L, 2);
        return "description argument given to redis.register_function must be a string";
      }
      f->description = lua_tostring(L, -1);
    } else if (EqualsIgnoreCase(key, "callback")) {
      if (!lua_isfunction(L, -1)) {
        lua_pop(L, 2);
        return "callback argument given to redis.register_function must be a function";
      }
      if (*has_callback) luaL_unref(L, LUA_REGISTRYINDEX, f->ref);
      f->ref = luaL_ref(L, LUA_REGISTRYINDEX);  // pops the value
      *has_callback = true;
      continue;
    } else if (EqualsIgnoreCase(key, "flags")) {
      if (!lua_istable(L, -1)) {
        lua_pop(L, 2);
        return "flags argument to redis.register_function must be a table representing "
               "function flags";
      }
      for (int i = 1;; ++i) {
        lua_rawgeti(L, -1, i);
        if (lua_isnil(L, -1)) {
          lua_pop(L, 1);
          break;
        }
        const std::optional<ScriptFlag> flag =
            lua_type(L, -1) == LUA_TSTRING ? ScriptFlagNamed(lua_tostring(L, -1)) : std::nullopt;
        lua_pop(L, 1);
        if (!flag) {
          lua_pop(L, 2);
          return "unknown flag given";
        }
        f->flags |= *flag;
      }
    } else {
      lua_pop(L, 2);
      return "unknown argument given to redis.register_function";
    }
    lua_pop(L, 1);
  }
  if (!has_name) return "redis.register_function must get a function name argument";
  if (!*has_callback) return "redis.register_function must get a callback argument";
  return nullptr;
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
bool ParseLibraryShebang(std::string_view code, std::string* engine, std::string* name,
                         size_t* shebang_length, std::string* error) {
  if (!code.starts_with("#!")) {
    *error = kMissingLibraryMetadata;
    return false;
  }
  const size_t end = code.find('\n');
  std::vector<std::string> parts;
  if (end == std::string_view::npos || !protocol::SplitArgs(code.substr(0, end), &parts) ||
      parts.empty()) {
    *error = kInvalidLibraryMetadata;
    return false;
  }
  *engine = parts[0].substr(2);
  bool named = false;
  for (size_t i = 1; i < parts.size(); ++i) {
    if (parts[i].size() >= 5 &&
        EqualsIgnoreCase(std::string_view(parts[i]).substr(0, 5), "name=")) {
      if (named) {
        *error = kLibraryNameTwice;
        return false;
      }
      *name = parts[i].substr(5);
      named = true;
      continue;
    }
    *error = InvalidMetadataValueError(parts[i]);
    return false;
  }
  if (!named) {
    *error = kLibraryNameMissing;
    return false;
  }
  *shebang_length = end;
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

bool ScriptEngine::LoadLibraryInto(std::string_view code, bool replace,
                                   std::map<std::string, Library>* into, std::string* result) {
  std::string engine;
  std::string name;
  size_t shebang_length = 0;
  if (!ParseLibraryShebang(code, &engine, &name, &shebang_length, result)) return false;
  if (!ValidName(name)) {
    *result = kInvalidLibraryName;
    return false;
  }
  if (!EqualsIgnoreCase(engine, "lua")) {
    *result = EngineNotFoundError(engine);
    return false;
  }
  const auto old = into->find(name);
  if (old != into->end() && !replace) {
    *result = LibraryExistsQuotedError(name);
    return false;
  }
  Library library{.name = name, .code = std::string(code)};
  lua_State* L = L_;
  lua_settop(L, 0);
  // The shebang line is left out and its newline kept, so line numbers stay the code's.
  const std::string_view body = code.substr(shebang_length);
  if (!CompileChunk(L, body, "@user_function", "Error compiling function: ", result)) return false;
  lua_pushlightuserdata(L, &kFunctionEnvKey);
  lua_rawget(L, LUA_REGISTRYINDEX);
  lua_setfenv(L, -2);
  // While the library loads, its environment reads the loading API.
  auto see = [L](char* globals_key) {
    lua_pushlightuserdata(L, &kFunctionMetaKey);
    lua_rawget(L, LUA_REGISTRYINDEX);
    lua_pushlightuserdata(L, globals_key);
    lua_rawget(L, LUA_REGISTRYINDEX);
    lua_setfield(L, -2, "__index");
    lua_pop(L, 1);
  };
  see(&kLoadGlobalsKey);
  LoadState load{&library, std::chrono::steady_clock::now()};
  lua_pushlightuserdata(L, &kLoadKey);
  lua_pushlightuserdata(L, &load);
  lua_rawset(L, LUA_REGISTRYINDEX);
  lua_sethook(L, LoadHook, LUA_MASKCOUNT, 100000);
  const int status = lua_pcall(L, 0, 0, 0);
  lua_sethook(L, nullptr, 0, 0);
  lua_pushlightuserdata(L, &kLoadKey);
  lua_pushnil(L);
  lua_rawset(L, LUA_REGISTRYINDEX);
  see(&kRunGlobalsKey);
  auto fail = [&](std::string error) {
    ReleaseLibrary(library);
    *result = std::move(error);
    lua_settop(L, 0);
    return false;
  };
  if (status != 0) {
    std::string message;
    if (lua_istable(L, -1)) {
      lua_getfield(L, -1, "err");
      message = lua_isstring(L, -1) ? lua_tostring(L, -1) : "unknown error";
      lua_pop(L, 1);
    } else {
      message = GenericError(lua_isstring(L, -1) ? lua_tostring(L, -1) : "unknown error");
    }
    return fail(RegisteringFunctionsError(message));
  }
  lua_settop(L, 0);
  if (library.functions.empty()) return fail(std::string(kNoFunctionsRegistered));
  for (const auto& [function_name, f] : library.functions) {
    for (const auto& [other_name, other] : *into) {
      if (other_name != name && other.functions.contains(function_name)) {
        return fail(FunctionExistsError(function_name));
      }
    }
  }
  if (old != into->end()) {
    ReleaseLibrary(old->second);
    into->erase(old);
  }
  into->emplace(name, std::move(library));
  *result = name;
  return true;
}

bool ScriptEngine::LoadLibrary(std::string_view code, bool replace, std::string* result) {
  const std::string before = DumpLibraries();
  if (!LoadLibraryInto(code, replace, &libraries_, result)) return false;
  IndexFunctions();
  return Persist(before, result);
}

bool ScriptEngine::DeleteLibrary(std::string_view name, std::string* error) {
  const auto it = libraries_.find(std::string(name));
  if (it == libraries_.end()) {
    *error = kLibraryNotFound;
    return false;
  }
  const std::string before = DumpLibraries();
  ReleaseLibrary(it->second);
  libraries_.erase(it);
  IndexFunctions();
  return Persist(before, error);
}

bool ScriptEngine::FlushLibraries(std::string* error) {
  const std::string before = DumpLibraries();
  for (const auto& [name, library] : libraries_) ReleaseLibrary(library);
  libraries_.clear();
  Rebuild();  // a fresh Lua state: nothing a library did to the old one survives
  return Persist(before, error);
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

bool ScriptEngine::RestoreLibraries(std::string_view payload, RestorePolicy policy,
                                    std::string* error) {
  const std::string damaged(kBadDumpPayload);
  if (payload.size() < kDumpMagic.size() + 1 + 4 || !payload.starts_with(kDumpMagic) ||
      payload[kDumpMagic.size()] != kDumpVersion) {
    *error = damaged;
    return false;
  }
  const std::string_view body = payload.substr(0, payload.size() - 4);
  if (storage::DecodeFixed32(payload.data() + body.size()) != storage::crc32c::Value(body)) {
    *error = damaged;
    return false;
  }
  std::string_view in = body.substr(kDumpMagic.size() + 1);
  uint64_t count = 0;
  std::vector<std::string_view> codes;
  if (!storage::GetVarint64(&in, &count)) {
    *error = damaged;
    return false;
  }
  for (uint64_t i = 0; i < count; ++i) {
    uint64_t length = 0;
    if (!storage::GetVarint64(&in, &length) || length > in.size()) {
      *error = damaged;
      return false;
    }
    codes.push_back(in.substr(0, length));
    in.remove_prefix(length);
  }
  std::map<std::string, Library> loaded;
  auto release = [&] {
    for (const auto& [name, library] : loaded) ReleaseLibrary(library);
  };
  for (std::string_view code : codes) {
    std::string result;
    if (!LoadLibraryInto(code, false, &loaded, &result)) {
      release();
      *error = result;
      return false;
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
        *error = LibraryExistsError(name);
        return false;
      }
      for (const auto& [function_name, f] : library.functions) {
        for (const auto& [other_name, other] : libraries_) {
          if (other_name != name && other.functions.contains(function_name)) {
            release();
            *error = FunctionExistsError(function_name);
            return false;
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
  return Persist(before, error);
}

bool ScriptEngine::OpenLibraries(const std::string& legacy_file, std::string* error) {
  persist_ = false;  // nothing is written while the libraries load
  types::Keyspace& keyspace = server_->keyspace();
  std::string payload;
  storage::Status s = keyspace.GetSystemRow(types::Keyspace::kFunctionLibrariesRow, &payload);
  if (s.ok()) {
    if (!RestoreLibraries(payload, RestorePolicy::kFlush, error)) {
      *error = "the function libraries row: " + *error;
      return false;
    }
    persist_ = true;
    return true;
  }
  if (!s.IsNotFound()) {
    *error = "cannot read the function libraries row: " + s.ToString();
    return false;
  }
  const auto fs = storage::DefaultFileSystem();
  if (!fs->FileExists(legacy_file)) {
    persist_ = true;
    return true;
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
    *error = "cannot read " + legacy_file + ": " + s.ToString();
    return false;
  }
  if (!RestoreLibraries(payload, RestorePolicy::kFlush, error)) {
    *error = legacy_file + ": " + *error;
    return false;
  }
  persist_ = true;
  s = SaveLibraries();
  if (s.ok()) s = fs->RemoveFile(legacy_file);
  if (!s.ok()) {
    *error = "moving " + legacy_file + " into the engine: " + s.ToString();
    return false;
  }
  spdlog::info("Moved the function libraries of {} into the engine", legacy_file);
  return true;
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
  std::string error;
  if (!RestoreLibraries(payload, RestorePolicy::kFlush, &error)) {
    spdlog::error("Cannot load the function libraries row: {}", error);
  }
  persist_ = persist;
}

bool ScriptEngine::Persist(const std::string& before, std::string* error) {
  const storage::Status s = SaveLibraries();
  if (s.ok()) return true;
  spdlog::error("Cannot write the function libraries: {}", s.ToString());
  *error = MisconfError(s.message());
  // The libraries follow the row, so that a restart finds what the server shows. The row holds
  // the change when the write reached the engine and only its sync failed (it then survives a
  // restart, as any write meeting that fault does); otherwise it still holds `before`, which
  // loads again (a payload DumpLibraries made) without being written again.
  std::string row;
  if (server_->keyspace().GetSystemRow(types::Keyspace::kFunctionLibrariesRow, &row).ok() &&
      row == DumpLibraries()) {
    return false;
  }
  std::string ignored;
  persist_ = false;
  RestoreLibraries(before, RestorePolicy::kFlush, &ignored);
  persist_ = true;
  return false;
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
