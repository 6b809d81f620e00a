#include "proto/text_template.h"

#include <algorithm>
#include <charconv>
#include <cstring>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "net/base/absl_view.h"
#include "net/base/seeded_random.h"

namespace uringload::proto {
namespace {

bool IsNameChar(char c) { return absl::ascii_isalnum(c) || c == '_'; }

// Whether the brace at text[at] opens a placeholder: a name, then '}' or ':'.
bool LooksLikePlaceholder(absl::string_view text, size_t at) {
  size_t k = at + 1;
  while (k < text.size() && IsNameChar(text[k])) ++k;
  return k > at + 1 && k < text.size() && (text[k] == '}' || text[k] == ':');
}

// Where text[at] is, as the start of an error ("column C: ").
std::string Column(absl::string_view text, size_t at) {
  return absl::StrCat(TextPosition(std::string_view(text.data(), text.size()), at), ": ");
}

size_t Digits(int64_t v) {
  char buffer[TextTemplate::kMaxIntegerDigits];
  return std::to_chars(buffer, buffer + sizeof(buffer), v).ptr - buffer;
}

// "LO-HI": integers, either may be negative.
// `value` as the inside of a JSON string (RFC 8259 7): quotes, backslashes and control
// characters escaped, every other byte as it is (UTF-8 stays UTF-8).
char* WriteJsonEscaped(std::string_view value, char* p) {
  static constexpr char kHex[] = "0123456789abcdef";
  for (char c : value) {
    auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      *p++ = '\\';
      *p++ = c;
    } else if (c == '\n') {
      *p++ = '\\';
      *p++ = 'n';
    } else if (c == '\t') {
      *p++ = '\\';
      *p++ = 't';
    } else if (c == '\r') {
      *p++ = '\\';
      *p++ = 'r';
    } else if (u < 0x20) {
      std::memcpy(p, "\\u00", 4);
      p[4] = kHex[u >> 4];
      p[5] = kHex[u & 15];
      p += 6;
    } else {
      *p++ = c;
    }
  }
  return p;
}

absl::Status ParseRange(absl::string_view args, int64_t* low, int64_t* high) {
  size_t dash = args.find('-', 1);
  if (args.empty() || dash == absl::string_view::npos ||
      !absl::SimpleAtoi(args.substr(0, dash), low) ||
      !absl::SimpleAtoi(args.substr(dash + 1), high)) {
    return absl::InvalidArgumentError(
        absl::StrCat("{rand:", args, "} needs a range LO-HI of integers, e.g. {rand:1-100}"));
  }
  if (*low > *high) {
    return absl::InvalidArgumentError(
        absl::StrCat("{rand:", args, "} has LO above HI (", *low, " > ", *high, ")"));
  }
  return absl::OkStatus();
}

// The 8 hex digits of `x` as 8 bytes, most significant first in memory: each nibble spread
// into a byte, then '0' or 'a' - 10 added, without a branch or a table (a UUID is 32 digits,
// the largest part of rendering one: docs/performance.md).
uint64_t HexDigits(uint32_t x) {
  uint64_t v = x;
  v = ((v & 0xffff0000ull) << 16) | (v & 0xffffull);
  v = ((v & 0x0000ff000000ff00ull) << 8) | (v & 0x000000ff000000ffull);
  v = ((v & 0x00f000f000f000f0ull) << 4) | (v & 0x000f000f000f000full);
  uint64_t letters = ((v + 0x0606060606060606ull) >> 4) & 0x0101010101010101ull;
  v += 0x3030303030303030ull + letters * ('a' - '0' - 10);
  return __builtin_bswap64(v);
}

// `high` and `low` as a version 4 UUID (RFC 9562): 8-4-4-4-12 hex digits.
char* WriteUuid(uint64_t high, uint64_t low, char* out) {
  char hex[32];
  uint64_t words[4] = {
      HexDigits(static_cast<uint32_t>(high >> 32)), HexDigits(static_cast<uint32_t>(high)),
      HexDigits(static_cast<uint32_t>(low >> 32)), HexDigits(static_cast<uint32_t>(low))};
  std::memcpy(hex, words, sizeof(hex));
  std::memcpy(out, hex, 8);
  out[8] = '-';
  std::memcpy(out + 9, hex + 8, 4);
  out[13] = '-';
  std::memcpy(out + 14, hex + 12, 4);
  out[18] = '-';
  std::memcpy(out + 19, hex + 16, 4);
  out[23] = '-';
  std::memcpy(out + 24, hex + 20, 12);
  return out + TextTemplate::kUuidSize;
}

}  // namespace

