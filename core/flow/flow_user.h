// FlowUser: one virtual user of a flow run, bound to one connection slot of a worker: the
// iteration it is in and the step it is at, its variables, its cookie jar and what it reads
// from the answer to its current step (as a proto::ResponseInspector). All of its memory is
// made with it (and a worker's PatternScratch for regexes); an iteration, a request and a
// response allocate nothing.
//
//   idle --Begin--> step k --Judge ok, Advance--> step k+1 (after a think) ... --> idle
//                          \--a failed request or check: Abort (aborted at step k)--> idle
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "core/flow/cookie_jar.h"
#include "core/flow/flow_program.h"
#include "core/outcome.h"
#include "proto/json_pointer_scanner.h"
#include "proto/request_template.h"
#include "proto/response_parser.h"

namespace uringload::core {

class FlowUser : public proto::ResponseInspector, private proto::ColumnWriter {
 public:
  // `clock`: the worker's clock after its last wait, read when a cookie arrives;
  // `path_bytes`: the longest path a step's request renders; `patterns`: where regexes search
  // (the worker's, shared by its users: one searches at a time), needed when the program has any.
  FlowUser(const FlowProgram* program, std::span<const size_t> data_sizes, size_t path_bytes,
           const int64_t* clock, PatternScratch* patterns);
  FlowUser(const FlowUser&) = delete;
  FlowUser& operator=(const FlowUser&) = delete;
  FlowUser(FlowUser&&) = default;

  bool in_iteration() const { return active_; }
  // Waiting out a think before its next step, or after its last one before its next
  // iteration (until think_until_ns()).
  bool thinking() const { return think_until_ns_ != 0; }
  int64_t think_until_ns() const { return think_until_ns_; }
  uint64_t iteration() const { return iteration_; }
  bool warmup() const { return warmup_; }
  int64_t iteration_started_ns() const { return started_ns_; }
  // The current step: its index among every flow's steps (the plan's target).
  uint32_t step() const { return step_; }
  // Its position in its flow (0 for the first step).
  uint32_t position() const { return step_ - program_->flows[flow_].first_step; }

  // Iteration `index` of flow `flow` begins with its first step; `row`: its --data row;
  // `seed`: --seed, which its think times are drawn under.
  void Begin(uint64_t index, uint32_t flow, std::span<const std::string_view> row, bool warmup,
             int64_t now_ns, uint64_t seed);
  // What the current step's request renders from: `base` with the row and the variables, the
  // Cookie line for `request`'s path written by the user itself (ColumnWriter).
  proto::TemplateContext Context(proto::TemplateContext base, const proto::RequestTemplate& request,
                                 int64_t now_ns);
  // The current step's complete response had `status` (and, a gRPC call, `grpc_status`; -1
  // without one): the expectation it missed, or none (its extractions are then in the
  // variables).
  std::optional<CheckFailure> Judge(int status, int grpc_status, int64_t now_ns);
  enum class Next { kStep, kThink, kCompleted };
  // After a step that ended ok: the next one (now, or once a think ends), or the end (and
  // thinking() if the last step has a think).
  Next Advance(int64_t now_ns);
  void EndThink() { think_until_ns_ = 0; }
  // The current step failed: the iteration ends there (its later steps never start).
  void Abort() { active_ = false; }
  // The run ended: an iteration under way neither completed nor was aborted; no think waits.
  void Cut() {
    active_ = false;
    think_until_ns_ = 0;
  }

  // proto::ResponseInspector.
  void OnResponseBegin() override;
  void OnHeaderName(std::string_view piece) override;
  void OnHeaderValue(std::string_view piece) override;
  void OnHeaderEnd() override;
  void OnBody(std::string_view piece) override;

  // Bytes this user holds beyond its connection (docs/performance.md).
  size_t memory_bytes() const;

 private:
  const FlowStepProgram& current() const { return program_->steps[step_]; }
  std::string_view Variable(uint32_t v) const {
    return {variables_.data() + size_t{v} * program_->max_var_bytes, variable_sizes_[v]};
  }
  size_t Write(std::span<char> out) const override;  // The Cookie line.
  size_t max_size() const override { return program_->CookieLineBound(); }
  std::optional<CheckFailure> JudgeFields();
  // Stores `value` in variable `v`; false when it is longer than --max-var-bytes.
  bool SetVariable(uint32_t v, std::string_view value);

  const FlowProgram* program_;
  const int64_t* clock_;
  PatternScratch* patterns_;
  bool active_ = false;
  bool warmup_ = false;
  uint32_t flow_ = 0;
  uint32_t step_ = 0;
  uint64_t iteration_ = 0;
  uint64_t seed_ = 1;
  int64_t started_ns_ = 0;
  int64_t think_until_ns_ = 0;
  // Every byte buffer below lives in bytes_, made once.
  std::vector<char> bytes_;
  std::span<char> variables_;  // --max-var-bytes per variable.
  std::vector<uint32_t> variable_sizes_;
  std::span<char> row_;  // The iteration's --data row, copied (its views last one read).
  std::vector<size_t> row_offsets_;
  std::vector<std::string_view> fields_;  // Row, variables, Cookie line (written by Write).
  CookieJar jar_;                         // Of program_->max_cookie_bytes.
  std::span<char> path_;  // The current request's path, rendered (cookies match it).
  size_t path_size_ = 0;
  int64_t render_ns_ = 0;  // The clock the Cookie line is written at.
  // The response being read.
  proto::JsonPointerScanner scanner_;
  std::vector<proto::JsonCapture> captures_;
  std::span<char> expected_scratch_;  // Where expected JSON values are captured.
  uint32_t body_state_ = 0;
  // For regexes and a gRPC answer's fields: the body's first kRegexBodyBytes.
  std::span<char> body_start_;
  size_t body_start_size_ = 0;
  // As long as the longest name the program looks for (set-cookie at least).
  std::span<char> header_name_;
  size_t header_name_size_ = 0;  // Over the span's size: a name no use matches.
  std::span<char> header_value_;
  size_t header_value_size_ = 0;
  bool header_value_overflow_ = false;
  uint32_t headers_found_ = 0;     // Bit k: HeaderUse k's header arrived.
  uint32_t headers_wrong_ = 0;     // Bit k: its value was not the expected one.
  uint32_t headers_too_long_ = 0;  // Bit k: its value did not fit.
  bool cookie_refused_ = false;
};

}  // namespace uringload::core
