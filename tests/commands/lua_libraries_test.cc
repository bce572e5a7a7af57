// cmsgpack and struct as scripts see them: the bytes Redis's bundled libraries produce for known
// values, decoding back, their errors in Redis's words, and Redis's own scripting tests for them.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "tests/support/command_runner.h"

namespace ebb::test {
namespace {

using ::testing::HasSubstr;

class LuaLibrariesTest : public CommandTest {
 protected:
  std::string Eval(std::string_view script) { return Do({"EVAL", script, "0"}); }
  // The bytes of the Lua string `expr` evaluates to, in hex.
  std::string Hex(std::string_view expr) {
    return Eval("local s = " + std::string(expr) +
                " local h = '' for i = 1, #s do h = h .. string.format('%02x', string.byte(s, i)) "
                "end return h");
  }
};

TEST_F(LuaLibrariesTest, CmsgpackPacksIntegersInTheirSmallestEncoding) {
  EXPECT_EQ(Hex("cmsgpack.pack(0)"), "$00");
  EXPECT_EQ(Hex("cmsgpack.pack(127)"), "$7f");
  EXPECT_EQ(Hex("cmsgpack.pack(128)"), "$cc80");
  EXPECT_EQ(Hex("cmsgpack.pack(256)"), "$cd0100");
  EXPECT_EQ(Hex("cmsgpack.pack(65536)"), "$ce00010000");
  EXPECT_EQ(Hex("cmsgpack.pack(2^32)"), "$cf0000000100000000");
  EXPECT_EQ(Hex("cmsgpack.pack(-1)"), "$ff");
  EXPECT_EQ(Hex("cmsgpack.pack(-32)"), "$e0");
  EXPECT_EQ(Hex("cmsgpack.pack(-33)"), "$d0df");
  EXPECT_EQ(Hex("cmsgpack.pack(-129)"), "$d1ff7f");
  EXPECT_EQ(Hex("cmsgpack.pack(-32769)"), "$d2ffff7fff");
  // Redis's "cmsgpack can pack negative int64?" and "can pack double?".
  EXPECT_EQ(Hex("cmsgpack.pack(-1099511627776)"), "$d3ffffff0000000000");
  EXPECT_EQ(Hex("cmsgpack.pack(0.1)"), "$cb3fb999999999999a");
  EXPECT_EQ(Hex("cmsgpack.pack(1.5)"), "$ca3fc00000");  // exact as a float
}

TEST_F(LuaLibrariesTest, CmsgpackPacksStringsTablesAndTheRest) {
  EXPECT_EQ(Hex("cmsgpack.pack('')"), "$a0");
  EXPECT_EQ(Hex("cmsgpack.pack('ab')"), "$a26162");
  EXPECT_EQ(Hex("cmsgpack.pack(string.rep('x', 32)):sub(1, 2)"), "$d920");
  EXPECT_EQ(Hex("cmsgpack.pack(string.rep('x', 300)):sub(1, 3)"), "$da012c");
  EXPECT_EQ(Hex("cmsgpack.pack(string.rep('x', 70000)):sub(1, 5)"), "$db00011170");
  EXPECT_EQ(Hex("cmsgpack.pack(true, false, nil)"), "$c3c2c0");
  EXPECT_EQ(Hex("cmsgpack.pack({1, 2, 'x'}, {a = true})"), "$930102a17881a161c3");
  EXPECT_EQ(Hex("cmsgpack.pack({})"), "$90");             // no keys: an empty array
  EXPECT_EQ(Hex("cmsgpack.pack({[2] = 1})"), "$810201");  // a hole: a map
  EXPECT_EQ(Hex("cmsgpack.pack(function() end)"), "$c0");
  // Sixteen levels of tables, then nil.
  std::string nested;
  for (int i = 0; i < 16; ++i) nested += "91";
  EXPECT_EQ(Hex("cmsgpack.pack(" + std::string(17, '{') + std::string(17, '}') + ")"),
            "$" + nested + "c0");
  EXPECT_THAT(Eval("return cmsgpack.pack()"),
              HasSubstr("bad argument #0 to 'pack' (MessagePack pack needs input.)"));
}

TEST_F(LuaLibrariesTest, CmsgpackUnpacks) {
  EXPECT_EQ(Eval("return {cmsgpack.unpack(cmsgpack.pack(1, -200, 'x', 2^40))}"),
            "[:1,:-200,$x,:1099511627776]");
  EXPECT_EQ(Eval("return cmsgpack.unpack(cmsgpack.pack(0.1)) == 0.1"), ":1");
  EXPECT_EQ(Eval("return cmsgpack.unpack(cmsgpack.pack({a = {1, 2}})).a[2]"), ":2");
  EXPECT_EQ(Eval("return cmsgpack.unpack('\\207\\255\\255\\255\\255\\255\\255\\255\\255')"),
            ":-1");  // a uint64 above 2^63 wraps, as in Redis
  EXPECT_EQ(Eval("return {cmsgpack.unpack_one(cmsgpack.pack(7, 8), 0)}"), "[:1,:7]");
  EXPECT_EQ(Eval("return {cmsgpack.unpack_one(cmsgpack.pack(7, 8), 1)}"), "[:-1,:8]");
  EXPECT_EQ(Eval("return {cmsgpack.unpack_limit(cmsgpack.pack(1, 2, 3), 2)}"), "[:2,:1,:2]");
  EXPECT_EQ(Eval("return {cmsgpack.unpack_limit(cmsgpack.pack(1, 2, 3), 5, 2)}"), "[:-1,:3]");
  EXPECT_THAT(Eval("return cmsgpack.unpack('\\193')"), HasSubstr("Bad data format in input."));
  EXPECT_THAT(Eval("return cmsgpack.unpack('\\205\\1')"), HasSubstr("Missing bytes in input."));
  EXPECT_THAT(Eval("return cmsgpack.unpack_one('\\1', 5)"),
              HasSubstr("Start offset 5 greater than input length 1."));
  EXPECT_THAT(Eval("return cmsgpack.unpack_one('\\1', -1)"),
              HasSubstr("Invalid request to unpack with offset of -1 and limit of 1."));
}

// Redis's unit/scripting "cmsgpack pack/unpack smoke test", as it is there.
TEST_F(LuaLibrariesTest, RedisCmsgpackSmokeTest) {
  EXPECT_EQ(Eval(R"lua(
    local str_lt_32 = string.rep("x", 30)
    local str_lt_255 = string.rep("x", 250)
    local str_lt_65535 = string.rep("x", 65530)
    local str_long = string.rep("x", 100000)
    local array_lt_15 = {1, 2, 3, 4, 5}
    local array_lt_65535 = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18}
    local array_big = {}
    for i=1, 100000 do array_big[i] = i end
    local map_lt_15 = {a=1, b=2}
    local map_big = {}
    for i=1, 100000 do map_big[tostring(i)] = i end
    local some_map = {
      s1=str_lt_32, s2=str_lt_255, s3=str_lt_65535, s4=str_long, d1=0.1,
      i1=1, i2=250, i3=65530, i4=100000, i5=2^40, i6=-1, i7=-120, i8=-32000, i9=-100000,
      i10=-3147483648, a1=array_lt_15, a2=array_lt_65535, a3=array_big, m1=map_lt_15,
      m2=map_big, b1=false, b2=true, n=nil
    }
    local encoded = cmsgpack.pack(some_map)
    local decoded = cmsgpack.unpack(encoded)
    assert(table.concat(some_map) == table.concat(decoded))
    local offset, decoded_one = cmsgpack.unpack_one(encoded, 0)
    assert(table.concat(some_map) == table.concat(decoded_one))
    assert(offset == -1)
    assert(decoded.a3[100000] == 100000 and decoded.m2['77'] == 77 and decoded.i10 == -3147483648)
    assert(decoded.s4 == str_long and decoded.d1 == 0.1 and decoded.b1 == false)

    local encoded_multiple = cmsgpack.pack(str_lt_32, str_lt_255, str_lt_65535, str_long)
    local offset, obj = cmsgpack.unpack_limit(encoded_multiple, 1, 0)
    assert(obj == str_lt_32)
    offset, obj = cmsgpack.unpack_limit(encoded_multiple, 1, offset)
    assert(obj == str_lt_255)
    offset, obj = cmsgpack.unpack_limit(encoded_multiple, 1, offset)
    assert(obj == str_lt_65535)
    offset, obj = cmsgpack.unpack_limit(encoded_multiple, 1, offset)
    assert(obj == str_long)
    assert(offset == -1)
    return 'ok')lua"),
            "$ok");
}

// Redis's "cmsgpack can pack and unpack circular references?".
TEST_F(LuaLibrariesTest, RedisCmsgpackCircularReferences) {
  EXPECT_EQ(Eval(R"lua(
    local a = {x=nil,y=5}
    local b = {x=a}
    a['x'] = b
    local encoded = cmsgpack.pack(a)
    local re = cmsgpack.unpack(encoded)
    assert(re)
    assert(re.x)
    assert(re.x.x.y == re.y)
    assert(re.x.x.x.x.y == re.y)
    assert(re.x.x.x.x.x.x.y == re.y)
    assert(re.x.x.x.x.x.x.x.x.x.x.y == re.y)
    -- maximum working depth:
    assert(re.x.x.x.x.x.x.x.x.x.x.x.x.x.x.y == re.y)
    -- now the last x would be b above and has no y
    assert(re.x.x.x.x.x.x.x.x.x.x.x.x.x.x.x)
    -- so, the final x.x is at the depth limit and was assigned nil
    assert(re.x.x.x.x.x.x.x.x.x.x.x.x.x.x.x.x == nil)
    return 'ok')lua"),
            "$ok");
}

TEST_F(LuaLibrariesTest, LibrariesAreReadOnly) {
  EXPECT_THAT(Eval("cmsgpack.pack = function() return 1 end"),
              HasSubstr("Attempt to modify a readonly table"));
  EXPECT_THAT(Eval("struct.pack = nil"), HasSubstr("Attempt to modify a readonly table"));
}

TEST_F(LuaLibrariesTest, StructPacks) {
  EXPECT_EQ(Hex("struct.pack('>I2 c3 b', 258, 'abc', -1)"), "$0102616263ff");
  EXPECT_EQ(Hex("struct.pack('<i4', -2)"), "$feffffff");
  EXPECT_EQ(Hex("struct.pack('>h H', -2, 65535)"), "$fffeffff");
  EXPECT_EQ(Hex("struct.pack('<l', 1)"), "$0100000000000000");
  EXPECT_EQ(Hex("struct.pack('>I3', 66051)"), "$010203");
  EXPECT_EQ(Hex("struct.pack('<i10', -1)"), "$ffffffffffffffff0000");  // zeros past 8 bytes
  EXPECT_EQ(Hex("struct.pack('<d', 1.5)"), "$000000000000f83f");
  EXPECT_EQ(Hex("struct.pack('>d', 1.5)"), "$3ff8000000000000");
  EXPECT_EQ(Hex("struct.pack('>f', 1.5)"), "$3fc00000");
  EXPECT_EQ(Hex("struct.pack('s', 'ab')"), "$616200");
  EXPECT_EQ(Hex("struct.pack('c0', 'abc')"), "$616263");
  EXPECT_EQ(Hex("struct.pack('c2', 'abc')"), "$6162");
  EXPECT_EQ(Hex("struct.pack('bxb', 1, 2)"), "$010002");
  // Alignment: `!4` pads the int to a multiple of 4; without `!` nothing is padded.
  EXPECT_EQ(Hex("struct.pack('<!4 b i', 1, 2)"), "$0100000002000000");
  EXPECT_EQ(Hex("struct.pack('<b i', 1, 2)"), "$0102000000");
  EXPECT_EQ(Hex("struct.pack('<! b d', 1, 0)"), "$01000000000000000000000000000000");
  EXPECT_EQ(Eval("return struct.size('!4 b i d')"), ":16");
  EXPECT_EQ(Eval("return struct.size('b i')"), ":5");
  EXPECT_EQ(Eval("return struct.size('c10 x I2')"), ":13");
}

TEST_F(LuaLibrariesTest, StructUnpacks) {
  EXPECT_EQ(Eval("return {struct.unpack('>I3', '\\1\\2\\3')}"), "[:66051,:4]");
  EXPECT_EQ(Eval("return {struct.unpack('b B', '\\255\\255')}"), "[:-1,:255,:3]");
  EXPECT_EQ(Eval("return {struct.unpack('<h', '\\254\\255')}"), "[:-2,:3]");
  EXPECT_EQ(Eval("return {struct.unpack('s b', 'ab\\0\\7')}"), "[$ab,:7,:5]");
  EXPECT_EQ(Eval("return {struct.unpack('b c0', struct.pack('b c0', 3, 'abc'))}"), "[$abc,:5]");
  EXPECT_EQ(Eval("return {struct.unpack('c2', 'abcd', 3)}"), "[$cd,:5]");
  EXPECT_EQ(Eval("return struct.unpack('>d', struct.pack('>d', 0.1)) == 0.1"), ":1");
  EXPECT_EQ(Eval("return {struct.unpack('<!4 b i', struct.pack('<!4 b i', 1, -7))}"),
            "[:1,:-7,:9]");
}

TEST_F(LuaLibrariesTest, StructErrors) {
  EXPECT_THAT(Eval("return struct.pack('q', 1)"),
              HasSubstr("bad argument #1 to 'pack' (invalid format option 'q')"));
  EXPECT_THAT(Eval("return struct.pack('i33', 1)"),
              HasSubstr("integral size 33 is larger than limit of 32"));
  EXPECT_THAT(Eval("return struct.pack('!3 i', 1)"), HasSubstr("alignment 3 is not a power of 2"));
  EXPECT_THAT(Eval("return struct.pack('c5', 'ab')"), HasSubstr("string too short"));
  EXPECT_THAT(Eval("return struct.unpack('i4', 'ab')"),
              HasSubstr("bad argument #2 to 'unpack' (data string too short)"));
  EXPECT_THAT(Eval("return struct.unpack('c0', 'x')"),
              HasSubstr("format 'c0' needs a previous size"));
  EXPECT_THAT(Eval("return struct.unpack('s', 'ab')"), HasSubstr("unfinished string in data"));
  EXPECT_THAT(Eval("return struct.unpack('b', 'a', 0)"), HasSubstr("offset must be 1 or greater"));
  EXPECT_THAT(Eval("return struct.size('s')"), HasSubstr("option 's' has no fixed size"));
  EXPECT_THAT(Eval("return struct.size('c0')"), HasSubstr("option 'c0' has no fixed size"));
}

}  // namespace
}  // namespace ebb::test
