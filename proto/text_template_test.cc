#include "proto/text_template.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"

namespace uringload::proto {
namespace {

std::string RenderOf(std::string_view text, TemplateContext context = {}) {
  absl::StatusOr<TextTemplate> t = TextTemplate::Compile(text);
  EXPECT_TRUE(t.ok()) << t.status();
  if (!t.ok()) return "";
  std::string out = t->Render(context);
  EXPECT_LE(out.size(), t->max_size());
  return out;
}

std::string ErrorOf(std::string_view text, TemplateColumns columns = {}) {
  absl::StatusOr<TextTemplate> t = TextTemplate::Compile(text, columns);
  return t.ok() ? "ok" : std::string(t.status().message());
}

TEST(TextTemplateTest, TextWithoutPlaceholdersIsStatic) {
  absl::StatusOr<TextTemplate> t = TextTemplate::Compile("/a/b?c=1");
  ASSERT_TRUE(t.ok());
  EXPECT_TRUE(t->is_static());
  EXPECT_EQ(t->fixed(), "/a/b?c=1");
  EXPECT_EQ(t->max_size(), 8u);
}

TEST(TextTemplateTest, IndexShardAndWorkerRenderAsNumbers) {
  TemplateContext context{.index = 18446744073709551615u, .shard = 3, .worker = 1};
  EXPECT_EQ(RenderOf("/{i}/{shard}/{worker}", context), "/18446744073709551615/3/1");
  EXPECT_EQ(RenderOf("{i}{i}", {.index = 7}), "77");
}

TEST(TextTemplateTest, JsonBracesAreLiteral) {
  EXPECT_EQ(RenderOf(R"({"id":{i},"tags":{"a":[1,{}]}})", {.index = 5}),
            R"({"id":5,"tags":{"a":[1,{}]}})");
  EXPECT_EQ(RenderOf("{ i}{-}{}{"), "{ i}{-}{}{");
}

TEST(TextTemplateTest, DoubleBraceBeforeANameWritesTheName) {
  EXPECT_EQ(RenderOf("{{i} is {i}", {.index = 2}), "{i} is 2");
  EXPECT_EQ(RenderOf("{{rand:1-2}"), "{rand:1-2}");
  EXPECT_EQ(RenderOf("{{\"a\"}}"), "{{\"a\"}}");  // Not before a name: both braces stay.
}

TEST(TextTemplateTest, RandStaysInItsRangeAndCoversIt) {
  absl::StatusOr<TextTemplate> t = TextTemplate::Compile("{rand:-2-2}");
  ASSERT_TRUE(t.ok());
  std::set<int> seen;
  for (uint64_t i = 0; i < 1000; ++i) {
    int v = 0;
    ASSERT_TRUE(absl::SimpleAtoi(t->Render({.index = i}), &v));
    ASSERT_GE(v, -2);
    ASSERT_LE(v, 2);
    seen.insert(v);
  }
  EXPECT_EQ(seen.size(), 5u);
  EXPECT_EQ(RenderOf("{rand:7-7}"), "7");
  absl::StatusOr<TextTemplate> full =
      TextTemplate::Compile("{rand:-9223372036854775808-9223372036854775807}");
  ASSERT_TRUE(full.ok());
  EXPECT_LE(full->Render({.index = 3}).size(), full->max_size());
}

TEST(TextTemplateTest, TheSameSeedAndIndexGiveTheSameValues) {
  absl::StatusOr<TextTemplate> t = TextTemplate::Compile("{rand:0-1000000}/{uuid}");
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->Render({.index = 9, .seed = 4}), t->Render({.index = 9, .seed = 4}));
  EXPECT_NE(t->Render({.index = 9, .seed = 4}), t->Render({.index = 9, .seed = 5}));
  EXPECT_NE(t->Render({.index = 9, .seed = 4}), t->Render({.index = 10, .seed = 4}));
  // The worker and shard that send it do not matter.
  EXPECT_EQ(t->Render({.index = 9, .seed = 4, .shard = 1, .worker = 1}),
            t->Render({.index = 9, .seed = 4}));
}

TEST(TextTemplateTest, TwoRandsOfOneRequestDiffer) {
  absl::StatusOr<TextTemplate> t = TextTemplate::Compile("{rand:0-1000000000},{rand:0-1000000000}");
  ASSERT_TRUE(t.ok());
  std::string out = t->Render({.index = 1});
  size_t comma = out.find(',');
  EXPECT_NE(out.substr(0, comma), out.substr(comma + 1));
  // Another text of the same request (another stream) draws other values.
  absl::StatusOr<TextTemplate> other =
      TextTemplate::Compile("{rand:0-1000000000},{rand:0-1000000000}", {}, 1);
  ASSERT_TRUE(other.ok());
  EXPECT_NE(other->Render({.index = 1}), out);
}

TEST(TextTemplateTest, UuidIsVersionFourWithTheVariantBits) {
  std::set<std::string> seen;
  for (uint64_t i = 0; i < 100; ++i) {
    std::string uuid = RenderOf("{uuid}", {.index = i});
    ASSERT_EQ(uuid.size(), 36u);
    for (size_t dash : {8, 13, 18, 23}) EXPECT_EQ(uuid[dash], '-') << uuid;
    EXPECT_EQ(uuid[14], '4') << uuid;
    EXPECT_NE(std::string("89ab").find(uuid[19]), std::string::npos) << uuid;
    seen.insert(uuid);
  }
  EXPECT_EQ(seen.size(), 100u);
}

TEST(TextTemplateTest, DataColumnsRenderTheRowsValues) {
  std::vector<std::string> names = {"user", "id"};
  std::vector<size_t> widths = {5, 3};
  absl::StatusOr<TextTemplate> t =
      TextTemplate::Compile(R"({"user":"{user}","id":{id}})", {names, widths});
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_TRUE(t->uses_fields());
  std::vector<std::string_view> row = {"alice", "42"};
  EXPECT_EQ(t->Render({.fields = row}), R"({"user":"alice","id":42})");
  EXPECT_EQ(t->max_size(), std::string(R"({"user":"","id":})").size() + 8);
}

TEST(TextTemplateTest, BuiltinsShadowAColumnOfTheSameName) {
  std::vector<std::string> names = {"i"};
  std::vector<size_t> widths = {1};
  absl::StatusOr<TextTemplate> t = TextTemplate::Compile("{i}", {names, widths});
  ASSERT_TRUE(t.ok());
  EXPECT_FALSE(t->uses_fields());
}

TEST(TextTemplateTest, ErrorsNameTheColumnAndTheProblem) {
  EXPECT_EQ(ErrorOf("/a/{nope}"),
            "column 4: unknown placeholder {nope} (known: i, rand, uuid, shard, worker; a data "
            "column needs --data)");
  std::vector<std::string> names = {"user"};
  std::vector<size_t> widths = {4};
  EXPECT_EQ(ErrorOf("{usr}", {names, widths}),
            "column 1: unknown placeholder {usr} (known: i, rand, uuid, shard, worker and the "
            "data columns user)");
  EXPECT_EQ(ErrorOf("xx{rand:9-1}"), "column 3: {rand:9-1} has LO above HI (9 > 1)");
  EXPECT_EQ(ErrorOf("{rand}"), "column 1: {rand} needs a range, e.g. {rand:1-100}");
  EXPECT_EQ(ErrorOf("{rand:a-b}"),
            "column 1: {rand:a-b} needs a range LO-HI of integers, e.g. {rand:1-100}");
  EXPECT_EQ(ErrorOf("{rand:5}"),
            "column 1: {rand:5} needs a range LO-HI of integers, e.g. {rand:1-100}");
  EXPECT_EQ(ErrorOf("{i:2}"), "column 1: {i} takes no arguments, got {i:2}");
  EXPECT_EQ(ErrorOf("ab{rand:1-"), "column 3: placeholder {rand has no closing }");
  EXPECT_EQ(ErrorOf("{\n  \"a\": {b}\n}"),
            "line 2, column 8: unknown placeholder {b} (known: i, "
            "rand, uuid, shard, worker; a data column needs "
            "--data)");
}

TEST(TextTemplateTest, AppendedTemplatesRenderInOrder) {
  TextTemplate t = TextTemplate::Literal("GET ");
  absl::StatusOr<TextTemplate> path = TextTemplate::Compile("/{i}");
  ASSERT_TRUE(path.ok());
  t.Append(*path);
  t.AppendLiteral(" HTTP/1.1");
  EXPECT_FALSE(t.is_static());
  EXPECT_EQ(t.Render({.index = 12}), "GET /12 HTTP/1.1");
  EXPECT_EQ(t.max_size(), 4 + 1 + TextTemplate::kMaxIntegerDigits + 9);
  TextTemplate fixed = TextTemplate::Literal("a{i}");
  fixed.Append(TextTemplate::Literal("b"));
  EXPECT_TRUE(fixed.is_static());
  EXPECT_EQ(fixed.fixed(), "a{i}b");
}

// One way to say where in a text: a column in one line, a line and a column in several.
TEST(TextPositionTest, AColumnInOneLineALineAndAColumnInSeveral) {
  EXPECT_EQ(TextPosition("abc", 0), "column 1");
  EXPECT_EQ(TextPosition("abc", 2), "column 3");
  EXPECT_EQ(TextPosition("ab\ncd", 0), "line 1, column 1");
  EXPECT_EQ(TextPosition("ab\ncd", 1), "line 1, column 2");
  EXPECT_EQ(TextPosition("ab\ncd", 3), "line 2, column 1");
  EXPECT_EQ(TextPosition("ab\ncd\nef", 7), "line 3, column 2");
}

// {name:json}: a column's value escaped for the inside of a JSON string, so the body parses
// whatever the value holds; any other argument to a column is refused.
TEST(TextTemplateTest, AColumnEscapedForJson) {
  std::vector<std::string> names = {"prompt"};
  std::vector<size_t> sizes = {32};
  absl::StatusOr<TextTemplate> t =
      TextTemplate::Compile(R"({"content":"{prompt:json}"})", {names, sizes});
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->max_size(), 14u + 6 * 32);
  std::string_view value = "say \"hi\"\n\tback\\slash \x01 \xc3\xa9";
  std::vector<std::string_view> fields = {value};
  TemplateContext context;
  context.fields = fields;
  EXPECT_EQ(t->Render(context), R"({"content":"say \"hi\"\n\tback\\slash \u0001 )"
                                "\xc3\xa9"
                                R"("})");
  EXPECT_NE(ErrorOf("{prompt:upper}", {names, sizes}).find("takes :json"), std::string::npos);
  EXPECT_NE(ErrorOf("{i:json}").find("takes no arguments"), std::string::npos);
}

}  // namespace
}  // namespace uringload::proto
