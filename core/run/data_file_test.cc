#include "core/run/data_file.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"

namespace uringload::core {
namespace {

// A file with `text` in a fresh temporary folder, removed with the test.
class DataFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char folder[] = "/tmp/uringload-data-XXXXXX";
    ASSERT_NE(mkdtemp(folder), nullptr);
    folder_ = folder;
  }
  void TearDown() override { std::system(("rm -rf " + folder_).c_str()); }
  std::string Write(const std::string& name, const std::string& text) {
    std::string path = folder_ + "/" + name;
    std::ofstream(path) << text;
    return path;
  }
  std::string ErrorOf(const std::string& name, const std::string& text) {
    absl::StatusOr<DataFile> data = DataFile::Open(Write(name, text));
    return data.ok() ? "ok" : std::string(data.status().message());
  }
  std::string folder_;
};

std::vector<std::string> Values(DataFile::Reader& reader, uint64_t row) {
  std::vector<std::string> out;
  for (std::string_view v : reader.Row(row)) out.emplace_back(v);
  return out;
}

TEST_F(DataFileTest, CsvHeaderNamesTheColumnsAndEachLineIsARow) {
  absl::StatusOr<DataFile> data = DataFile::Open(
      Write("users.csv", "user,id\r\nalice,1\r\n\r\n\"bob \"\"b\"\"\",22\r\n\"x,y\",\n"));
  ASSERT_TRUE(data.ok()) << data.status();
  EXPECT_EQ(data->columns(), (std::vector<std::string>{"user", "id"}));
  EXPECT_EQ(data->rows(), 3u);
  EXPECT_EQ(data->max_sizes(), (std::vector<size_t>{7, 2}));
  DataFile::Reader reader(&*data);
  EXPECT_EQ(Values(reader, 0), (std::vector<std::string>{"alice", "1"}));
  EXPECT_EQ(Values(reader, 1), (std::vector<std::string>{"bob \"b\"", "22"}));
  EXPECT_EQ(Values(reader, 2), (std::vector<std::string>{"x,y", ""}));
  EXPECT_EQ(Values(reader, 0), (std::vector<std::string>{"alice", "1"}));
}

TEST_F(DataFileTest, AnyRowIsFoundForwardBackwardAndFarAway) {
  std::string text = "n\n";
  for (int k = 0; k < 1000; ++k) absl::StrAppend(&text, "v", k, "\n");
  absl::StatusOr<DataFile> data = DataFile::Open(Write("many.csv", text));
  ASSERT_TRUE(data.ok()) << data.status();
  ASSERT_EQ(data->rows(), 1000u);
  DataFile::Reader reader(&*data);
  for (uint64_t row : {0u, 1u, 2u, 63u, 64u, 65u, 999u, 5u, 500u, 128u, 127u, 700u, 701u}) {
    EXPECT_EQ(Values(reader, row), std::vector<std::string>{absl::StrCat("v", row)}) << row;
  }
}

TEST_F(DataFileTest, NdjsonKeysAreTheColumnsInAnyOrder) {
  absl::StatusOr<DataFile> data = DataFile::Open(
      Write("rows.ndjson",
            "{\"user\": \"al\\\"ice\", \"id\": 1, \"ok\": true}\n"
            "{\"id\":-2.5e3,\"ok\":null,\"user\":\"\\u00e9\\ud83d\\ude00 \\/x\"}\n"));
  ASSERT_TRUE(data.ok()) << data.status();
  EXPECT_EQ(data->columns(), (std::vector<std::string>{"user", "id", "ok"}));
  DataFile::Reader reader(&*data);
  EXPECT_EQ(Values(reader, 0), (std::vector<std::string>{"al\"ice", "1", "true"}));
  EXPECT_EQ(Values(reader, 1),
            (std::vector<std::string>{"\xc3\xa9\xf0\x9f\x98\x80 /x", "-2.5e3", "null"}));
}

TEST_F(DataFileTest, BadFilesAreRefusedWithFileAndLine) {
  absl::StatusOr<DataFile> missing = DataFile::Open(folder_ + "/missing.csv");
  EXPECT_EQ(missing.status().message(),
            "--data '" + folder_ + "/missing.csv': No such file or directory");
  std::string p = folder_ + "/";
  EXPECT_EQ(ErrorOf("empty.csv", ""), "--data " + p + "empty.csv: the file is empty");
  EXPECT_EQ(ErrorOf("head.csv", "a,b\n"),
            "--data " + p + "head.csv: the file has no rows under its header line");
  EXPECT_EQ(ErrorOf("count.csv", "a,b\n1,2\n\n1,2,3\n"),
            "--data " + p + "count.csv:4: the row has 3 values, the header 2");
  EXPECT_EQ(ErrorOf("short.csv", "a,b\n1\n"),
            "--data " + p + "short.csv:2: the row has 1 values, the header 2");
  EXPECT_EQ(ErrorOf("name.csv", "a,b c\n1,2\n"),
            "--data " + p +
                "name.csv:1: column name 'b c' is not letters, digits and _ (the first line names "
                "the columns)");
  EXPECT_EQ(ErrorOf("twice.csv", "a,a\n1,2\n"),
            "--data " + p + "twice.csv:1: column 'a' appears twice");
  EXPECT_EQ(ErrorOf("quote.csv", "a\n\"open\n"),
            "--data " + p +
                "quote.csv:2: a quoted value has no closing quote (--data takes one row a line)");
  EXPECT_EQ(
      ErrorOf("nested.ndjson", "{\"a\":{\"b\":1}}\n"),
      "--data " + p +
          "nested.ndjson:1: the value of 'a' is an object or array; only flat objects are read");
  EXPECT_EQ(ErrorOf("missing.ndjson", "{\"a\":1,\"b\":2}\n{\"a\":1}\n"),
            "--data " + p + "missing.ndjson:2: key 'b' is missing");
  EXPECT_EQ(ErrorOf("extra.ndjson", "{\"a\":1}\n{\"a\":1,\"c\":3}\n"),
            "--data " + p + "extra.ndjson:2: key 'c' is not in the first line");
  EXPECT_EQ(ErrorOf("control.ndjson", "{\"a\":\"x\\ny\"}\n"),
            "--data " + p + "control.ndjson:1: the value of 'a' holds a control character");
  EXPECT_EQ(ErrorOf("array.ndjson", "[1,2]\n"),
            "--data " + p + "array.ndjson:1: the line is not a JSON object");
}

}  // namespace
}  // namespace uringload::core
