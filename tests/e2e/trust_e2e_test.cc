// End-to-end tests of the "numbers users can trust" fixes: protocol corner cases against
// servers that bend the rules, and output paths checked before any traffic.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/e2e/uringload_runner.h"
#include "tests/support/misbehaving_server.h"

namespace uringload::testing {
namespace {

// RFC 9112 9.6: after sending `Connection: close` a client sends nothing more on that
// connection, even when the server answers `keep-alive` and leaves the socket open.
TEST(TrustTest, NoKeepaliveNeverReusesAConnection) {
  MisbehavingServer server(MisbehavingServer::Mode::kIgnoreClose);
  RunOutput run = RunUringload({"-n", "200", "-c", "4", "--no-keepalive", server.Url()});
  ASSERT_EQ(run.process.exit_code, 0) << run.process.err;
  EXPECT_EQ(JsonCount(run.json, "outcomes.ok"), 200u);
  EXPECT_EQ(JsonCount(run.json, "connections.opened"), 200u);
  EXPECT_EQ(server.requests(), 200u);
  EXPECT_EQ(server.connections(), 200u);
}

// The same server with keep-alive: connections are reused (the test above can fail).
TEST(TrustTest, KeepaliveReusesConnectionsOfTheSameServer) {
  MisbehavingServer server(MisbehavingServer::Mode::kIgnoreClose);
  RunOutput run = RunUringload({"-n", "200", "-c", "4", "-t", "1", server.Url()});
  ASSERT_EQ(run.process.exit_code, 0) << run.process.err;
  EXPECT_EQ(JsonCount(run.json, "outcomes.ok"), 200u);
  EXPECT_EQ(JsonCount(run.json, "connections.opened"), 4u);
}

// The documented limit: a response header block of 65,536 bytes is accepted, 65,537 is not.
TEST(TrustTest, ResponseHeaderLimitIsExact) {
  for (size_t size : {size_t{65536}, size_t{65537}}) {
    MisbehavingServer server(MisbehavingServer::Mode::kHugeHeaders, 0, size);
    RunOutput run = RunUringload({"-n", "10", "-c", "2", "--timeout", "5s", server.Url()});
    ASSERT_EQ(run.process.exit_code, 0) << run.process.err;
    EXPECT_EQ(JsonCount(run.json, size == 65536 ? "outcomes.ok" : "outcomes.parse_error"), 10u)
        << size;
    if (size > 65536) {  // The reason is kept, not just "parse error".
      EXPECT_EQ(run.json["errors.0.message"], "header block over 65536 bytes");
    }
  }
}

}  // namespace
}  // namespace uringload::testing
