// Per-request user-space costs on the hot path: rendering a request, parsing a response,
// recording a latency. Each must stay far below the ~7 us the kernel spends per request.
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "core/latency_histogram.h"
#include "proto/request_template.h"
#include "proto/response_parser.h"

namespace {

using uringload::proto::RequestSpec;
using uringload::proto::RequestTemplate;
using uringload::proto::ResponseParser;

void BM_RenderIndexedRequest(benchmark::State& state) {
  RequestSpec spec;
  spec.target = "/item/{i}";
  spec.host_header = "127.0.0.1:8080";
  RequestTemplate tmpl = *RequestTemplate::Build(spec);
  std::vector<char> storage(tmpl.max_size());
  uint64_t index = 1'000'000;
  for (auto _ : state) benchmark::DoNotOptimize(tmpl.RenderInto({.index = index++}, storage));
}
BENCHMARK(BM_RenderIndexedRequest);

// A POST from placeholders: {i} in the path, a {uuid} header, a body with a data column, a
// {rand} and a {uuid} (scripts/bench's templated section sends the same).
void BM_RenderTemplatedPost(benchmark::State& state) {
  RequestSpec spec;
  spec.method = "POST";
  spec.target = "/{i}";
  spec.host_header = "127.0.0.1:8080";
  spec.headers = {"X-Id: {uuid}"};
  spec.body = R"({"user":"{user}","n":{rand:100000-999999},"id":"{uuid}"})";
  std::vector<std::string> names = {"user"};
  std::vector<size_t> widths = {8};
  RequestTemplate tmpl = *RequestTemplate::Build(spec, {names, widths});
  std::vector<char> storage(tmpl.max_size());
  std::vector<std::string_view> row = {"user0001"};
  uint64_t index = 1'000'000;
  for (auto _ : state) {
    benchmark::DoNotOptimize(tmpl.RenderInto({.index = index++, .fields = row}, storage));
  }
}
BENCHMARK(BM_RenderTemplatedPost);

void BM_ParseNginxResponse(benchmark::State& state) {
  const std::string response =
      "HTTP/1.1 200 OK\r\nServer: nginx/1.22.1\r\nDate: Mon, 30 Nov 2026 07:00:00 GMT\r\n"
      "Content-Type: text/plain\r\nContent-Length: 16\r\nConnection: keep-alive\r\n\r\n"
      "hello from nginx";
  ResponseParser parser;
  for (auto _ : state) {
    parser.Start(false);
    benchmark::DoNotOptimize(parser.Feed(response));
  }
  state.SetBytesProcessed(state.iterations() * response.size());
}
BENCHMARK(BM_ParseNginxResponse);

void BM_RecordLatency(benchmark::State& state) {
  uringload::core::LatencyHistogram histogram;
  uint64_t value = 123'456;
  for (auto _ : state) {
    histogram.Record(value);
    value = value * 6364136223846793005ull + 1442695040888963407ull;
    value >>= 34;
  }
}
BENCHMARK(BM_RecordLatency);

}  // namespace

BENCHMARK_MAIN();
