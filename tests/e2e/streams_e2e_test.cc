// End-to-end: responses read as streams of events (--stream), against servers nobody here
// wrote. aiohttp streams server-sent events (a comment, an id and a data line each, CRLF line
// ends) or NDJSON lines, 20 ms apart; reached directly, through nginx with proxy_buffering off
// (HTTP/1.1 and HTTP/2 over TLS) and through caddy's reverse_proxy (HTTP/3). Every event is
// counted exactly, each request's first event and the gaps between its events are timed, the
// OpenAI stream's [DONE] is counted, and an event stream written a byte at a time gives the
// same counts. The times are checked only from below (the server's own waits), so the tests
// run beside others.
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

constexpr uint64_t kStreamRequests = 20;
constexpr uint64_t kEventsEach = 5;

// `run` read kStreamRequests streams of kEventsEach events each, `gap_ms` apart.
void ExpectEvents(const RunOutput& run, uint64_t done = 0, double gap_ms = 20) {
  ASSERT_EQ(run.process.exit_code, 0) << run.process.err;
  EXPECT_EQ(JsonCount(run.json, "outcomes.ok"), kStreamRequests);
  EXPECT_EQ(JsonCount(run.json, "streams.responses"), kStreamRequests);
  EXPECT_EQ(JsonCount(run.json, "streams.events"), kStreamRequests * (kEventsEach + done));
  EXPECT_EQ(JsonCount(run.json, "streams.done"), kStreamRequests * done);
  EXPECT_EQ(JsonCount(run.json, "streams.first_event_histogram.count"), kStreamRequests);
  EXPECT_EQ(JsonCount(run.json, "streams.event_gap_histogram.count"),
            kStreamRequests * (kEventsEach + done - 1));
  if (gap_ms > 0) {
    // The server's 20 ms, less the 4.4% of a bucket's width.
    EXPECT_GE(JsonNumber(run.json, "streams.event_gap_seconds.p50"), gap_ms * 0.95 / 1e3);
  }
  // The first event came before the request ended, after the head.
  EXPECT_LE(JsonNumber(run.json, "streams.first_event_seconds.p50"),
            JsonNumber(run.json, "latency_seconds.p50"));
  EXPECT_GE(JsonNumber(run.json, "streams.first_event_seconds.p50"),
            JsonNumber(run.json, "head_seconds.p50") * 0.95);
}

std::vector<std::string> Args(const std::string& url, std::vector<std::string> more = {}) {
  std::vector<std::string> args = {"-n", std::to_string(kStreamRequests), "-c", "4", "--stream",
                                   "sse"};
  args.insert(args.end(), more.begin(), more.end());
  args.push_back(url);
  return args;
}

TEST(StreamsE2ETest, ServerSentEventsFromAiohttpOverHttp1) {
  StreamServer server;
  ASSERT_TRUE(server.ok());
  ExpectEvents(RunUringload(Args(server.Url("/events?n=5&gap_ms=20"))));
  ExpectEvents(RunUringload(Args(server.Url("/events?n=5&gap_ms=20&done=1"))), /*done=*/1);
  // A byte a packet: the same events.
  ExpectEvents(RunUringload(Args(server.Url("/events?n=5&gap_ms=0&bytewise=1"))), 0, 0);
  // --expect-events: five are enough for 5, not for 6.
  ExpectEvents(RunUringload(Args(server.Url("/events?n=5&gap_ms=1"), {"--expect-events", "5"})), 0,
               1);
  RunOutput short_of =
      RunUringload(Args(server.Url("/events?n=5&gap_ms=1"), {"--expect-events", "6"}));
  EXPECT_EQ(JsonCount(short_of.json, "outcomes.check_failed"), kStreamRequests);
  EXPECT_EQ(JsonCount(short_of.json, "streams.events"), kStreamRequests * kEventsEach);
  EXPECT_NE(short_of.json.at("errors.0.message").find("fewer events than --expect-events"),
            std::string::npos);
  EXPECT_EQ(JsonCount(server.Stop(), "requests"), 5 * kStreamRequests);
}

TEST(StreamsE2ETest, NdjsonLinesAreEvents) {
  StreamServer server;
  ASSERT_TRUE(server.ok());
  RunOutput run = RunUringload({"-n", std::to_string(kStreamRequests), "-c", "4", "--stream",
                                "ndjson", server.Url("/lines?n=5&gap_ms=20")});
  ExpectEvents(run);
  EXPECT_EQ(run.json.at("streams.format"), "ndjson");
}

TEST(StreamsE2ETest, ServerSentEventsThroughNginxOverHttp1AndHttp2) {
  StreamServer upstream;
  ASSERT_TRUE(upstream.ok());
  NginxServer nginx(upstream.BehindNginx());
  ASSERT_TRUE(nginx.ok());
  for (const char* version : {"--http1.1", "--http2"}) {
    SCOPED_TRACE(version);
    ExpectEvents(RunUringload(Args(nginx.Url("/stream/events?n=5&gap_ms=20&done=1"),
                                   {version, "-p", "4", "--cacert", SharedCert().cert()})),
                 /*done=*/1);
  }
  EXPECT_EQ(nginx.RequestsLoggedWith("HTTP/1.1"), kStreamRequests);
  EXPECT_EQ(nginx.RequestsLoggedWith("HTTP/2.0"), kStreamRequests);
}

TEST(StreamsE2ETest, ServerSentEventsThroughCaddyOverHttp3) {
  StreamServer upstream;
  ASSERT_TRUE(upstream.ok());
  CaddyServer caddy(SharedCert().cert(), SharedCert().key(), upstream.BehindCaddy());
  ASSERT_TRUE(caddy.ok());
  ExpectEvents(RunUringload(Args(caddy.Url("/events?n=5&gap_ms=20&done=1"),
                                 {"--http3", "-p", "4", "--cacert", SharedCert().cert()})),
               /*done=*/1);
  caddy.Stop();
  EXPECT_EQ(caddy.RequestsLoggedWith("HTTP/3.0"), kStreamRequests);
}

TEST(StreamsE2ETest, ABadStreamFormatIsRefusedBeforeAnyTraffic) {
  StreamServer server;
  ASSERT_TRUE(server.ok());
  RunOutput run = RunUringload({"-n", "3", "--stream", "websocket", server.Url("/events")});
  EXPECT_EQ(run.process.exit_code, 2);
  EXPECT_NE(run.process.err.find("--stream must be none, sse"), std::string::npos)
      << run.process.err;
  EXPECT_EQ(JsonCount(server.Stop(), "requests"), 0u);
}

}  // namespace
}  // namespace uringload::testing
