#include "exporters/json_writer.h"

#include <gtest/gtest.h>

namespace uringload::exporters {
namespace {

TEST(JsonWriterTest, WritesNestedDocument) {
  JsonWriter w;
  w.BeginObject().String("s", "a\"b\\c\n\x01").Number("n", uint64_t{7}).Null("z");
  w.BeginObject("o").Number("d", 0.5).Bool("b", true).EndObject();
  w.BeginArray("a").BeginObject().EndObject().EndArray();
  w.BeginObject("empty").EndObject().EndObject();
  EXPECT_EQ(w.Take(),
            "{\n  \"s\": \"a\\\"b\\\\c\\n\\u0001\",\n  \"n\": 7,\n  \"z\": null,\n"
            "  \"o\": {\n    \"d\": 0.5,\n    \"b\": true\n  },\n  \"a\": [\n    {}\n  ],\n"
            "  \"empty\": {}\n}\n");
}

}  // namespace
}  // namespace uringload::exporters
