#include "net/source_addresses.h"

#include <gtest/gtest.h>

namespace uringload::net {
namespace {

std::vector<std::string> Strings(const std::string& text) {
  std::vector<std::string> out;
  absl::StatusOr<std::vector<SocketAddress>> addresses = ParseSourceAddresses(text);
  EXPECT_TRUE(addresses.ok()) << addresses.status();
  for (const SocketAddress& a : addresses.value()) out.push_back(a.ToString());
  return out;
}

TEST(SourceAddressesTest, ParsesListsRangesAndCidr) {
  EXPECT_EQ(Strings("127.0.0.2"), std::vector<std::string>{"127.0.0.2:0"});
  EXPECT_EQ(Strings("127.0.0.2,127.0.0.5"),
            (std::vector<std::string>{"127.0.0.2:0", "127.0.0.5:0"}));
  EXPECT_EQ(
      Strings("127.0.0.254-127.0.1.1"),
      (std::vector<std::string>{"127.0.0.254:0", "127.0.0.255:0", "127.0.1.0:0", "127.0.1.1:0"}));
  std::vector<std::string> cidr = Strings("127.0.0.17/28");
  ASSERT_EQ(cidr.size(), 16u);
  EXPECT_EQ(cidr.front(), "127.0.0.16:0");
  EXPECT_EQ(cidr.back(), "127.0.0.31:0");
  EXPECT_EQ(Strings("::1"), std::vector<std::string>{"[::1]:0"});
  EXPECT_EQ(Strings("127.0.0.2-127.0.0.3,10.0.0.1").size(), 3u);
}

TEST(SourceAddressesTest, Ipv6RangesAndBlocksLikeIpv4) {
  EXPECT_EQ(Strings("2001:2::fffe-2001:2::1:1"),
            (std::vector<std::string>{"[2001:2::fffe]:0", "[2001:2::ffff]:0", "[2001:2::1:0]:0",
                                      "[2001:2::1:1]:0"}));
  std::vector<std::string> block = Strings("2001:2::17/124");
  ASSERT_EQ(block.size(), 16u);
  EXPECT_EQ(block.front(), "[2001:2::10]:0");
  EXPECT_EQ(block.back(), "[2001:2::1f]:0");
  EXPECT_EQ(Strings("2001:2::/116").size(), 4096u);
  // The last addresses of each family end the range without wrapping to the first.
  EXPECT_EQ(Strings("255.255.255.254-255.255.255.255").size(), 2u);
  EXPECT_EQ(Strings("ffff:ffff:ffff:ffff:ffff:ffff:ffff:fffe/127").size(), 2u);
}

TEST(SourceAddressesTest, RejectsBadInput) {
  for (const char* bad :
       {"", "x", "127.0.0.9-127.0.0.2", "127.0.0.0/8", "127.0.0.0/33", "127.0.0.1-", "1.2.3.4/x",
        "127.0.0.0-127.1.0.0", "127.0.0.1,,", "2001:2::/115", "2001:2::/129", "2001:2::9-2001:2::2",
        "2001:2::-2001:2::1000", "127.0.0.1-::1", "::1-127.0.0.1"}) {
    EXPECT_FALSE(ParseSourceAddresses(bad).ok()) << bad;
  }
}

}  // namespace
}  // namespace uringload::net
