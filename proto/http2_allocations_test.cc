// Allocations per request over HTTP/2 in steady state: none by Http2ClientSession itself
// (every operator new of this program is counted while the session runs), and nghttp2's own
// (its memory callbacks) a bounded handful per stream, all given back. Its own program: it replaces
// the global operator new.
#include <gtest/gtest.h>
#include <malloc.h>

#include <cstdio>
#include <cstdlib>
#include <new>
#include <string>

#include "proto/http2_client_session.h"
#include "proto/testing/http2_test_server.h"

namespace {
bool counting = false;
uint64_t news = 0;
}  // namespace

// GCC takes the replacements' free() for a mismatch with the operator new they replace.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
void* operator new(size_t size) {
  if (counting) ++news;
  void* ptr = std::malloc(size == 0 ? 1 : size);
  if (ptr == nullptr) throw std::bad_alloc();
  return ptr;
}
void operator delete(void* ptr) noexcept { std::free(ptr); }
void operator delete(void* ptr, size_t) noexcept { std::free(ptr); }
#pragma GCC diagnostic pop

namespace uringload::proto {
namespace {

using testing::Http2TestServer;

// Counts ends without allocating.
class Ends : public Http2ClientSession::Events {
 public:
  void OnStreamEnd(const StreamEnd& end) override { ok += end.complete ? 1 : 0; }
  uint64_t ok = 0;
};

// Runs `n` requests, `streams` at a time; the session's calls run with `counting` on.
void RunRequests(Http2ClientSession& client, Http2TestServer& server, const RequestTemplate& t,
                 uint64_t first, uint64_t n, uint32_t streams) {
  std::string to_server;
  std::string to_client;
  for (uint64_t i = first; i < first + n; i += streams) {
    counting = true;
    for (uint32_t k = 0; k < streams; ++k) ASSERT_TRUE(client.Submit(t, {.index = i + k}, k).ok());
    counting = false;
    for (int round = 0; round < 100; ++round) {
      to_server.clear();
      counting = true;
      for (std::string_view out; !(out = client.Output()).empty();) {
        counting = false;
        to_server.append(out);
        counting = true;
        client.Sent(static_cast<uint32_t>(out.size()));
      }
      counting = false;
      ASSERT_TRUE(server.Receive(to_server));
      to_client = server.Output();
      if (to_server.empty() && to_client.empty()) break;
      counting = true;
      ASSERT_TRUE(client.Receive(to_client).ok());
      counting = false;
    }
    ASSERT_EQ(client.open_streams(), 0u);
  }
}

TEST(Http2AllocationsTest, TheSessionAllocatesNothingPerRequestAndNghttp2ABoundedFew) {
  constexpr uint32_t kStreams = 16;
  constexpr uint64_t kRequests = 16'000;
  RequestSpec spec;
  spec.target = "/item/{i}";
  spec.host_header = "example.test";
  absl::StatusOr<RequestTemplate> t = RequestTemplate::Build(spec);
  ASSERT_TRUE(t.ok());
  Http2TestServer server;
  // A worker's memory, with its shared buffers made by another session (kept open, so that
  // its blocks are not on the worker's lists for the next session to take).
  Http2Memory memory;
  Http2ClientSession first(kStreams, Http2ClientSettings{}, &memory);
  Ends ignored;
  ASSERT_TRUE(first.Start(&ignored).ok());
  for (std::string_view out; !(out = first.Output()).empty();) {
    first.Sent(static_cast<uint32_t>(out.size()));  // Its output buffer goes back.
  }
  size_t heap_before = mallinfo2().uordblks;
  Http2ClientSession client(kStreams, Http2ClientSettings{}, &memory);
  Ends ends;
  ASSERT_TRUE(client.Start(&ends).ok());  // Allocates nghttp2's session, nothing else.
  // A figure for docs/performance.md, not a check: ASan's allocator reports no mallinfo.
  size_t session_bytes = mallinfo2().uordblks - heap_before;
  size_t kept_after_start = memory.blocks().kept();    // Freed by nghttp2 while starting.
  RunRequests(client, server, *t, 0, 1600, kStreams);  // Warm: buffers at their sizes.
  uint64_t nghttp2_before = client.nghttp2_allocations();
  int64_t live_before = client.nghttp2_live_allocations();
  [[maybe_unused]] uint64_t made_before = memory.blocks().made();
  [[maybe_unused]] size_t kept_before = memory.blocks().kept();
  news = 0;
  RunRequests(client, server, *t, 1600, kRequests, kStreams);
  EXPECT_EQ(ends.ok, 1600 + kRequests);
  EXPECT_EQ(news, 0u) << "operator new calls by the session over " << kRequests << " requests";
  double per_request =
      static_cast<double>(client.nghttp2_allocations() - nghttp2_before) / kRequests;
  std::printf(
      "nghttp2: %.2f allocations per request; a session: %zu bytes of heap, %zu blocks of them "
      "freed while it started and kept for reuse\n",
      per_request, session_bytes, kept_after_start);
  EXPECT_LE(per_request, 4.0);
  // What nghttp2 holds does not grow with the requests (every stream's memory went back).
  EXPECT_EQ(client.nghttp2_live_allocations(), live_before);
  EXPECT_GT(live_before, 0);
  // The worker's kept blocks served them: none was made once warm, and what is kept did not
  // grow either. Not under ASan, where SmallBlocks leaves every block to ASan's allocator.
#if !defined(__SANITIZE_ADDRESS__)
  EXPECT_EQ(memory.blocks().made(), made_before);
  EXPECT_EQ(memory.blocks().kept(), kept_before);
  EXPECT_GT(kept_before, 0u);
#endif
}

}  // namespace
}  // namespace uringload::proto
