#include "core/run/stream_meter.h"

#include <algorithm>
#include <string>

#include "absl/strings/numbers.h"
#include "net/base/absl_view.h"
#include "net/base/check.h"

namespace uringload::core {

StreamMeter::StreamMeter(proto::EventFormat format, size_t entries, WorkerStats* stats,
                         const int64_t* now, bool open_model, const LlmPlan* llm)
    : entries_(entries), stats_(stats), now_(now), open_model_(open_model), llm_(llm) {
  if (llm_ != nullptr) {
    std::string content = llm_->chat ? "/choices/0/delta/content" : "/choices/0/text";
    std::vector<std::string> pointers = {content, "/usage/completion_tokens",
                                         "/usage/prompt_tokens"};
    absl::StatusOr<proto::JsonPointerSet> set = proto::JsonPointerSet::Compile(pointers);
    URINGLOAD_CHECK(set.ok(), "the answers' JSON pointers");
    pointers_ = *std::move(set);
  }
  // Set up in place: each parser holds its entry's token reader (the vector never moves).
  for (Entry& e : entries_) {
    e.parser = proto::EventStreamParser(format);
    e.parser.SetDataCapacity(0);  // Counted and timed; the data is not kept.
    if (llm_ == nullptr) continue;
    Tokens& t = e.tokens;
    t.pointers = &pointers_;
    t.captures = {proto::JsonCapture{.buffer = t.content},
                  proto::JsonCapture{.buffer = t.completion},
                  proto::JsonCapture{.buffer = t.prompt}};
    e.parser.SetDataSink(&t);
  }
}

void StreamMeter::Tokens::OnEventData(std::string_view piece, bool first) {
  if (first) scanner.Start(pointers, captures);
  scanner.Feed(piece);
}

void StreamMeter::Begin(uint32_t entry) {
  Entry& e = entries_[entry];
  e.parser.Reset();
  e.last_event_ns = 0;
  e.events = 0;
  e.done = false;
  Tokens& t = e.tokens;
  t.first_ns = t.last_ns = t.longest_gap_ns = 0;
  t.deltas = 0;
  t.output.reset();
  t.input.reset();
}

void StreamMeter::OnBody(uint32_t entry, const PendingRequest& r, std::string_view bytes) {
  Entry& e = entries_[entry];
  int64_t start = open_model_ ? r.intended_ns : r.sent_ns;
  while (!bytes.empty()) {
    proto::EventStreamParser::Step step = e.parser.Feed(bytes);
    bytes.remove_prefix(step.consumed);
    if (!step.event) continue;
    ++e.events;
    e.done = e.done || e.parser.event().done;
    if (r.warmup) continue;
    bool first = e.last_event_ns == 0;
    stats_->EventArrived(first, static_cast<uint64_t>(*now_ - (first ? start : e.last_event_ns)));
    e.last_event_ns = *now_;
    if (llm_ != nullptr && !e.parser.event().done) ReadTokens(e, r, start);
  }
}

// The event just dispatched: a token if its delta carries content; the usage if it has one.
void StreamMeter::ReadTokens(Entry& e, const PendingRequest& /*r*/, int64_t start) {
  Tokens& t = e.tokens;
  if (t.scanner.failed()) return;  // Not JSON (an error text): no token.
  const proto::JsonCapture& content = t.captures[0];
  if (content.found && content.string && (content.size > 0 || content.overflow)) {
    ++t.deltas;
    if (t.first_ns == 0) {
      t.first_ns = *now_;
      stats_->TokenArrived(true, static_cast<uint64_t>(*now_ - start));
    } else {
      int64_t gap = *now_ - t.last_ns;
      t.longest_gap_ns = std::max(t.longest_gap_ns, gap);
      stats_->TokenArrived(false, static_cast<uint64_t>(gap));
    }
    t.last_ns = *now_;
  }
  uint64_t n = 0;
  if (t.captures[1].found && absl::SimpleAtoi(AbslView(t.captures[1].value()), &n)) t.output = n;
  if (t.captures[2].found && absl::SimpleAtoi(AbslView(t.captures[2].value()), &n)) t.input = n;
}

void StreamMeter::Completed(uint32_t entry, const PendingRequest& r) {
  Entry& e = entries_[entry];
  if (r.warmup) return;
  if (e.events > 0) stats_->StreamCompleted(e.done);
  if (llm_ != nullptr) CompleteAnswer(e, r);
}

// TPOT = (end − first token) / (output tokens − 1); good when every --goodput bound holds.
void StreamMeter::CompleteAnswer(Entry& e, const PendingRequest& r) {
  const Tokens& t = e.tokens;
  uint64_t output = t.output.value_or(t.deltas);
  int64_t start = open_model_ ? r.intended_ns : r.sent_ns;
  std::optional<uint64_t> tpot;
  if (t.first_ns != 0 && output > 1)
    tpot = static_cast<uint64_t>(*now_ - t.first_ns) / (output - 1);
  bool good = t.first_ns != 0;
  for (const GoodputBound& b : llm_->goodput) {
    int64_t value = 0;
    switch (b.measure) {
      case GoodputBound::Measure::kTtft:
        value = t.first_ns - start;
        break;
      case GoodputBound::Measure::kTpot:
        value = tpot ? static_cast<int64_t>(*tpot) : 0;
        break;
      case GoodputBound::Measure::kItl:
        value = t.longest_gap_ns;
        break;
      case GoodputBound::Measure::kE2e:
        value = *now_ - start;
        break;
    }
    good = good && value < b.below_ns;
  }
  stats_->AnswerCompleted(output, t.input, t.output.has_value(), tpot, good);
}

}  // namespace uringload::core
