#include "core/link/link_plan.h"

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "core/plan_limits.h"
#include "net/base/status_macros.h"

namespace uringload::core {
namespace {

// The longest one-way delay: a ring around the earth and back several times.
constexpr absl::Duration kMaxDelay = absl::Seconds(10);

absl::StatusOr<LinkEndpoint> ParseEndpoint(const std::string& name, const std::string& text) {
  size_t slash = text.find('/');
  if (slash == std::string::npos || slash == 0 || slash + 1 == text.size() ||
      text.find('/', slash + 1) != std::string::npos) {
    return absl::InvalidArgumentError(absl::StrCat(
        name, " must be NETNS/DEV (a network namespace and a TUN device in it), got '", text, "'"));
  }
  return LinkEndpoint{.netns = text.substr(0, slash), .device = text.substr(slash + 1)};
}

// A share that may be 0 (no loss): "0", or what ParseShare takes.
absl::StatusOr<double> ParseChance(const std::string& flag, const std::string& text) {
  if (text == "0" || text == "0%") return 0.0;
  return ParseShare(flag, text);
}

// `name` is the flag as the user would give it for this direction ("--a-to-b-delay").
absl::StatusOr<LinkShape> MakeShape(const LinkShapeOptions& both, const LinkShapeOptions& own,
                                    const std::string& prefix) {
  auto pick = [&](const std::optional<std::string>& mine, const std::optional<std::string>& shared,
                  const char* flag) -> std::pair<std::optional<std::string>, std::string> {
    if (mine) return {mine, absl::StrCat("--", prefix, flag)};
    return {shared, absl::StrCat("--", flag)};
  };
  LinkShape shape;
  if (auto [text, flag] = pick(own.delay, both.delay, "delay"); text) {
    URINGLOAD_ASSIGN_OR_RETURN(absl::Duration d,
                               ParseDurationFlag(flag, *text, absl::ZeroDuration(), kMaxDelay));
    shape.delay_ns = absl::ToInt64Nanoseconds(d);
  }
  if (auto [text, flag] = pick(own.jitter, both.jitter, "jitter"); text) {
    URINGLOAD_ASSIGN_OR_RETURN(absl::Duration d,
                               ParseDurationFlag(flag, *text, absl::ZeroDuration(), kMaxDelay));
    shape.jitter_ns = absl::ToInt64Nanoseconds(d);
    if (shape.jitter_ns > shape.delay_ns) {
      return absl::InvalidArgumentError(
          absl::StrCat(flag, " (", *text,
                       ") must not exceed the delay: a packet cannot arrive "
                       "before it was sent"));
    }
  }
  struct Chance {
    const std::optional<std::string>& mine;
    const std::optional<std::string>& shared;
    const char* flag;
    double* out;
  };
  for (const Chance& c : {Chance{own.loss, both.loss, "loss", &shape.loss},
                          Chance{own.duplicate, both.duplicate, "duplicate", &shape.duplicate},
                          Chance{own.reorder, both.reorder, "reorder", &shape.reorder}}) {
    if (auto [text, flag] = pick(c.mine, c.shared, c.flag); text) {
      URINGLOAD_ASSIGN_OR_RETURN(double value, ParseChance(flag, *text));
      *c.out = value;
    }
  }
  if (auto [text, flag] = pick(own.rate, both.rate, "rate"); text) {
    URINGLOAD_ASSIGN_OR_RETURN(uint64_t rate, ParseLinkRate(flag, *text));
    shape.rate_bits_per_second = rate;
  }
  if (auto [text, flag] = pick(own.queue, both.queue, "queue"); text) {
    std::string number = *text;
    bool bytes = !number.empty() && number.back() == 'B';
    if (bytes) number.pop_back();
    uint64_t value = 0;
    if (!absl::SimpleAtoi(number, &value) || value == 0 ||
        value > (bytes ? 1ull << 32 : 1u << 20)) {
      return absl::InvalidArgumentError(
          absl::StrCat(flag,
                       " must be packets (1 to 1048576) or bytes with a B (150000B, at most "
                       "4 GiB), got '",
                       *text, "'"));
    }
    if (bytes) {
      shape.queue_bytes = value;
    } else {
      shape.queue_packets = static_cast<uint32_t>(value);
    }
  }
  return shape;
}

}  // namespace

absl::StatusOr<uint64_t> ParseLinkRate(const std::string& flag, const std::string& text) {
  std::string lower = absl::AsciiStrToLower(text);
  struct Unit {
    const char* suffix;
    uint64_t scale;
  };
  for (const Unit& unit : {Unit{"gbit", 1'000'000'000}, Unit{"mbit", 1'000'000},
                           Unit{"kbit", 1'000}, Unit{"bit", 1}}) {
    size_t n = std::string(unit.suffix).size();
    if (lower.size() <= n || lower.compare(lower.size() - n, n, unit.suffix) != 0) continue;
    double value = 0;
    if (!absl::SimpleAtod(lower.substr(0, lower.size() - n), &value) || !(value > 0) ||
        value * unit.scale > 1e12) {
      break;
    }
    return static_cast<uint64_t>(value * unit.scale);
  }
  return absl::InvalidArgumentError(absl::StrCat(
      flag,
      " must be a rate in bit, kbit, mbit or gbit per second (100mbit), above 0 and at most "
      "1000gbit, got '",
      text, "'"));
}

absl::StatusOr<LinkPlan> MakeLinkPlan(const LinkOptions& options) {
  LinkPlan plan;
  URINGLOAD_ASSIGN_OR_RETURN(LinkEndpoint a, ParseEndpoint("A", options.a));
  URINGLOAD_ASSIGN_OR_RETURN(LinkEndpoint b, ParseEndpoint("B", options.b));
  plan.ends = {a, b};
  URINGLOAD_ASSIGN_OR_RETURN(LinkShape a_to_b, MakeShape(options.both, options.a_to_b, "a-to-b-"));
  URINGLOAD_ASSIGN_OR_RETURN(LinkShape b_to_a, MakeShape(options.both, options.b_to_a, "b-to-a-"));
  plan.shapes = {a_to_b, b_to_a};
  URINGLOAD_RETURN_IF_ERROR(CheckRange("--seed", options.seed, 0, INT64_MAX));
  plan.seed = static_cast<uint64_t>(options.seed);
  URINGLOAD_RETURN_IF_ERROR(CheckRange("--packets", options.packets, 64, 1 << 20));
  plan.packets = static_cast<uint32_t>(options.packets);
  return plan;
}

}  // namespace uringload::core
