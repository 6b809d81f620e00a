// End-to-end, timed (so it runs alone): --metrics-listen adds no delay to a run's or a
// server's exit.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include "absl/time/clock.h"
#include "tests/e2e/uringload_runner.h"
#include "tests/e2e/uringload_server.h"
#include "tests/support/ports.h"
#include "tests/support/uringload_binary.h"

namespace uringload::testing {
namespace {

// civetweb, under prometheus-cpp, notices a stop only when its poll() returns: every 2 s or on
// a connection. Both roles nudge it, so --metrics-listen adds no exit delay: a 10-request run
// took 2.02 s with it before, 0.12 s without. 1 s leaves room for a slow machine and still
// fails the 2 s wait.
TEST(MetricsTrustTest, MetricsEndpointAddsNoExitDelay) {
  UringloadServer server;
  ASSERT_TRUE(server.ok());
  absl::Time start = absl::Now();
  RunOutput run = RunUringload(
      {"-n", "10", "-c", "1", "--metrics-listen", LoopbackAddress(FreePort()), server.Url("/")});
  absl::Duration took = absl::Now() - start;
  ExpectAllOk(run, 10);
  EXPECT_LT(took, absl::Seconds(1)) << "run with --metrics-listen";

  uint16_t port = FreePort();
  BackgroundProcess serve({UringloadBinary(), "serve", "-q", "--listen",
                           LoopbackAddress(FreePort()), "--metrics-listen", LoopbackAddress(port)});
  ASSERT_TRUE(WaitForListener(port));
  usleep(100'000);  // Serving: the stop below is the one under test.
  start = absl::Now();
  EXPECT_EQ(serve.Stop(SIGTERM), 0);
  EXPECT_LT(absl::Now() - start, absl::Seconds(1)) << "serve with --metrics-listen, SIGTERM";
}

}  // namespace
}  // namespace uringload::testing
