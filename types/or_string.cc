#include "types/or_string.h"

#include <algorithm>
#include <utility>

#include "types/string_rank.h"

namespace ebb::types {
namespace {

std::vector<OrSlot>::iterator SlotOf(std::vector<OrSlot>* slots, std::string_view origin) {
  return std::lower_bound(slots->begin(), slots->end(), origin,
                          [](const OrSlot& s, std::string_view o) { return s.dot.origin < o; });
}

// a < b in the string order (RanksBelow takes its versions to fill their digests: copies).
bool SlotBelow(const OrSlot& a, const OrSlot& b) {
  StringVersion x = a.Ranked();
  StringVersion y = b.Ranked();
  return RanksBelow(x, y);
}

// The two versions' bytes have one digest: compared as bytes unless one is reduced.
bool SameBytes(const OrSlot& a, const OrSlot& b) {
  if (!a.version.digest && !b.version.digest) return a.value == b.value;
  StringVersion x = a.Ranked();
  StringVersion y = b.Ranked();
  return x.Digest() == y.Digest();
}

// Drops every slot at or below R[its origin].
void DropRemoved(OrStringState* state, OrApplied* applied) {
  std::erase_if(state->slots, [&](const OrSlot& s) {
    if (s.dot.offset > state->removed.At(s.dot.origin)) return false;
    applied->dropped.push_back(s.dot);
    return true;
  });
}

// The write becomes its origin's slot unless R or a later slot of its origin covers it; a slot
// at the same dot keeps the greater version (a dot named twice: the pre-mode dot of data two
// nodes held, or an offset a node gave again), so the outcome is the same in every order.
void TakeWrite(OrStringState* state, OrSlot&& write, OrApplied* applied) {
  if (write.dot.offset <= state->removed.At(write.dot.origin)) return;
  auto it = SlotOf(&state->slots, write.dot.origin);
  if (it != state->slots.end() && it->dot.origin == write.dot.origin) {
    if (it->dot.offset > write.dot.offset) return;
    if (it->dot.offset == write.dot.offset && !SlotBelow(*it, write)) return;
    applied->dropped.push_back(it->dot);
    *it = std::move(write);
  } else {
    state->slots.insert(it, std::move(write));
  }
  applied->written = true;
}

// R without the entries of origins holding a slot (canonical form).
void Canonicalize(OrStringState* state) {
  for (const OrSlot& s : state->slots) state->removed.Erase(s.dot.origin);
}

}  // namespace

StringVersion OrSlot::Ranked() const {
  StringVersion ranked = version;
  ranked.value = value;
  return ranked;
}

OrSlot MakeOrSlot(Dot dot, StringVersion version) {
  std::string value(version.value);
  version.value = {};
  return OrSlot{.dot = std::move(dot), .version = std::move(version), .value = std::move(value)};
}

bool SameOrSlot(const OrSlot& a, const OrSlot& b) {
  const StringVersion& x = a.version;
  const StringVersion& y = b.version;
  return a.dot == b.dot && x.ts == y.ts && x.tombstone == y.tombstone &&
         x.expire_at == y.expire_at && (x.tombstone || SameBytes(a, b));
}

bool SameOrState(const OrStringState& a, const OrStringState& b) {
  return a.removed == b.removed &&
         std::equal(a.slots.begin(), a.slots.end(), b.slots.begin(), b.slots.end(), SameOrSlot);
}

OrApplied ApplyOrDelta(OrStringState* state, OrStringDelta delta) {
  OrApplied applied;
  const OrContext before = state->removed;
  // R lacks the entries of origins holding a slot (canonical form), all below that slot: a
  // context entry that stays below it is left out again by Canonicalize, one that reaches it
  // removes the slot and takes the value the full R would have.
  state->removed.Join(delta.context);
  DropRemoved(state, &applied);
  if (delta.write) TakeWrite(state, std::move(*delta.write), &applied);
  Canonicalize(state);
  applied.removed_grew = !(state->removed == before);
  return applied;
}

OrApplied JoinOrState(OrStringState* state, const OrStringState& other) {
  OrApplied applied = ApplyOrDelta(state, {.context = other.removed});
  for (const OrSlot& slot : other.slots) {
    OrApplied one = ApplyOrDelta(state, {.write = slot});
    applied.written |= one.written;
    applied.removed_grew |= one.removed_grew;
    applied.dropped.insert(applied.dropped.end(), one.dropped.begin(), one.dropped.end());
  }
  return applied;
}

const OrSlot* OrWinner(const OrStringState& state) {
  const OrSlot* winner = nullptr;
  for (const OrSlot& s : state.slots) {
    if (winner == nullptr || SlotBelow(*winner, s)) winner = &s;
  }
  return winner;
}

const OrSlot* OrRead(const OrStringState& state, int64_t now_ms) {
  const OrSlot* winner = OrWinner(state);
  if (winner == nullptr || winner->version.tombstone || winner->version.expire_at <= now_ms) {
    return nullptr;
  }
  return winner;
}

std::optional<OrContext> OrLocalWriteContext(const OrStringState& state, StringVersion write) {
  if (const OrSlot* winner = OrWinner(state)) {
    StringVersion held = winner->Ranked();
    if (!RanksBelow(held, write)) return std::nullopt;
  }
  return OrLocalDeleteContext(state);
}

OrContext OrLocalDeleteContext(const OrStringState& state) {
  OrContext context;
  for (const OrSlot& s : state.slots) context.Raise(s.dot.origin, s.dot.offset);
  return context;
}

namespace {
bool HoldsDot(const OrStringState& state, const Dot& dot) {
  return std::any_of(state.slots.begin(), state.slots.end(),
                     [&](const OrSlot& s) { return s.dot == dot; });
}
}  // namespace

bool OrRemovedCovered(const OrStringState& state, const OrContext& applied) {
  return std::all_of(state.removed.entries().begin(), state.removed.entries().end(),
                     [&](const Dot& entry) { return entry.offset <= applied.At(entry.origin); });
}

bool OrCollectable(const OrStringState& state, const OrContext& applied) {
  return state.slots.empty() && OrRemovedCovered(state, applied);
}

OrContext OrRemovedBySender(const OrStringState& held, const OrStringState& sent,
                            const OrContext& sender_vector) {
  OrContext removed;
  for (const OrSlot& slot : held.slots) {
    if (slot.dot.offset <= sender_vector.At(slot.dot.origin) && !HoldsDot(sent, slot.dot)) {
      removed.Raise(slot.dot.origin, slot.dot.offset);
    }
  }
  return removed;
}

bool OrRemovedHere(const OrStringState& held, const Dot& dot, const OrContext& applied) {
  return dot.offset <= applied.At(dot.origin) && !HoldsDot(held, dot);
}

}  // namespace ebb::types
