// Result<Code>: what an operation of a server subsystem (cluster, replication, active-active,
// configuration, ...) returns — success, or one of the subsystem's own outcomes.
//
// Each subsystem declares one enum of its outcomes, kOk first, beside its contract, and one
// function of its own turns every outcome into its error text (built from the constants of
// server/core/errors.h, so no other file spells an error). A failure may carry a detail: the name
// an error text quotes (a node id, an option, a path, the reason a file could not be saved).
// The data types' outcomes are types::OpResult; this is its server-side sibling.
//
//   enum class ClusterCode { kOk, kUnknownNode, kForgetMyself };
//   std::string ClusterErrorText(const Result<ClusterCode>& r);  // "ERR Unknown node abc"
//
//   Result<ClusterCode> Cluster::Forget(std::string_view node) {
//     if (n == nullptr) return {ClusterCode::kUnknownNode, node};
//     ...
//     return {};
//   }
//   Result<ClusterCode> r = cluster.Forget(name);
//   if (!r.ok()) return ctx.reply.Error(ClusterErrorText(r));
//
// Result<Code, T> also holds T on success. Thread-safety: a value type.
#pragma once

#include <cassert>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

namespace ebb::server {

template <typename Code, typename T = void>
class [[nodiscard]] Result;

// Success or an outcome, without a value.
template <typename Code>
class [[nodiscard]] Result<Code, void> {
  static_assert(std::is_enum_v<Code>, "Code is the subsystem's enum of outcomes");

 public:
  // Success.
  Result() = default;
  // An outcome other than kOk, and the name its error text quotes, if any.
  Result(Code code, std::string_view detail = {})  // NOLINT(google-explicit-constructor)
      : code_(code), detail_(detail) {
    assert(code != Code::kOk);
  }

  bool ok() const { return code_ == Code::kOk; }
  Code code() const { return code_; }
  const std::string& detail() const { return detail_; }

 private:
  Code code_ = Code::kOk;
  std::string detail_;
};

// A value, or an outcome other than kOk.
template <typename Code, typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : value_(std::move(value)) {}    // NOLINT(google-explicit-constructor)
  Result(Code code, std::string_view detail = {})  // NOLINT(google-explicit-constructor)
      : failure_(code, detail) {}
  // Passes another operation's failure on. REQUIRES: !failure.ok().
  Result(Result<Code> failure)  // NOLINT(google-explicit-constructor)
      : failure_(std::move(failure)) {
    assert(!failure_.ok());
  }

  bool ok() const { return failure_.ok(); }
  Code code() const { return failure_.code(); }
  const std::string& detail() const { return failure_.detail(); }
  // The outcome without the value, to pass a failure on: `return r.failure();`.
  const Result<Code>& failure() const { return failure_; }

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
  Result<Code> failure_;
  std::optional<T> value_;
};

}  // namespace ebb::server
