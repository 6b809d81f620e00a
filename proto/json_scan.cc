#include "proto/json_scan.h"

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "net/base/status_macros.h"
#include "proto/json_string_decoder.h"

namespace uringload::proto {
namespace {

absl::Status Invalid(std::string_view why) { return absl::InvalidArgumentError(std::string(why)); }

bool Hex4(std::string_view text, size_t at, uint32_t* code) {
  if (at + 4 > text.size()) return false;
  *code = 0;
  for (size_t k = at; k < at + 4; ++k) {
    char c = text[k];
    int digit = absl::ascii_isdigit(c)   ? c - '0'
                : (c >= 'a' && c <= 'f') ? c - 'a' + 10
                : (c >= 'A' && c <= 'F') ? c - 'A' + 10
                                         : -1;
    if (digit < 0) return false;
    *code = *code * 16 + static_cast<uint32_t>(digit);
  }
  return true;
}

}  // namespace

absl::Status DecodeJsonString(std::string_view raw, std::string* scratch, std::string_view* out) {
  if (raw.find('\\') == std::string_view::npos) {
    *out = raw;
    return absl::OkStatus();
  }
  size_t start = scratch->size();
  JsonStringDecoder decoder;
  auto emit = [scratch](char c) { scratch->push_back(c); };
  for (size_t k = 0; k < raw.size(); ++k) {
    if (raw[k] != '\\') {
      decoder.Byte(raw[k], emit);
      continue;
    }
    if (++k == raw.size()) return Invalid("a string ends in a lone backslash");
    if (raw[k] == 'u') {
      uint32_t unit = 0;
      if (!Hex4(raw, k + 1, &unit)) return Invalid("a \\u escape needs four hex digits");
      k += 4;
      decoder.Unit(unit, emit);
      continue;
    }
    char escaped = JsonStringDecoder::Escaped(raw[k]);
    if (escaped == 0) return Invalid(absl::StrCat("unknown escape \\", std::string(1, raw[k])));
    decoder.Byte(escaped, emit);
  }
  decoder.End(emit);
  *out = std::string_view(scratch->data() + start, scratch->size() - start);
  return absl::OkStatus();
}

namespace {

size_t SkipSpace(std::string_view text, size_t at) {
  while (at < text.size() && (text[at] == ' ' || text[at] == '\t')) ++at;
  return at;
}

// The end of the JSON string whose opening quote is at text[at] (the index of its closing
// quote), or npos.
size_t StringEnd(std::string_view text, size_t at) {
  for (size_t k = at + 1; k < text.size(); ++k) {
    if (text[k] == '\\') {
      ++k;
    } else if (text[k] == '"') {
      return k;
    }
  }
  return std::string_view::npos;
}

}  // namespace

absl::Status ForEachFlatMember(std::string_view line, FlatMemberFn on_member) {
  size_t at = SkipSpace(line, 0);
  if (at == line.size() || line[at] != '{') return Invalid("the line is not a JSON object");
  at = SkipSpace(line, at + 1);
  if (at < line.size() && line[at] == '}') return Invalid("the object has no keys");
  while (true) {
    if (at == line.size() || line[at] != '"') return Invalid("expected a key in quotes");
    size_t key_end = StringEnd(line, at);
    if (key_end == std::string_view::npos) return Invalid("a key has no closing quote");
    std::string_view key = line.substr(at + 1, key_end - at - 1);
    at = SkipSpace(line, key_end + 1);
    if (at == line.size() || line[at] != ':') return Invalid("expected ':' after a key");
    at = SkipSpace(line, at + 1);
    if (at == line.size()) return Invalid("a key has no value");
    std::string_view value;
    bool is_string = line[at] == '"';
    if (is_string) {
      size_t end = StringEnd(line, at);
      if (end == std::string_view::npos) return Invalid("a string has no closing quote");
      value = line.substr(at + 1, end - at - 1);
      at = end + 1;
    } else if (line[at] == '{' || line[at] == '[') {
      return Invalid(absl::StrCat("the value of '", std::string(key),
                                  "' is an object or array; only flat objects are read"));
    } else {
      size_t end = at;
      while (end < line.size() && line[end] != ',' && line[end] != '}' && line[end] != ' ' &&
             line[end] != '\t') {
        ++end;
      }
      value = line.substr(at, end - at);
      at = end;
    }
    URINGLOAD_RETURN_IF_ERROR(on_member(key, value, is_string));
    at = SkipSpace(line, at);
    if (at < line.size() && line[at] == ',') {
      at = SkipSpace(line, at + 1);
      continue;
    }
    if (at < line.size() && line[at] == '}') {
      if (SkipSpace(line, at + 1) != line.size()) return Invalid("text after the object");
      return absl::OkStatus();
    }
    return Invalid("expected ',' or '}' after a value");
  }
}

}  // namespace uringload::proto
