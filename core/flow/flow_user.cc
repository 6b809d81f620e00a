#include "core/flow/flow_user.h"

#include <algorithm>
#include <cstring>

#include "net/base/check.h"
#include "net/base/seeded_random.h"
#include "proto/grpc_message.h"

namespace uringload::core {
namespace {

// Which random values of an iteration draw its steps' thinks (SeededRandom's salt, plus
// the step).
constexpr uint64_t kThinkSalt = 0x7468696e6b;  // "think"

char Lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

}  // namespace

FlowUser::FlowUser(const FlowProgram* program, std::span<const size_t> data_sizes,
                   size_t path_bytes, const int64_t* clock, PatternScratch* patterns)
    : program_(program), clock_(clock), patterns_(patterns), jar_(program->max_cookie_bytes) {
  URINGLOAD_CHECK(!(program->any_regex || program->any_header_pattern) || patterns != nullptr,
                  "regexes without a scratch");
  variable_sizes_.resize(program->variables.size());
  size_t row_bytes = 0;
  for (size_t size : data_sizes) {
    row_offsets_.push_back(row_bytes);
    row_bytes += size;
  }
  row_offsets_.push_back(row_bytes);
  fields_.resize(data_sizes.size() + program->variables.size() + 1);
  size_t pointers = 0;
  size_t expected = 0;
  // A Set-Cookie line is its cookie and its attributes (Path, Max-Age, Expires, ...).
  size_t header_value =
      std::max<size_t>(program->max_var_bytes, program->max_cookie_bytes + 128) + 1;
  size_t header_name = std::string_view("set-cookie").size();
  for (const FlowStepProgram& step : program->steps) {
    pointers = std::max(pointers, step.pointers.size());
    size_t bytes = 0;
    for (const std::string& value : step.json_expected) bytes += value.size() + 1;
    for (const FlowStepProgram::FieldUse& use : step.fields) {
      if (use.expected.has_value()) bytes = std::max(bytes, use.expected->size() + 1);
    }
    expected = std::max(expected, bytes);
    for (const FlowStepProgram::HeaderUse& use : step.headers) {
      if (use.expected.has_value()) header_value = std::max(header_value, use.expected->size() + 1);
      header_name = std::max(header_name, use.name.size());
    }
  }
  captures_.resize(pointers);
  size_t variable_bytes = program->variables.size() * size_t{program->max_var_bytes};
  size_t body_start = program->any_regex || program->any_grpc_fields ? kRegexBodyBytes : 0;
  bytes_.resize(variable_bytes + row_bytes + path_bytes + expected + header_value + header_name +
                body_start);
  std::span<char> rest(bytes_);
  auto take = [&rest](size_t n) {
    std::span<char> part = rest.first(n);
    rest = rest.subspan(n);
    return part;
  };
  variables_ = take(variable_bytes);
  row_ = take(row_bytes);
  path_ = take(path_bytes);
  expected_scratch_ = take(expected);
  header_value_ = take(header_value);
  header_name_ = take(header_name);
  body_start_ = take(body_start);
}

void FlowUser::Begin(uint64_t index, uint32_t flow, std::span<const std::string_view> row,
                     bool warmup, int64_t now_ns, uint64_t seed) {
  active_ = true;
  seed_ = seed;
  warmup_ = warmup;
  flow_ = flow;
  step_ = program_->flows[flow].first_step;
  iteration_ = index;
  started_ns_ = now_ns;
  think_until_ns_ = 0;
  // Each iteration starts with no variables and an empty jar: a new user logs in again.
  std::fill(variable_sizes_.begin(), variable_sizes_.end(), 0);
  jar_.Clear();
  URINGLOAD_CHECK(row.empty() || row.size() + 1 == row_offsets_.size(), "row of %zu columns",
                  row.size());
  for (size_t k = 0; k < row.size(); ++k) {
    size_t size = std::min(row[k].size(), row_offsets_[k + 1] - row_offsets_[k]);
    std::memcpy(row_.data() + row_offsets_[k], row[k].data(), size);
    fields_[k] = {row_.data() + row_offsets_[k], size};
  }
}

proto::TemplateContext FlowUser::Context(proto::TemplateContext base,
                                         const proto::RequestTemplate& request, int64_t now_ns) {
  size_t data = row_offsets_.size() - 1;
  for (uint32_t v = 0; v < variable_sizes_.size(); ++v) fields_[data + v] = Variable(v);
  fields_.back() = {};
  base.fields = fields_;
  // The step's own cookies join the jar's (as a browser that had them would send them).
  std::string_view cookies = current().sent_cookies;
  while (!cookies.empty()) {
    size_t end = cookies.find(';');
    std::string_view pair = cookies.substr(0, end);
    cookies = end == std::string_view::npos ? std::string_view() : cookies.substr(end + 1);
    while (!pair.empty() && pair.front() == ' ') pair.remove_prefix(1);
    if (!pair.empty()) jar_.Set(pair, current().host, "/", current().tls, now_ns);
  }
  // The path first (it never names the Cookie line): the cookies that go are those it matches.
  URINGLOAD_CHECK(request.path().max_size() <= path_.size(), "path of %zu bytes, room for %zu",
                  request.path().max_size(), path_.size());
  path_size_ = request.path().RenderInto(base, path_).size();
  render_ns_ = now_ns;
  base.writer = this;
  base.written_column = static_cast<uint32_t>(fields_.size() - 1);
  return base;
}

size_t FlowUser::Write(std::span<char> out) const {
  // The step's own Cookie header goes whole, as written; the jar adds the others.
  return jar_
      .RenderLine(current().host, {path_.data(), path_size_}, current().tls, render_ns_, out,
                  current().sent_cookies)
      .size();
}

void FlowUser::OnResponseBegin() {
  const FlowStepProgram& step = current();
  // The captures: expected values into the scratch, extractions into their variables.
  size_t scratch = 0;
  size_t expected = step.json_expected.size();
  for (size_t k = 0; k < step.pointers.size(); ++k) {
    if (k < expected) {
      captures_[k].buffer =
          std::span(expected_scratch_).subspan(scratch, step.json_expected[k].size() + 1);
      scratch += step.json_expected[k].size() + 1;
    } else {
      uint32_t v = step.json_variables[k - expected];
      captures_[k].buffer =
          std::span(variables_)
              .subspan(size_t{v} * program_->max_var_bytes, program_->max_var_bytes);
    }
  }
  scanner_.Start(&step.pointers, std::span(captures_).first(step.pointers.size()));
  body_state_ = 0;
  body_start_size_ = 0;
  header_name_size_ = header_value_size_ = 0;
  header_value_overflow_ = false;
  headers_found_ = headers_wrong_ = headers_too_long_ = 0;
  cookie_refused_ = false;
}

void FlowUser::OnHeaderName(std::string_view piece) {
  for (char c : piece) {
    if (header_name_size_ < header_name_.size()) header_name_[header_name_size_] = Lower(c);
    ++header_name_size_;
  }
}

void FlowUser::OnHeaderValue(std::string_view piece) {
  size_t room = header_value_.size() - header_value_size_;
  if (piece.size() > room) header_value_overflow_ = true;
  size_t n = std::min(room, piece.size());
  std::memcpy(header_value_.data() + header_value_size_, piece.data(), n);
  header_value_size_ += n;
}

void FlowUser::OnHeaderEnd() {
  std::string_view name(header_name_.data(), std::min(header_name_size_, header_name_.size()));
  std::string_view value(header_value_.data(), header_value_size_);
  bool named = header_name_size_ <= header_name_.size();
  header_name_size_ = header_value_size_ = 0;
  bool overflow = header_value_overflow_;
  header_value_overflow_ = false;
  if (!named) return;
  if (name == "set-cookie") {
    if (overflow || jar_.Set(value, current().host, {path_.data(), path_size_}, current().tls,
                             *clock_) == CookieJar::SetResult::kRefused) {
      cookie_refused_ = true;
    }
  }
  const FlowStepProgram& step = current();
  for (uint32_t k = 0; k < step.headers.size(); ++k) {
    const FlowStepProgram::HeaderUse& use = step.headers[k];
    uint32_t bit = uint32_t{1} << k;
    if (use.name != name || (headers_found_ & bit) != 0) continue;  // The first one counts.
    std::string_view taken = value;
    if (use.pattern.has_value()) {
      std::optional<std::string_view> group =
          overflow ? std::nullopt : use.pattern->Search(value, *patterns_);
      if (!group.has_value()) continue;  // Not this part of it: not extracted (yet).
      taken = *group;
    }
    headers_found_ |= bit;
    if (use.expected.has_value() && (overflow || value != *use.expected)) headers_wrong_ |= bit;
    if (use.variable >= 0 && (overflow || !SetVariable(use.variable, taken))) {
      headers_too_long_ |= bit;
    }
  }
}

void FlowUser::OnBody(std::string_view piece) {
  const FlowStepProgram& step = current();
  if (step.body != nullptr) body_state_ = step.body->Feed(body_state_, piece);
  if (step.pointers.size() > 0) scanner_.Feed(piece);
  if ((!step.regexes.empty() || !step.fields.empty()) && body_start_size_ < body_start_.size()) {
    size_t n = std::min(piece.size(), body_start_.size() - body_start_size_);
    std::memcpy(body_start_.data() + body_start_size_, piece.data(), n);
    body_start_size_ += n;
  }
}

bool FlowUser::SetVariable(uint32_t v, std::string_view value) {
  if (value.size() > program_->max_var_bytes) return false;
  std::memmove(variables_.data() + size_t{v} * program_->max_var_bytes, value.data(), value.size());
  variable_sizes_[v] = static_cast<uint32_t>(value.size());
  return true;
}

std::optional<CheckFailure> FlowUser::Judge(int status, int grpc_status, int64_t now_ns) {
  const FlowStepProgram& step = current();
  if (step.statuses.has_value() && (status < 0 || status >= 1000 || !(*step.statuses)[status])) {
    return CheckFailure::kStatus;
  }
  if (step.grpc_statuses != 0 &&
      (grpc_status < 0 || grpc_status > 31 || (step.grpc_statuses >> grpc_status & 1) == 0)) {
    return CheckFailure::kGrpcStatus;
  }
  if (!step.fields.empty()) {
    if (std::optional<CheckFailure> missed = JudgeFields(); missed.has_value()) return missed;
  }
  if (step.body != nullptr && body_state_ != proto::BodyMatcher::kFound) {
    return CheckFailure::kBodyContains;
  }
  size_t expected = step.json_expected.size();
  for (size_t k = 0; k < expected; ++k) {
    const proto::JsonCapture& c = captures_[k];
    if (!c.found || c.overflow || c.value() != step.json_expected[k]) {
      return CheckFailure::kJsonValue;
    }
  }
  for (uint32_t k = 0; k < step.headers.size(); ++k) {
    uint32_t bit = uint32_t{1} << k;
    if (step.headers[k].expected.has_value() &&
        ((headers_found_ & bit) == 0 || (headers_wrong_ & bit) != 0)) {
      return CheckFailure::kHeaderValue;
    }
  }
  if (cookie_refused_) return CheckFailure::kCookieRefused;
  // The extractions.
  for (size_t k = expected; k < step.pointers.size(); ++k) {
    const proto::JsonCapture& c = captures_[k];
    if (!c.found) return CheckFailure::kNotExtracted;
    if (c.overflow) return CheckFailure::kTooLong;
    variable_sizes_[step.json_variables[k - expected]] = c.size;
  }
  for (uint32_t k = 0; k < step.headers.size(); ++k) {
    uint32_t bit = uint32_t{1} << k;
    if (step.headers[k].variable < 0) continue;
    if ((headers_found_ & bit) == 0) return CheckFailure::kNotExtracted;
    if ((headers_too_long_ & bit) != 0) return CheckFailure::kTooLong;
  }
  for (const FlowStepProgram::CookieUse& use : step.cookies) {
    std::optional<std::string_view> value =
        jar_.Get(use.name, current().host, {path_.data(), path_size_}, current().tls, now_ns);
    if (!value.has_value()) return CheckFailure::kNotExtracted;
    if (!SetVariable(use.variable, *value)) return CheckFailure::kTooLong;
  }
  for (const FlowStepProgram::RegexUse& use : step.regexes) {
    std::optional<std::string_view> group =
        use.pattern.Search({body_start_.data(), body_start_size_}, *patterns_);
    if (!group.has_value()) return CheckFailure::kNotExtracted;
    if (!SetVariable(use.variable, *group)) return CheckFailure::kTooLong;
  }
  return std::nullopt;
}

// A gRPC answer's first message, from the body's start: its fields' expected values, then
// its extractions.
std::optional<CheckFailure> FlowUser::JudgeFields() {
  const FlowStepProgram& step = current();
  std::string_view body(body_start_.data(), body_start_size_);
  // No message, or a compressed one: no field is found. A message longer than the buffer is
  // read as far as it goes.
  std::optional<proto::GrpcPrefix> prefix = proto::ReadGrpcPrefix(body);
  bool present = prefix.has_value() && prefix->flag == 0;
  std::string_view message =
      present ? body.substr(proto::kGrpcPrefixBytes,
                            std::min<size_t>(prefix->size, body.size() - proto::kGrpcPrefixBytes))
              : std::string_view();
  for (const FlowStepProgram::FieldUse& use : step.fields) {
    if (!use.expected.has_value()) continue;
    std::span<char> scratch = expected_scratch_.first(use.expected->size() + 1);
    int64_t n = present ? use.path.Read(message, scratch) : -1;
    if (n < 0 || std::string_view(scratch.data(), static_cast<size_t>(n)) != *use.expected) {
      return CheckFailure::kJsonValue;
    }
  }
  for (const FlowStepProgram::FieldUse& use : step.fields) {
    if (use.variable < 0) continue;
    auto v = static_cast<uint32_t>(use.variable);
    std::span<char> slot =
        variables_.subspan(size_t{v} * program_->max_var_bytes, program_->max_var_bytes);
    int64_t n = present ? use.path.Read(message, slot) : -1;
    if (n < 0) return CheckFailure::kNotExtracted;
    if (n > static_cast<int64_t>(slot.size())) return CheckFailure::kTooLong;
    variable_sizes_[v] = static_cast<uint32_t>(n);
  }
  return std::nullopt;
}

FlowUser::Next FlowUser::Advance(int64_t now_ns) {
  const FlowStepProgram& step = current();
  const FlowProgram::FlowEntry& flow = program_->flows[flow_];
  think_until_ns_ = 0;
  if (step.think.has_value()) {
    int64_t think = absl::ToInt64Nanoseconds(step.think->low);
    int64_t span = absl::ToInt64Nanoseconds(step.think->high) - think;
    if (span > 0) {
      // Under --seed, a value of its own for each iteration and step.
      uint64_t draw = SeededRandom(seed_, iteration_, kThinkSalt + step_);
      think += static_cast<int64_t>(Below(draw, static_cast<uint64_t>(span) + 1));
    }
    if (think > 0) think_until_ns_ = now_ns + think;
  }
  if (step_ + 1 == flow.first_step + flow.steps) {
    active_ = false;  // A think after the last step delays the user's next iteration.
    return Next::kCompleted;
  }
  ++step_;
  return think_until_ns_ != 0 ? Next::kThink : Next::kStep;
}

size_t FlowUser::memory_bytes() const {
  return sizeof(*this) - sizeof(jar_) + jar_.memory_bytes() + bytes_.capacity() +
         variable_sizes_.capacity() * sizeof(uint32_t) + row_offsets_.capacity() * sizeof(size_t) +
         fields_.capacity() * sizeof(std::string_view) +
         captures_.capacity() * sizeof(proto::JsonCapture);
}

}  // namespace uringload::core