std::string TextPosition(std::string_view text, size_t at) {
  if (text.find('\n') == std::string_view::npos) return absl::StrCat("column ", at + 1);
  size_t line_start = at == 0 ? std::string_view::npos : text.rfind('\n', at - 1);
  if (line_start == std::string_view::npos) return absl::StrCat("line 1, column ", at + 1);
  size_t line = 1 + std::count(text.begin(), text.begin() + line_start + 1, '\n');
  return absl::StrCat("line ", line, ", column ", at - line_start);
}

absl::StatusOr<TextTemplate> TextTemplate::Compile(std::string_view whole, TemplateColumns columns,
                                                   uint32_t stream) {
  absl::string_view text(whole.data(), whole.size());
  TextTemplate t;
  size_t literal_start = 0;
  std::string literal;
  uint64_t randoms = 0;
  auto flush = [&](size_t upto) {
    absl::StrAppend(&literal, text.substr(literal_start, upto - literal_start));
    t.AppendLiteral(std::string_view(literal));
    literal.clear();
  };
  for (size_t at = 0; at < text.size(); ++at) {
    if (text[at] != '{') continue;
    if (at + 1 < text.size() && text[at + 1] == '{' && LooksLikePlaceholder(text, at + 1)) {
      // "{{name}": a literal "{name}".
      absl::StrAppend(&literal, text.substr(literal_start, at + 1 - literal_start));
      literal_start = at + 2;
      ++at;
      continue;
    }
    if (!LooksLikePlaceholder(text, at)) continue;
    size_t name_end = at + 1;
    while (IsNameChar(text[name_end])) ++name_end;
    absl::string_view name = text.substr(at + 1, name_end - at - 1);
    size_t close = text.find('}', name_end);
    size_t reopen = text.find('{', name_end);
    if (close == absl::string_view::npos || reopen < close) {
      return absl::InvalidArgumentError(
          absl::StrCat(Column(text, at), "placeholder {", name, " has no closing }"));
    }
    bool has_args = text[name_end] == ':';
    absl::string_view args = has_args ? text.substr(name_end + 1, close - name_end - 1) : "";
    flush(at);
    literal_start = close + 1;
    Piece piece;
    size_t max_size = 0;
    if (name == "rand") {
      if (!has_args) {
        return absl::InvalidArgumentError(
            absl::StrCat(Column(text, at), "{rand} needs a range, e.g. {rand:1-100}"));
      }
      if (absl::Status s = ParseRange(args, &piece.low, &piece.high); !s.ok()) {
        return absl::InvalidArgumentError(absl::StrCat(Column(text, at), s.message()));
      }
      piece.kind = Kind::kRand;
      piece.salt = (uint64_t{stream} << 32) + randoms++;
      max_size = std::max(Digits(piece.low), Digits(piece.high));
    } else {
      bool is_column =
          std::find(columns.names.begin(), columns.names.end(), name) != columns.names.end();
      bool json = has_args && args == "json" && is_column;
      if (has_args && !json) {
        return absl::InvalidArgumentError(absl::StrCat(
            Column(text, at), "{", name, "} takes no arguments, got {", name, ":", args, "}",
            is_column ? " (a data column takes :json, escaped for a JSON string)" : ""));
      }
      if (name == "i") {
        piece.kind = Kind::kIndex;
        max_size = kMaxIntegerDigits;
      } else if (name == "uuid") {
        piece.kind = Kind::kUuid;
        piece.salt = (uint64_t{stream} << 32) + randoms;
        randoms += 2;  // 122 random bits: two values.
        max_size = kUuidSize;
      } else if (name == "shard" || name == "worker") {
        piece.kind = name == "shard" ? Kind::kShard : Kind::kWorker;
        max_size = 10;  // A uint32_t.
      } else {
        auto column = std::find(columns.names.begin(), columns.names.end(), name);
        if (column == columns.names.end()) {
          std::string known = "i, rand, uuid, shard, worker";
          if (!columns.names.empty()) {
            absl::StrAppend(&known, " and the data columns ", absl::StrJoin(columns.names, ", "));
          }
          return absl::InvalidArgumentError(
              absl::StrCat(Column(text, at), "unknown placeholder {", name, "} (known: ", known,
                           columns.names.empty() ? "; a data column needs --data" : "", ")"));
        }
        piece.kind = json ? Kind::kFieldJson : Kind::kField;
        piece.size = static_cast<uint32_t>(column - columns.names.begin());
        // Escaped, a byte takes at most 6 (\u001f).
        max_size = columns.max_sizes[piece.size] * (json ? 6 : 1);
        t.uses_fields_ = true;
      }
    }
    piece.max_size = static_cast<uint32_t>(max_size);
    t.Add(piece);
    at = close;
  }
  flush(text.size());
  return t;
}

