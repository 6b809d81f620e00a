#include "proto/json_scan.h"

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"

namespace uringload::proto {
namespace {

absl::Status Invalid(std::string_view why) { return absl::InvalidArgumentError(std::string(why)); }

void AppendUtf8(uint32_t code, std::string* out) {
  if (code < 0x80) {
    out->push_back(static_cast<char>(code));
  } else if (code < 0x800) {
    out->push_back(static_cast<char>(0xc0 | (code >> 6)));
    out->push_back(static_cast<char>(0x80 | (code & 0x3f)));
  } else if (code < 0x10000) {
    out->push_back(static_cast<char>(0xe0 | (code >> 12)));
    out->push_back(static_cast<char>(0x80 | ((code >> 6) & 0x3f)));
    out->push_back(static_cast<char>(0x80 | (code & 0x3f)));
  } else {
    out->push_back(static_cast<char>(0xf0 | (code >> 18)));
    out->push_back(static_cast<char>(0x80 | ((code >> 12) & 0x3f)));
    out->push_back(static_cast<char>(0x80 | ((code >> 6) & 0x3f)));
    out->push_back(static_cast<char>(0x80 | (code & 0x3f)));
  }
}

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
  for (size_t k = 0; k < raw.size(); ++k) {
    if (raw[k] != '\\') {
      scratch->push_back(raw[k]);
      continue;
    }
    if (++k == raw.size()) return Invalid("a string ends in a lone backslash");
    switch (raw[k]) {
      case '"':
      case '\\':
      case '/':
        scratch->push_back(raw[k]);
        break;
      case 'b':
        scratch->push_back('\b');
        break;
      case 'f':
        scratch->push_back('\f');
        break;
      case 'n':
        scratch->push_back('\n');
        break;
      case 'r':
        scratch->push_back('\r');
        break;
      case 't':
        scratch->push_back('\t');
        break;
      case 'u': {
        uint32_t code = 0;
        if (!Hex4(raw, k + 1, &code)) return Invalid("a \\u escape needs four hex digits");
        k += 4;
        uint32_t low = 0;
        if (code >= 0xd800 && code < 0xdc00 && k + 6 < raw.size() + 0 && raw[k + 1] == '\\' &&
            raw[k + 2] == 'u' && Hex4(raw, k + 3, &low) && low >= 0xdc00 && low < 0xe000) {
          code = 0x10000 + ((code - 0xd800) << 10) + (low - 0xdc00);
          k += 6;
        }
        AppendUtf8(code, scratch);
        break;
      }
      default:
        return Invalid(absl::StrCat("unknown escape \\", std::string(1, raw[k])));
    }
  }
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
    if (absl::Status s = on_member(key, value, is_string); !s.ok()) return s;
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
