#include "net/address.h"

#include <gtest/gtest.h>

namespace uringload::net {
namespace {

TEST(AddressTest, ResolvesLiterals) {
  absl::StatusOr<SocketAddress> v4 = Resolve("127.0.0.1", 8080);
  ASSERT_TRUE(v4.ok()) << v4.status();
  EXPECT_EQ(v4->family(), AF_INET);
  EXPECT_EQ(v4->ToString(), "127.0.0.1:8080");
  absl::StatusOr<SocketAddress> v6 = Resolve("::1", 80);
  ASSERT_TRUE(v6.ok()) << v6.status();
  EXPECT_EQ(v6->ToString(), "[::1]:80");
  EXPECT_TRUE(Resolve("localhost", 80).ok());
}

TEST(AddressTest, UnknownHostIsAnError) {
  absl::StatusOr<SocketAddress> bad = Resolve("no-such-host.invalid", 80);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("no-such-host.invalid"), std::string::npos);
}

}  // namespace
}  // namespace uringload::net
