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

TEST(SourceAddressesTest, RejectsBadInput) {
  for (const char* bad : {"", "x", "127.0.0.9-127.0.0.2", "127.0.0.0/8", "127.0.0.0/33",
                          "127.0.0.1-", "1.2.3.4/x", "127.0.0.0-127.1.0.0", "127.0.0.1,,"}) {
    EXPECT_FALSE(ParseSourceAddresses(bad).ok()) << bad;
  }
}

}  // namespace
}  // namespace uringload::net
