#include <bit>
#include <cassert>
#include <cstdint>
#include <utility>

#include "common/strings.h"
#include "server/core/command.h"

namespace ebb::server {
namespace {

// A name of at most kWordBytes bytes (nearly every command) is looked up as one word: its bytes
// lowered, byte i in bits 8i..8i+7. Equal words of equal lengths are the same name.
constexpr size_t kWordBytes = 8;
uint64_t LoweredWord(std::string_view name) {
  uint64_t word = 0;
  for (size_t i = 0; i < name.size(); i++) {
    word |= uint64_t{static_cast<unsigned char>(AsciiLower(name[i]))} << (8 * i);
  }
  return word;
}
uint64_t WordHash(uint64_t word) {
  word *= 0x9e3779b97f4a7c15ull;
  return word ^ (word >> 29);
}

// FNV-1a over the name with bit 5 set in every byte, which folds ASCII letters to one case:
// "GET", "get" and "gEt" hash alike. Other bytes may collide; equality decides.
uint64_t CaseFoldedHash(std::string_view name) {
  uint64_t h = 14695981039346656037ull;
  for (char c : name) h = (h ^ static_cast<unsigned char>(c | 0x20)) * 1099511628211ull;
  return h;
}

// The index's hash of a name, in either case: as a word when it is short.
uint64_t NameHash(std::string_view name) {
  return name.size() <= kWordBytes ? WordHash(LoweredWord(name)) : CaseFoldedHash(name);
}

// `lower` is a command name in lower case; `name` is as the client sent it.
bool SameName(std::string_view lower, std::string_view name) {
  if (lower.size() != name.size()) return false;
  for (size_t i = 0; i < name.size(); i++) {
    if (lower[i] != AsciiLower(name[i])) return false;
  }
  return true;
}

}  // namespace

void CommandTable::Add(CommandSpec spec) {
  std::string key = AsciiLower(spec.name);
  assert(rows_.find(key) == rows_.end());
  spec.full_name = key;
  spec.id = row_count_++;
  for (CommandSpec& sub : spec.subcommands) {
    sub.full_name = key + "|" + std::string(sub.name);
    sub.id = row_count_++;
  }
  auto row = rows_.emplace(std::move(key), std::move(spec)).first;
  Index(row->first, &row->second);
}

void CommandTable::Index(std::string_view name, const CommandSpec* spec) {
  if (2 * rows_.size() > index_.size()) {  // keep it at most half full: rebuild, larger
    std::vector<IndexSlot> old =
        std::exchange(index_, std::vector<IndexSlot>(std::bit_ceil(4 * rows_.size())));
    for (const IndexSlot& slot : old) {
      if (slot.spec != nullptr) Index(slot.name, slot.spec);
    }
  }
  const size_t mask = index_.size() - 1;
  size_t i = NameHash(name) & mask;
  while (index_[i].spec != nullptr) i = (i + 1) & mask;
  index_[i] = {name, name.size() <= kWordBytes ? LoweredWord(name) : 0, spec};
}

void CommandTable::Add(std::vector<CommandSpec> specs) {
  for (CommandSpec& spec : specs) Add(std::move(spec));
}

const CommandSpec* CommandTable::Find(std::string_view name) const {
  if (index_.empty()) return nullptr;
  const size_t mask = index_.size() - 1;
  if (name.size() <= kWordBytes) {
    const uint64_t word = LoweredWord(name);
    for (size_t i = WordHash(word) & mask;; i = (i + 1) & mask) {
      const IndexSlot& slot = index_[i];
      if (slot.spec == nullptr) return nullptr;
      if (slot.word == word && slot.name.size() == name.size()) return slot.spec;
    }
  }
  for (size_t i = CaseFoldedHash(name) & mask;; i = (i + 1) & mask) {
    const IndexSlot& slot = index_[i];
    if (slot.spec == nullptr) return nullptr;
    if (SameName(slot.name, name)) return slot.spec;
  }
}

ResolvedCommand CommandTable::Resolve(std::span<const std::string_view> args) const {
  const CommandSpec* spec = Find(args[0]);
  if (spec == nullptr) return {};
  if (spec->subcommands.empty() || args.size() < 2) return {spec, spec->flags, 1};
  const CommandSpec* sub = FindSubcommand(*spec, args[1]);
  if (sub == nullptr) return {};
  return {sub, spec->flags | sub->flags, 2};
}

const CommandSpec* CommandTable::FindSubcommand(const CommandSpec& container,
                                                std::string_view name) {
  for (const CommandSpec& sub : container.subcommands) {
    if (SameName(sub.name, name)) return &sub;
  }
  return nullptr;
}

}  // namespace ebb::server
