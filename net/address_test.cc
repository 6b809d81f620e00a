#include "net/address.h"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <fstream>
#include <string>

#include "net/listener.h"

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

TEST(AddressTest, UnixPathsFitSunPathOrAreRefused) {
  absl::StatusOr<SocketAddress> unix_socket = UnixAddress("/run/app.sock");
  ASSERT_TRUE(unix_socket.ok()) << unix_socket.status();
  EXPECT_TRUE(unix_socket->is_unix());
  EXPECT_EQ(unix_socket->UnixPath(), "/run/app.sock");
  EXPECT_EQ(unix_socket->ToString(), "unix:/run/app.sock");
  EXPECT_TRUE(UnixAddress("/" + std::string(106, 'x')).ok());  // 107 bytes and the zero.
  absl::StatusOr<SocketAddress> long_path = UnixAddress("/" + std::string(107, 'x'));
  ASSERT_FALSE(long_path.ok());
  EXPECT_NE(long_path.status().message().find("108 bytes; at most 107 fit"), std::string::npos)
      << long_path.status();
  EXPECT_FALSE(UnixAddress("").ok());
  EXPECT_EQ(Resolve("127.0.0.1", 80)->UnixPath(), "");
}

// A Unix socket target must exist, be a socket and be writable; a listener's path must be
// free, and only a stale socket is removed to free it.
TEST(AddressTest, UnixSocketTargetsAndListenPathsAreChecked) {
  char folder_template[] = "/tmp/uringload-address-XXXXXX";
  std::string folder = mkdtemp(folder_template);
  SocketAddress missing = *UnixAddress(folder + "/missing.sock");
  EXPECT_NE(CheckUnixSocketTarget(missing).message().find("No such file or directory"),
            std::string::npos);
  EXPECT_TRUE(CheckAddressFree(missing).ok());
  std::string file = folder + "/file";
  std::ofstream(file) << "x";
  SocketAddress not_socket = *UnixAddress(file);
  EXPECT_NE(CheckUnixSocketTarget(not_socket).message().find("not a socket"), std::string::npos);
  EXPECT_TRUE(absl::IsInvalidArgument(CheckAddressFree(not_socket)));

  SocketAddress path = *UnixAddress(folder + "/server.sock");
  {
    absl::StatusOr<UniqueFd> listener = OpenListener(path, 16);
    ASSERT_TRUE(listener.ok()) << listener.status();
    EXPECT_TRUE(CheckUnixSocketTarget(path).ok());
    absl::Status taken = CheckAddressFree(path);
    EXPECT_TRUE(absl::IsFailedPrecondition(taken)) << taken;
    EXPECT_EQ(access(path.UnixPath().c_str(), F_OK), 0);  // Not removed.
  }
  // Its listener closed, the socket file stays: stale, so removed.
  EXPECT_EQ(access(path.UnixPath().c_str(), F_OK), 0);
  EXPECT_TRUE(CheckAddressFree(path).ok());
  EXPECT_NE(access(path.UnixPath().c_str(), F_OK), 0);
  unlink(file.c_str());
  rmdir(folder.c_str());
}

}  // namespace
}  // namespace uringload::net
