// TextTemplate: text with placeholders, compiled once per run and rendered per request into a
// caller's buffer without allocating: {i} (the request index), {rand:LO-HI} and {uuid} (from
// a stream seeded by --seed and the index, so a request is the same whoever sends it),
// {shard}, {worker}, and {name} for a column of a data file. A placeholder is {name} or
// {name:args} with a name of letters, digits and _; any other brace is literal, so JSON
// needs no escaping, and {{ writes a { before what would be a placeholder. {name:json} writes
// a column's value escaped for the inside of a JSON string (quotes, backslashes and control
// characters), so a prompt with quotes makes a valid JSON body.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace uringload::proto {

// A column whose value is written straight into the rendering instead of copied from
// TemplateContext::fields: a flow's Cookie line ("Cookie: a=1; b=2\r\n" or nothing), which
// then needs no buffer of its own. An HTTP/2 request sends its value as the cookie field.
class ColumnWriter {
 public:
  // Writes the value at the start of `out` (max_size() bytes fit); returns its size.
  virtual size_t Write(std::span<char> out) const = 0;
  virtual size_t max_size() const = 0;

 protected:
  ~ColumnWriter() = default;
};

// What one request's placeholders render from.
struct TemplateContext {
  uint64_t index = 0;   // The fleet-wide request index.
  uint64_t seed = 1;    // --seed.
  uint32_t shard = 0;   // This process's shard (0 unsharded).
  uint32_t worker = 0;  // The worker thread sending it.
  // The data row's values, by column (empty without --data).
  std::span<const std::string_view> fields = {};
  // Column `written_column` comes from `writer` (none: every column from `fields`).
  const ColumnWriter* writer = nullptr;
  uint32_t written_column = UINT32_MAX;
};

// The columns a {name} placeholder may name, and the longest value of each (the bound on what
// a rendering can need).
// Where text[at] is, 1-based: "column C", or in text of several lines "line L, column C". The
// one way a template's (or its JSON's) errors say where.
std::string TextPosition(std::string_view text, size_t at);

struct TemplateColumns {
  std::span<const std::string> names;
  std::span<const size_t> max_sizes;
};

class TextTemplate {
 public:
  // Placeholder names the template knows itself; a data column of the same name is shadowed.
  static constexpr std::string_view kBuiltins[] = {"i", "rand", "uuid", "shard", "worker"};
  static constexpr size_t kMaxIntegerDigits = 20;  // UINT64_MAX, or INT64_MIN with its sign.
  static constexpr size_t kUuidSize = 36;

  TextTemplate() = default;
  // `text`'s placeholders, checked: an error says "column C: what is wrong" (1-based, in
  // bytes), for the caller to prefix with the flag or file:line. `stream` tells this text's
  // random values apart from another text's of the same request.
  static absl::StatusOr<TextTemplate> Compile(std::string_view text, TemplateColumns columns = {},
                                              uint32_t stream = 0);
  // Text without placeholders, taken as it is (no brace is special).
  static TextTemplate Literal(std::string_view text);
  // `text` written as template text that renders as itself: each brace that would start a
  // placeholder ({name} or {name:) doubled.
  static std::string Escape(std::string_view text);

  // Whether the '{' at text[at] opens a placeholder (a name, then '}' or ':'), as Compile()
  // reads it: for readers of texts that hold templates (a gRPC body's JSON).
  static bool OpensPlaceholder(std::string_view text, size_t at);

  void Append(const TextTemplate& other);
  void AppendLiteral(std::string_view text);

  // No placeholder: every rendering is fixed().
  bool is_static() const { return literal_only_; }
  // Whether a {name} of a data column is used.
  bool uses_fields() const { return uses_fields_; }
  // A rendering never needs more bytes than this.
  size_t max_size() const { return max_size_; }
  // The text, when is_static().
  std::string_view fixed() const { return literals_; }
  // The text for `context`, written at the start of `out` (max_size() bytes suffice).
  std::string_view RenderInto(const TemplateContext& context, std::span<char> out) const;
  // The same, into a string (tests and the rare caller off the hot path).
  std::string Render(const TemplateContext& context) const;

 private:
  enum class Kind : uint8_t { kLiteral, kIndex, kRand, kUuid, kShard, kWorker, kField, kFieldJson };
  struct Piece {
    Kind kind = Kind::kLiteral;
    uint32_t offset = 0;  // kLiteral: its bytes in literals_.
    uint32_t size = 0;    // kLiteral: their count; kField: the column.
    int64_t low = 0;      // kRand: the range, inclusive.
    int64_t high = 0;
    uint64_t salt = 0;      // kRand, kUuid: which random value of the request it is.
    uint32_t max_size = 0;  // Not kLiteral: the most bytes it renders.
  };

  void Add(Piece piece);

  std::string literals_;
  std::vector<Piece> pieces_;
  size_t max_size_ = 0;
  bool literal_only_ = true;
  bool uses_fields_ = false;
};

}  // namespace uringload::proto
