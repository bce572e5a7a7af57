// Status: the outcome of an engine operation.
//
// Every fallible engine call returns a Status. OK carries no message; every other code carries a
// human-readable message that names the file and offset where that applies (corruption, I/O).
// Thread-safety: a Status is a value; copies are independent.
#pragma once

#include <string>
#include <string_view>
#include <utility>

namespace ebb::storage {

class Status {
 public:
  enum class Code {
    kOk,
    kNotFound,
    kCorruption,
    kIOError,
    kInvalidArgument,
    kNotSupported,
    kBusy,
    kIncomplete,
  };

  Status() = default;
  static Status OK() { return Status(); }
  static Status NotFound(std::string_view msg = {}) { return Status(Code::kNotFound, msg); }
  static Status Corruption(std::string_view msg) { return Status(Code::kCorruption, msg); }
  static Status IOError(std::string_view msg) { return Status(Code::kIOError, msg); }
  static Status InvalidArgument(std::string_view msg) {
    return Status(Code::kInvalidArgument, msg);
  }
  static Status NotSupported(std::string_view msg) { return Status(Code::kNotSupported, msg); }
  static Status Busy(std::string_view msg) { return Status(Code::kBusy, msg); }
  // A read that may not wait for the disk needs blocks that are not in memory (RocksDB's
  // kBlockCacheTier result): storage/table/block_fetch.h.
  static Status Incomplete(std::string_view msg) { return Status(Code::kIncomplete, msg); }

  bool ok() const { return code_ == Code::kOk; }
  bool IsNotFound() const { return code_ == Code::kNotFound; }
  bool IsCorruption() const { return code_ == Code::kCorruption; }
  bool IsIOError() const { return code_ == Code::kIOError; }
  bool IsInvalidArgument() const { return code_ == Code::kInvalidArgument; }
  bool IsBusy() const { return code_ == Code::kBusy; }
  bool IsIncomplete() const { return code_ == Code::kIncomplete; }
  Code code() const { return code_; }
  const std::string& message() const { return message_; }

  // "OK", or "<Code name>: <message>".
  std::string ToString() const;

 private:
  Status(Code code, std::string_view msg) : code_(code), message_(msg) {}

  Code code_ = Code::kOk;
  std::string message_;
};

}  // namespace ebb::storage