bool TextTemplate::OpensPlaceholder(std::string_view text, size_t at) {
  return at < text.size() && text[at] == '{' && LooksLikePlaceholder(AbslView(text), at);
}

std::string TextTemplate::Escape(std::string_view text) {
  std::string out;
  absl::string_view view(text.data(), text.size());
  for (size_t k = 0; k < text.size(); ++k) {
    if (text[k] == '{' && LooksLikePlaceholder(view, k)) out.push_back('{');
    out.push_back(text[k]);
  }
  return out;
}

TextTemplate TextTemplate::Literal(std::string_view text) {
  TextTemplate t;
  t.AppendLiteral(text);
  return t;
}

void TextTemplate::AppendLiteral(std::string_view text) {
  if (text.empty()) return;
  if (!pieces_.empty() && pieces_.back().kind == Kind::kLiteral &&
      pieces_.back().offset + pieces_.back().size == literals_.size()) {
    pieces_.back().size += static_cast<uint32_t>(text.size());  // Joins the literal before.
  } else {
    pieces_.push_back({.kind = Kind::kLiteral,
                       .offset = static_cast<uint32_t>(literals_.size()),
                       .size = static_cast<uint32_t>(text.size())});
  }
  literals_.append(text);
  max_size_ += text.size();
}

void TextTemplate::Add(Piece piece) {
  pieces_.push_back(piece);
  max_size_ += piece.max_size;
  literal_only_ = false;
}

void TextTemplate::Append(const TextTemplate& other) {
  for (const Piece& piece : other.pieces_) {
    if (piece.kind == Kind::kLiteral) {
      AppendLiteral(std::string_view(other.literals_).substr(piece.offset, piece.size));
    } else {
      Add(piece);
    }
  }
  uses_fields_ = uses_fields_ || other.uses_fields_;
}

std::string_view TextTemplate::RenderInto(const TemplateContext& context,
                                          std::span<char> out) const {
  char* start = out.data();
  char* p = start;
  for (const Piece& piece : pieces_) {
    switch (piece.kind) {
      case Kind::kLiteral:
        std::memcpy(p, literals_.data() + piece.offset, piece.size);
        p += piece.size;
        break;
      case Kind::kIndex:
        p = std::to_chars(p, p + kMaxIntegerDigits, context.index).ptr;
        break;
      case Kind::kRand: {
        uint64_t span = static_cast<uint64_t>(piece.high) - static_cast<uint64_t>(piece.low);
        uint64_t value = SeededRandom(context.seed, context.index, piece.salt + 1);
        uint64_t offset = span == UINT64_MAX ? value : Below(value, span + 1);
        p = std::to_chars(p, p + kMaxIntegerDigits,
                          static_cast<int64_t>(static_cast<uint64_t>(piece.low) + offset))
                .ptr;
        break;
      }
      case Kind::kUuid: {
        // RFC 9562 version 4: 122 random bits, the version (4) and the variant (10).
        uint64_t high = SeededRandom(context.seed, context.index, piece.salt + 1);
        uint64_t low = SeededRandom(context.seed, context.index, piece.salt + 2);
        high = (high & ~uint64_t{0xf000}) | 0x4000;
        low = (low & ~(uint64_t{3} << 62)) | (uint64_t{2} << 62);
        p = WriteUuid(high, low, p);
        break;
      }
      case Kind::kShard:
        p = std::to_chars(p, p + kMaxIntegerDigits, context.shard).ptr;
        break;
      case Kind::kWorker:
        p = std::to_chars(p, p + kMaxIntegerDigits, context.worker).ptr;
        break;
      case Kind::kField: {
        if (piece.size == context.written_column) {
          p += context.writer->Write(std::span<char>(p, piece.max_size));
          break;
        }
        std::string_view value = context.fields[piece.size];
        std::memcpy(p, value.data(), value.size());
        p += value.size();
        break;
      }
      case Kind::kFieldJson:
        p = WriteJsonEscaped(context.fields[piece.size], p);
        break;
    }
  }
  return std::string_view(start, p - start);
}

std::string TextTemplate::Render(const TemplateContext& context) const {
  std::string out(max_size(), '\0');
  out.resize(RenderInto(context, out).size());
  return out;
}

}  // namespace uringload::proto
