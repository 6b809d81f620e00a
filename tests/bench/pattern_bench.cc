// The flows' regex extraction (core/flow/text_pattern.h, RE2 with a copy per worker) on what
// flows search: a token in a JSON answer, an absolute Location's path, a form's token near the
// end of a 4 KiB page (the most a regex extraction sees). CPU per search, and the heap
// allocations each makes: the hot path allows none once the pattern's DFA is built.
#include <benchmark/benchmark.h>

#include <atomic>
#include <cstdlib>
#include <new>
#include <string>
#include <string_view>

#include "core/flow/text_pattern.h"

namespace {

std::atomic<uint64_t> allocations{0};

struct Case {
  const char* pattern;
  std::string text;
};

Case CaseOf(int which) {
  switch (which) {
    case 0:
      return {R"re("token":"([^"]+)")re", R"({"token":"tok-0123456789abcdef","user":"user1"})"};
    case 1:
      return {R"re(^https?://[^/]*/(.*)$)re", "https://shop.test/orders/8f3a2c9e-41b7-4c1d-9e2f"};
    default: {
      std::string page = "<html><body>";
      while (page.size() < 4000) page += "<p>Lorem ipsum dolor sit amet, consectetur.</p>\n";
      page += R"(<input type="hidden" name="csrf" value="c5rf-7f3e9a1b"></body></html>)";
      return {R"re(name="csrf" value="([^"]+)")re", page};
    }
  }
}

void BM_Pattern(benchmark::State& state) {
  Case c = CaseOf(static_cast<int>(state.range(0)));
  uringload::core::TextPattern pattern = *uringload::core::TextPattern::Compile(c.pattern);
  uringload::core::PatternScratch scratch;
  uint64_t before = allocations.load();
  for (auto _ : state) benchmark::DoNotOptimize(pattern.Search(c.text, scratch));
  state.counters["allocs_per_search"] =
      static_cast<double>(allocations.load() - before) / static_cast<double>(state.iterations());
}
BENCHMARK(BM_Pattern)->DenseRange(0, 2)->ArgName("case");

}  // namespace

// Every allocation of the binary is counted (the benchmarks read the count around their loop).
// GCC takes the replacement's own free() for a mismatch with the operator it replaces.
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
void* operator new(size_t size) {
  allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, size_t) noexcept { std::free(p); }
