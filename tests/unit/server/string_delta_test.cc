// The string deltas and their trailing `CTX <context>` (server/active_active/peer_delta.h,
// StringDelta; docs/active-active.md, "Deltas"): one parse of put, delete and put-expired, with or
// without a context; the context read against the delta's origin; every hostile CTX — truncated,
// oversized, not in its shortest form, out of order, empty, misplaced — makes the delta malformed;
// a delta applied without its CTX is the same delta without one; the origin log's forms keep it.
#include "server/commands/string_delta.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "server/active_active/peer_delta.h"
#include "types/or_context.h"
#include "types/string_rank.h"

namespace ebb::server {
namespace {

using Args = std::vector<std::string>;

const std::string kOriginNode(40, '3');  // the delta's origin (node id)
const std::string kOtherNode(40, '1');   // another node
const types::OriginId kOrigin(std::string(types::kOriginIdSize, '\x33'));  // the same, raw
const types::OriginId kOther(std::string(types::kOriginIdSize, '\x11'));

types::OrContext Context(std::initializer_list<types::Dot> dots) {
  types::OrContext c;
  for (const types::Dot& d : dots) c.Raise(d.origin, d.offset);
  return c;
}

// The wire bytes of a context of a delta from kOriginNode.
std::string Ctx(std::initializer_list<types::Dot> dots) {
  return types::EncodeOrContext(Context(dots), kOrigin);
}

Args With(Args args, const std::string& ctx) {
  args.push_back("CTX");
  args.push_back(ctx);
  return args;
}

// The context the delta carries, as a node applying it from kOriginNode reads it; nullopt also
// when it is malformed (*ok false).
std::optional<types::OrContext> ContextOf(const Args& args, bool* ok) {
  StringDelta d;
  std::optional<types::OrContext> context;
  *ok = ParseStringDelta(args, &d) && DecodeDeltaContext(d, kOriginNode, &context);
  return context;
}

bool Malformed(const Args& args) {
  bool ok = false;
  ContextOf(args, &ok);
  Args stripped = args;
  const bool strips = StripDeltaContext(kOriginNode, &stripped);
  EXPECT_EQ(strips, ok);
  if (!strips) {
    EXPECT_EQ(stripped, args);  // left as it was
  }
  return !ok;
}

const std::string kHex = types::DigestHex(types::StringDigest("v"));

// The origin reads a row's string version from the numbers its form carries (StringPutDelta):
// the same delta as a parse of the form, for each shape a row makes, whether built anew or in
// the room of the last one's arguments (the context an origin appended to them included).
TEST(StringDeltaTest, ARowsStringVersionReadsAsItsFormParses) {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  std::vector<std::string> spare;
  for (const auto& [ts, expire_at] :
       std::vector<std::pair<int64_t, std::optional<int64_t>>>{{1700000000000, std::nullopt},
                                                               {1700000000000, 1700000010000},
                                                               {-5, 1},
                                                               {0, kMax},
                                                               {kMax, std::nullopt}}) {
    WriteForm form = StringPutForm("key:1", "a value", ts, expire_at, std::nullopt, nullptr);
    WriteForm in_spare = StringPutForm("key:1", "a value", ts, expire_at, std::nullopt, &spare);
    EXPECT_EQ(in_spare.args, form.args);
    spare = std::move(in_spare.args);
    spare.insert(spare.end(), {"CTX", std::string(40, 'c')});
    ASSERT_TRUE(form.string_put.has_value());
    const StringDelta carried =
        StringPutDelta(form.args, form.string_put->ts, form.string_put->expire_at);
    StringDelta parsed;
    ASSERT_TRUE(ParseStringDelta(form.args, &parsed)) << ts;
    EXPECT_EQ(carried.kind, parsed.kind);
    EXPECT_EQ(carried.key, parsed.key);
    EXPECT_EQ(carried.key.data(), parsed.key.data());  // both view the form's arguments
    EXPECT_EQ(carried.version.value, parsed.version.value);
    EXPECT_EQ(carried.version.value.data(), parsed.version.value.data());
    EXPECT_EQ(carried.version.ts, parsed.version.ts);
    EXPECT_EQ(carried.version.expire_at, parsed.version.expire_at) << ts;
    EXPECT_EQ(carried.version.tombstone, parsed.version.tombstone);
    EXPECT_EQ(carried.version.digest, parsed.version.digest);
    EXPECT_EQ(carried.nottl, parsed.nottl) << ts;
    EXPECT_EQ(carried.context, parsed.context);
  }
  EXPECT_EQ(StringPutForm("k", "v", 1, 0, std::nullopt, nullptr).kind, WriteForm::Kind::kInvalid);
}

TEST(StringDeltaTest, EachShapeParsesAndIsWrittenBackAsItCame) {
  for (const Args& args :
       {Args{"put", "k", "v", "TS", "10", "PXAT", "20"}, Args{"put", "k", "", "TS", "-5", "NOTTL"},
        Args{"delete", "k", "TS", "10"},
        Args{"put-expired", "k", "DIGEST", kHex, "TS", "10", "PXAT", "20"},
        Args{"put-expired", "k", "DIGEST", kHex, "TS", "10", "NOTTL"}}) {
    for (const Args& form : {args, With(args, Ctx({{kOrigin, 4}}))}) {
      StringDelta d;
      ASSERT_TRUE(ParseStringDelta(form, &d)) << form[0] << " " << form.size();
      EXPECT_EQ(d.key, "k");
      EXPECT_EQ(StringDeltaArgs(d), form);
      EXPECT_EQ(d.context.has_value(), form.size() != args.size());
    }
  }
  // StringDelta views its arguments: each form outlives the checks on it.
  StringDelta d;
  const Args any_case = {"put", "k", "v", "ts", "10", "pxat", "20", "ctx", "\x01\x00"};
  ASSERT_TRUE(ParseStringDelta(any_case, &d));  // the words in any case
  EXPECT_EQ(d.version.ts, 10);
  EXPECT_EQ(d.version.expire_at, 20);
  EXPECT_EQ(d.version.value, "v");
  EXPECT_FALSE(d.nottl);
  const Args del = {"delete", "k", "TS", "7"};
  ASSERT_TRUE(ParseStringDelta(del, &d));
  EXPECT_EQ(d.kind, StringDelta::Kind::kDelete);
  EXPECT_TRUE(d.version.tombstone);
  EXPECT_EQ(d.version.expire_at, std::numeric_limits<int64_t>::max());
  const Args reduced = {"put-expired", "k", "DIGEST", kHex, "TS", "7", "NOTTL"};
  ASSERT_TRUE(ParseStringDelta(reduced, &d));
  EXPECT_EQ(d.kind, StringDelta::Kind::kPutExpired);
  EXPECT_EQ(d.version.digest, types::StringDigest("v"));
  EXPECT_TRUE(d.nottl);
  EXPECT_FALSE(d.version.tombstone);
}

TEST(StringDeltaTest, AShapeOutOfOrderIsRefused) {
  for (const Args& args : {
           Args{"put", "k", "v", "TS", "10"},                              // no expiry
           Args{"put", "k", "v", "TS", "10", "PXAT"},                      // an expiry without ms
           Args{"put", "k", "v", "TS", "x", "NOTTL"},                      // a ts no number
           Args{"put", "k", "v", "TS", "9223372036854775808", "NOTTL"},    // past int64
           Args{"put", "k", "v", "TTL", "10", "NOTTL"},                    // another word
           Args{"put", "k", "v", "TS", "10", "PXAT", "1.5"},               //
           Args{"put", "k", "v", "TS", "10", "NOTTL", "x"},                // a stray argument
           Args{"delete", "k", "TS"},                                      //
           Args{"delete", "k", "10", "TS"},                                //
           Args{"put-expired", "k", "DIGEST", "ab", "TS", "10", "NOTTL"},  // a short digest
           Args{"put-expired", "k", "DIGEST", kHex, "TS", "10"},           //
           Args{"PUT", "k", "v", "TS", "10", "NOTTL"},  // the name lower-case only
           Args{"set", "k", "v", "TS", "10", "NOTTL"},  //
           Args{"put"},
       }) {
    StringDelta d;
    EXPECT_FALSE(ParseStringDelta(args, &d)) << args.size();
  }
}

TEST(StringDeltaTest, TheContextIsReadAgainstTheDeltasOrigin) {
  bool ok = false;
  EXPECT_EQ(ContextOf({"delete", "k", "TS", "10"}, &ok), std::nullopt);
  EXPECT_TRUE(ok);
  const Args put = {"put", "k", "v", "TS", "10", "NOTTL"};
  // The usual context: the writer's own previous version, 3 bytes and its offset's varint.
  EXPECT_EQ(Ctx({{kOrigin, 4}}), std::string("\x01\x01\x00\x04", 4));
  EXPECT_EQ(ContextOf(With(put, Ctx({{kOrigin, 4}})), &ok), Context({{kOrigin, 4}}));
  EXPECT_TRUE(ok);
  const types::OrContext both = Context({{kOther, 9}, {kOrigin, 1ull << 40}});
  EXPECT_EQ(ContextOf(With(put, Ctx({{kOther, 9}, {kOrigin, 1ull << 40}})), &ok), both);
  EXPECT_EQ(ContextOf(With(put, Ctx({})), &ok), types::OrContext());  // a fresh key's
  EXPECT_TRUE(ok);
  // The same bytes from another origin name that origin: `0 offset` is always the sender.
  StringDelta d;
  const Args with_context = With(put, Ctx({{kOrigin, 4}}));  // d views it
  ASSERT_TRUE(ParseStringDelta(with_context, &d));
  std::optional<types::OrContext> context;
  ASSERT_TRUE(DecodeDeltaContext(d, kOtherNode, &context));
  EXPECT_EQ(context, Context({{kOther, 4}}));
  // An origin that is no node id cannot read a context (a delta without one needs none).
  EXPECT_FALSE(DecodeDeltaContext(d, "x", &context));
  ASSERT_TRUE(ParseStringDelta(put, &d));
  EXPECT_TRUE(DecodeDeltaContext(d, "x", &context));
  EXPECT_EQ(context, std::nullopt);
}

TEST(StringDeltaTest, AHostileContextMakesTheDeltaMalformed) {
  const Args del = {"delete", "k", "TS", "10"};
  const std::string good = Ctx({{kOrigin, 300}, {kOther, 2}});
  EXPECT_FALSE(Malformed(With(del, good)));
  const std::string own = std::string("\x00", 1);
  for (const std::string& ctx : {
           std::string(),                           // empty
           std::string("\x01", 1),                  // no count
           std::string("\x02\x00", 2),              // another version
           good.substr(0, good.size() - 1),         // truncated
           good + "x",                              // trailing bytes
           std::string("\x01\x02\x00\x04", 4),      // fewer entries than counted
           std::string("\x01\x01\x00\x84\x00", 5),  // a varint longer than needed
           std::string("\x01\x01\x00\x00", 4),      // offset 0
           std::string("\x01\x01\x00", 3) + std::string(10, '\xff') + "\x01",  // past 64 bits
           std::string("\x01\x81\x00", 3),              // a count longer than needed
           std::string("\x01\xff\xff\xff\xff\x0f", 6),  // 2^32-1 entries, none there
           std::string("\x01\x01\x02", 3) + std::string(kOther) + "\x01",  // an unknown entry kind
           std::string("\x01\x01\x01", 3) + std::string(kOrigin) +
               "\x01",  // the origin named by its id
           std::string("\x01\x02\x01", 3) + std::string(kOther) + "\x01" + own +
               "\x01",  // own entry not first
           std::string("\x01\x02\x01", 3) + std::string(kOrigin).substr(1) + "\x22" + "\x01\x01" +
               std::string(kOther) + "\x01",  // ids not ascending
           std::string("\x01\x02\x01", 3) + std::string(kOther) + "\x01\x01" + std::string(kOther) +
               "\x02",  // twice
           std::string("\x01\x01\x01", 3) + std::string(kOther).substr(2) +
               "\x01",  // an id cut short
       }) {
    EXPECT_TRUE(Malformed(With(del, ctx))) << testing::PrintToString(ctx);
  }
  // CTX misplaced, twice, or without its bytes.
  EXPECT_TRUE(Malformed({"delete", "k", "TS", "10", "CTX"}));
  EXPECT_TRUE(Malformed({"delete", "k", "CTX", good, "TS", "10"}));
  EXPECT_TRUE(Malformed({"delete", "k", "TS", "10", "CTX", good, "CTX", good}));
  EXPECT_TRUE(Malformed({"delete", "k", "TS", "10", "CTY", good}));
  EXPECT_TRUE(Malformed({"put", "k", "v", "TS", "10", "CTX", good, "NOTTL"}));
  // A large context is read whole: a thousand origins.
  types::OrContext wide;
  for (int i = 1; i <= 1000; i++) {
    std::string id(types::kOriginIdSize, '\x40');
    id[0] = static_cast<char>(i >> 8);
    id[1] = static_cast<char>(i & 0xff);
    wide.Raise(types::OriginId(id), static_cast<uint64_t>(i));
  }
  bool ok = false;
  EXPECT_EQ(ContextOf(With(del, types::EncodeOrContext(wide, kOrigin)), &ok), wide);
  EXPECT_TRUE(ok);
}

// The apply path takes the delta without its CTX: the very arguments of the same delta without one.
TEST(StringDeltaTest, ADeltaIsAppliedWithoutItsContext) {
  for (const Args& args :
       {Args{"put", "k", "v", "TS", "10", "PXAT", "20"}, Args{"delete", "k", "TS", "10"},
        Args{"put-expired", "k", "DIGEST", kHex, "TS", "10", "NOTTL"}}) {
    Args form = With(args, Ctx({{kOrigin, 3}}));
    ASSERT_TRUE(StripDeltaContext(kOriginNode, &form));
    EXPECT_EQ(form, args);
    ASSERT_TRUE(StripDeltaContext(kOriginNode, &form));  // none: as it is
    EXPECT_EQ(form, args);
  }
  Args tlog = {"tlog", "ins", "l", "v", "1"};
  EXPECT_FALSE(StripDeltaContext(kOriginNode, &tlog));  // not a string delta
}

// The origin log's forms (docs/active-active.md, "The origin log"): a logged put keeps its CTX
// when it is reduced, and its expiry and value read the same with one.
TEST(StringDeltaTest, TheOriginLogsFormsKeepTheContext) {
  const std::string ctx = Ctx({{kOrigin, 41}});
  PeerDelta put{.offset = 42,
                .origin_ms = 5,
                .db = 1,
                .args = With({"put", "k", "secret", "TS", "10", "PXAT", "20"}, ctx)};
  EXPECT_EQ(PutExpiry(put), 20);
  const std::optional<LoggedValue> logged = LoggedValueOf(put);
  ASSERT_TRUE(logged);
  EXPECT_EQ(logged->value, "secret");
  EXPECT_EQ(logged->own_expiry, 20);
  const PeerDelta reduced = ReducedPutDelta(put);
  EXPECT_EQ(reduced.args,
            With({"put-expired", "k", "DIGEST", types::DigestHex(types::StringDigest("secret")),
                  "TS", "10", "PXAT", "20"},
                 ctx));
  EXPECT_EQ(ReducedValueDelta(put).args, reduced.args);
  ReducedPut parsed;
  ASSERT_TRUE(ParseReducedPut(reduced.args, &parsed));
  EXPECT_EQ(parsed.context, ctx);
  EXPECT_EQ(ReducedPutArgs(parsed), reduced.args);
  EXPECT_FALSE(LoggedValueOf(reduced));

  put.args = With({"put", "k", "v", "TS", "10", "NOTTL"}, ctx);
  EXPECT_EQ(PutExpiry(put), std::nullopt);
  ASSERT_TRUE(LoggedValueOf(put));
  EXPECT_EQ(LoggedValueOf(put)->own_expiry, std::nullopt);
  EXPECT_EQ(ReducedPutDelta(put).args.back(), ctx);
  put.args = {"put", "k", "v", "TS", "10", "NOTTL", "CTX"};
  EXPECT_FALSE(LoggedValueOf(put));
}

// The key a peer hints before applying a batch (ActiveActive::HintDeltaKeys).
TEST(StringDeltaTest, TheWrittenKeyOfADataDelta) {
  EXPECT_EQ(WrittenKeyOf(Args{"put", "k", "v", "TS", "1", "NOTTL"}), "k");
  EXPECT_EQ(WrittenKeyOf(Args{"delete", "d", "TS", "1"}), "d");
  EXPECT_EQ(WrittenKeyOf(Args{"put-expired", "e", "DIGEST", "x", "TS", "1", "NOTTL"}), "e");
  EXPECT_EQ(WrittenKeyOf(Args{"tlog", "ins", "log", "v", "1"}), "log");
  EXPECT_EQ(WrittenKeyOf(Args{"treg", "set", "reg", "v", "1"}), "reg");
  EXPECT_EQ(WrittenKeyOf(Args{"del-at", "1", "1", "k"}), std::nullopt);  // not a data delta
  EXPECT_EQ(WrittenKeyOf(Args{"PUT", "k", "v"}), std::nullopt);          // names as sent
  EXPECT_EQ(WrittenKeyOf(Args{"put"}), std::nullopt);
  EXPECT_EQ(WrittenKeyOf(Args{"tlog", "ins"}), std::nullopt);
  EXPECT_EQ(WrittenKeyOf(Args{}), std::nullopt);
}

TEST(StringDeltaTest, ANodeIdIsTheHexOfItsOrigin) {
  types::OriginId origin;
  ASSERT_TRUE(OriginOfNodeId(kOriginNode, &origin));
  EXPECT_EQ(origin, kOrigin);
  EXPECT_EQ(NodeIdOfOrigin(origin), kOriginNode);
  ASSERT_TRUE(OriginOfNodeId(std::string(40, 'A'), &origin));
  EXPECT_EQ(NodeIdOfOrigin(origin), std::string(40, 'a'));
  EXPECT_FALSE(OriginOfNodeId(std::string(39, 'a'), &origin));
  EXPECT_FALSE(OriginOfNodeId(std::string(42, 'a'), &origin));
  EXPECT_FALSE(OriginOfNodeId(std::string(39, 'a') + "g", &origin));
  // Every digit in both cases; the characters beside each range, a NUL and a byte above 127 are
  // none.
  ASSERT_TRUE(OriginOfNodeId("0123456789abcdefABCDEF0123456789abcdef00", &origin));
  EXPECT_EQ(NodeIdOfOrigin(origin), "0123456789abcdefabcdef0123456789abcdef00");
  for (const char c : {'/', ':', '@', 'G', '`', 'g', '\xff', '\0'}) {
    EXPECT_FALSE(OriginOfNodeId(std::string(39, 'a') + c, &origin)) << static_cast<int>(c);
  }
}

}  // namespace
}  // namespace ebb::server
