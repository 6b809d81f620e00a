// End-to-end, timed (so it runs alone): the time to a response's head and to its body's first
// byte, for every protocol, against servers nobody here wrote. aiohttp sends each response's
// head at once and its body 100 ms later; reached directly (HTTP/1.1), through nginx with
// proxy_buffering off (HTTP/1.1 and HTTP/2 over TLS) and through caddy's reverse_proxy
// (HTTP/3), every ok request has both times, the head before the body, and a threshold on the
// first byte decides the exit.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/e2e/uringload_runner.h"
#include "tests/support/caddy.h"
#include "tests/support/nginx.h"
#include "tests/support/stream_server.h"
#include "tests/support/tls_certs.h"

namespace uringload::testing {
namespace {

constexpr int kTimedRequests = 40;

// Every ok request of `run` has a head and a first byte, the body came ~100 ms after the
// server's head (`head_alone`: the head came alone, well before), and the request ended
// after its first byte.
void ExpectHeadThenBody(const RunOutput& run, bool head_alone = true) {
  ASSERT_EQ(run.process.exit_code, 0) << run.process.err;
  EXPECT_EQ(JsonCount(run.json, "outcomes.ok"), static_cast<uint64_t>(kTimedRequests));
  EXPECT_EQ(JsonCount(run.json, "head_histogram.count"), static_cast<uint64_t>(kTimedRequests));
  EXPECT_EQ(JsonCount(run.json, "first_byte_histogram.count"),
            static_cast<uint64_t>(kTimedRequests));
  double head = JsonNumber(run.json, "head_seconds.p50");
  double first_byte = JsonNumber(run.json, "first_byte_seconds.p50");
  EXPECT_GT(head, 0);
  EXPECT_GE(first_byte, 0.095);  // The server waited 100 ms (buckets are 4.4% wide).
  if (head_alone) {
    EXPECT_GE(first_byte - head, 0.080);
  } else {
    EXPECT_LE(head, first_byte);
  }
  EXPECT_GE(JsonNumber(run.json, "latency_seconds.p50"), first_byte * 0.95);
}

TEST(ResponseTimesTest, Http1HeadThenBodyFromAiohttp) {
  StreamServer server;
  ASSERT_TRUE(server.ok());
  RunOutput run = RunUringload({"-n", std::to_string(kTimedRequests), "-c", "4", "--fail-if",
                                "ttfb.p50<90ms", server.Url("/late-body?ms=100")});
  ExpectHeadThenBody(run);
  EXPECT_EQ(JsonCount(server.Stop(), "requests"), static_cast<uint64_t>(kTimedRequests));
  // The same run with a bound the first byte breaks fails with exit 3, naming it.
  StreamServer again;
  ASSERT_TRUE(again.ok());
  RunOutput failed = RunUringload(
      {"-n", "4", "-c", "4", "--fail-if", "ttfb.p50>90ms", again.Url("/late-body?ms=100")});
  EXPECT_EQ(failed.process.exit_code, 3) << failed.process.err;
  EXPECT_EQ(failed.json["thresholds.0.expr"], "ttfb.p50>90ms");
}

// nginx 1.22's HTTP/2 holds a response's HEADERS until its first DATA (nghttp -v shows both
// frames at once), so there the head comes with the body; over HTTP/1.1 it comes alone.
TEST(ResponseTimesTest, HttpsThroughNginxUnbuffered) {
  StreamServer upstream;
  ASSERT_TRUE(upstream.ok());
  NginxServer nginx(upstream.BehindNginx());
  ASSERT_TRUE(nginx.ok());
  for (const char* version : {"--http1.1", "--http2"}) {
    SCOPED_TRACE(version);
    RunOutput run =
        RunUringload({"-n", std::to_string(kTimedRequests), "-c", "2", "-p", "4", version,
                      "--cacert", SharedCert().cert(), nginx.Url("/stream/late-body?ms=100")});
    ExpectHeadThenBody(run, /*head_alone=*/std::string(version) == "--http1.1");
  }
  EXPECT_EQ(nginx.RequestsLoggedWith("HTTP/1.1"), static_cast<uint64_t>(kTimedRequests));
  EXPECT_EQ(nginx.RequestsLoggedWith("HTTP/2.0"), static_cast<uint64_t>(kTimedRequests));
}

TEST(ResponseTimesTest, Http3ThroughCaddyFlushingEachPiece) {
  StreamServer upstream;
  ASSERT_TRUE(upstream.ok());
  CaddyServer caddy(SharedCert().cert(), SharedCert().key(), upstream.BehindCaddy());
  ASSERT_TRUE(caddy.ok());
  RunOutput run =
      RunUringload({"-n", std::to_string(kTimedRequests), "-c", "2", "-p", "4", "--http3",
                    "--cacert", SharedCert().cert(), caddy.Url("/late-body?ms=100")});
  ExpectHeadThenBody(run);
  caddy.Stop();
  EXPECT_EQ(caddy.RequestsLoggedWith("HTTP/3.0"), static_cast<uint64_t>(kTimedRequests));
}

}  // namespace
}  // namespace uringload::testing
