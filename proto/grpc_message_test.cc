#include "proto/grpc_message.h"

#include <gtest/gtest.h>

#include <string>

namespace uringload::proto {
namespace {

std::string Framed(std::string_view message) {
  std::string out(kGrpcPrefixBytes, '\0');
  WriteGrpcPrefix(static_cast<uint32_t>(message.size()), out.data());
  out.append(message);
  return out;
}

TEST(GrpcMessageTest, ThePrefixIsAZeroFlagAndABigEndianLength) {
  char prefix[kGrpcPrefixBytes];
  WriteGrpcPrefix(0x01020304, prefix);
  EXPECT_EQ(std::string(prefix, 5), std::string("\x00\x01\x02\x03\x04", 5));
  // Read back as written; a compressed one's flag; fewer than 5 bytes are no prefix.
  std::optional<GrpcPrefix> read = ReadGrpcPrefix({prefix, kGrpcPrefixBytes});
  ASSERT_TRUE(read.has_value());
  EXPECT_EQ(read->flag, 0);
  EXPECT_EQ(read->size, 0x01020304u);
  read = ReadGrpcPrefix(std::string_view("\x01\xff\x00\x00\x01rest", 9));
  ASSERT_TRUE(read.has_value());
  EXPECT_EQ(read->flag, 1);
  EXPECT_EQ(read->size, 0xff000001u);
  EXPECT_FALSE(ReadGrpcPrefix(std::string_view(prefix, 4)).has_value());
}

// Three messages (one empty) arrive whole whatever the pieces: fed a byte at a time, in two
// halves, and at once.
TEST(GrpcMessageTest, CountsWholeMessagesAcrossAnyPieces) {
  std::string stream = Framed("hello") + Framed("") + Framed(std::string(70000, 'x'));
  for (size_t piece : {size_t{1}, stream.size() / 2, stream.size()}) {
    GrpcMessageCounter counter;
    std::vector<uint64_t> seen;
    for (size_t at = 0; at < stream.size(); at += piece) {
      ASSERT_TRUE(counter.Feed(std::string_view(stream).substr(at, piece)));
      seen.push_back(counter.messages());
    }
    EXPECT_EQ(counter.messages(), 3u) << piece;
    EXPECT_TRUE(counter.AtBoundary());
  }
}

TEST(GrpcMessageTest, HalfAMessageIsNotABoundary) {
  GrpcMessageCounter counter;
  std::string stream = Framed("hello");
  ASSERT_TRUE(counter.Feed(std::string_view(stream).substr(0, 3)));  // Inside the prefix.
  EXPECT_FALSE(counter.AtBoundary());
  ASSERT_TRUE(counter.Feed(std::string_view(stream).substr(3, 4)));  // Inside the body.
  EXPECT_FALSE(counter.AtBoundary());
  EXPECT_EQ(counter.messages(), 0u);
  ASSERT_TRUE(counter.Feed(std::string_view(stream).substr(7)));
  EXPECT_TRUE(counter.AtBoundary());
  EXPECT_EQ(counter.messages(), 1u);
}

TEST(GrpcMessageTest, ACompressedFlagAnUnknownFlagOrAnOversizedLengthIsMalformed) {
  for (std::string prefix :
       {std::string("\x01\x00\x00\x00\x01", 5), std::string("\x02\x00\x00\x00\x01", 5),
        std::string("\x00\x00\x00\x01\x01", 5)}) {
    GrpcMessageCounter counter(/*max_message_bytes=*/256);
    EXPECT_FALSE(counter.Feed(prefix + "x"));
    EXPECT_TRUE(counter.malformed());
    EXPECT_FALSE(counter.AtBoundary());
    EXPECT_FALSE(counter.Feed(Framed("ok")));  // Malformed stays malformed.
  }
  GrpcMessageCounter at_limit(/*max_message_bytes=*/256);
  EXPECT_TRUE(at_limit.Feed(Framed(std::string(256, 'y'))));
  EXPECT_EQ(at_limit.messages(), 1u);
}

TEST(GrpcMessageTest, ResetStartsAStreamAfresh) {
  GrpcMessageCounter counter;
  ASSERT_TRUE(counter.Feed(Framed("a").substr(0, 2)));
  counter.Reset();
  ASSERT_TRUE(counter.Feed(Framed("b")));
  EXPECT_EQ(counter.messages(), 1u);
  EXPECT_TRUE(counter.AtBoundary());
}

}  // namespace
}  // namespace uringload::proto
