// OpResult<T>: what a data-type operation returns — a value, or what went wrong as a user sees it.
//
// Every operation of Kv, Tlog and Treg returns one. A status other than kOk is one of the
// outcomes a client is told about (the key is absent, holds another type, is not an integer,
// ...), or kEngineError when the storage engine failed (engine_status() says how; nothing the
// operation would have written was acknowledged). The server turns an OpResult into its reply
// in one place (server/services/reply.h), so every command reports each outcome the same way.
//
//   OpResult<int64_t> r = kv.IncrBy(key, 1, now, expire_at);
//   if (!r.ok()) return ReplyError(ctx, r);   // WRONGTYPE, not an integer, overflow, engine
//   ctx.reply.Integer(*r);
//
// Thread-safety: a value type.
#pragma once

#include <cassert>
#include <optional>
#include <string_view>
#include <utility>

#include "storage/status.h"

namespace ebb::types {

enum class OpStatus {
  kOk,
  kNotFound,       // the key does not exist (never written, deleted or expired)
  kWrongType,      // the key holds another type; nothing was written
  kNotInteger,     // INCR family: the value is not a 64-bit integer; nothing was written
  kOverflow,       // INCR family: the result would overflow; nothing was written
  kTooLarge,       // APPEND, SETRANGE: the result would exceed the maximum length
  kInvalidCursor,  // SCAN: a cursor naming no position (types/scan_cursor.h)
  kEngineError,    // the storage engine failed (engine_status())
};

// A failed result without its value type, to pass a failure on: `return FailureOf(r);`.
struct OpFailure {
  OpStatus status;
  storage::Status engine_status;
};

template <typename T>
class [[nodiscard]] OpResult {
 public:
  // A value: ok().
  OpResult(T value) : value_(std::move(value)) {}  // NOLINT(google-explicit-constructor)
  // An outcome without a value. REQUIRES: status is neither kOk nor kEngineError.
  OpResult(OpStatus status) : status_(status) {  // NOLINT(google-explicit-constructor)
    assert(status != OpStatus::kOk && status != OpStatus::kEngineError);
  }
  // An engine failure. REQUIRES: !status.ok().
  OpResult(storage::Status status)  // NOLINT(google-explicit-constructor)
      : status_(OpStatus::kEngineError), engine_status_(std::move(status)) {
    assert(!engine_status_.ok());
  }
  OpResult(OpFailure failure)  // NOLINT(google-explicit-constructor)
      : status_(failure.status), engine_status_(std::move(failure.engine_status)) {}

  bool ok() const { return status_ == OpStatus::kOk; }
  OpStatus status() const { return status_; }
  // The engine's error; OK unless status() == kEngineError.
  const storage::Status& engine_status() const { return engine_status_; }

  // REQUIRES: ok().
  T& value() {
    assert(ok());
    return *value_;
  }
  const T& value() const {
    assert(ok());
    return *value_;
  }
  T& operator*() { return value(); }
  const T& operator*() const { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

 private:
  OpStatus status_ = OpStatus::kOk;
  std::optional<T> value_;
  storage::Status engine_status_;
};

// An operation that returns no value.
template <>
class [[nodiscard]] OpResult<void> {
 public:
  OpResult() = default;
  OpResult(OpStatus status) : status_(status) {  // NOLINT(google-explicit-constructor)
    assert(status != OpStatus::kEngineError);
  }
  // OK when the engine succeeded, else kEngineError.
  OpResult(storage::Status status)  // NOLINT(google-explicit-constructor)
      : status_(status.ok() ? OpStatus::kOk : OpStatus::kEngineError),
        engine_status_(std::move(status)) {}
  OpResult(OpFailure failure)  // NOLINT(google-explicit-constructor)
      : status_(failure.status), engine_status_(std::move(failure.engine_status)) {}

  bool ok() const { return status_ == OpStatus::kOk; }
  OpStatus status() const { return status_; }
  const storage::Status& engine_status() const { return engine_status_; }

 private:
  OpStatus status_ = OpStatus::kOk;
  storage::Status engine_status_;
};

// The failure of `result`, for a result of another type. REQUIRES: !result.ok().
template <typename T>
OpFailure FailureOf(const OpResult<T>& result) {
  assert(!result.ok());
  return {result.status(), result.engine_status()};
}

// The failure of `result` as a storage::Status, for code that reports one: the engine's own
// error, or Corruption(`what`) for an outcome its caller's rows never give (a row that does not
// decode as its type). REQUIRES: !result.ok().
template <typename T>
storage::Status EngineStatusOf(const OpResult<T>& result, std::string_view what) {
  assert(!result.ok());
  return result.status() == OpStatus::kEngineError ? result.engine_status()
                                                   : storage::Status::Corruption(what);
}

}  // namespace ebb::types
