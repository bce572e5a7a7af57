// libFuzzer target for the observed-remove decoders of active-active string keys: a delta's
// context (types/or_context.h) and a string row's extension (types/or_string_ext.h), what a peer's
// delta and a table's row bring.
//
// The first byte picks the decoder (even: context, odd: row); for a context the next 20 bytes are
// the delta's origin. Each decoder refuses the bytes or accepts them, and whatever it accepts
// encodes back to the very same bytes (the forms are canonical). An accepted context applied
// twice to the state an accepted row's R describes changes nothing the second time.
// Build and run: `make fuzz-smoke` or `make fuzz`.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "tests/fuzz/fuzz_check.h"
#include "types/or_context.h"
#include "types/or_string.h"
#include "types/or_string_ext.h"

namespace {

using namespace ebb::types;  // NOLINT: a fuzz target of this one namespace

using ebb::fuzz::Check;

void Contexts(std::string_view bytes) {
  if (bytes.size() < kOriginIdSize) return;
  const OriginId own(bytes.substr(0, kOriginIdSize));
  bytes.remove_prefix(kOriginIdSize);
  OrContext context;
  if (!DecodeOrContext(bytes, own, &context)) return;
  Check(EncodeOrContext(context, own) == bytes, "a context does not re-encode to itself");
  OrStringState state;
  ApplyOrDelta(&state, {.context = context});
  Check(state.removed == context, "a DEL on an empty key does not remove its context");
  Check(!ApplyOrDelta(&state, {.context = context}).changed(), "a repeated DEL changed the key");
}

void Rows(std::string_view bytes) {
  OrStringExt ext;
  std::string_view inner;
  if (!DecodeOrStringRow(bytes, &ext, &inner)) return;
  Check(ext.dot || !ext.siblings_live, "siblings without a winner");
  std::string again;
  EncodeOrStringRow(ext, inner, &again);
  Check(again == bytes, "a row does not re-encode to itself");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string_view bytes(reinterpret_cast<const char*>(data) + 1, size - 1);
  if (data[0] % 2 == 0) {
    Contexts(bytes);
  } else {
    Rows(bytes);
  }
  return 0;
}
