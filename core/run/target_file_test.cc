#include "core/run/target_file.h"

#include <gtest/gtest.h>

#include <cstdio>

namespace uringload::core {
namespace {

std::string WriteFile(const std::string& name, const std::string& text) {
  std::string path = ::testing::TempDir() + "/" + name;
  FILE* f = fopen(path.c_str(), "w");
  fputs(text.c_str(), f);
  fclose(f);
  return path;
}

TEST(TargetFileTest, ReadsLinesSkipsCommentsAndLoadsBodiesBesideTheFile) {
  WriteFile("body.json", "{\"a\":1}");
  std::string path = WriteFile("targets.txt",
                               "# comment\n\nGET http://h/a\n  POST http://h/b @body.json  \n"
                               "DELETE\thttp://h/c/{i}\n"
                               "PUT http://h/d name=login @body.json\n");
  absl::StatusOr<std::vector<TargetLine>> lines = ReadTargetFile(path);
  ASSERT_TRUE(lines.ok()) << lines.status();
  ASSERT_EQ(lines->size(), 4u);
  EXPECT_EQ((*lines)[0].line, 3);
  EXPECT_EQ((*lines)[1].method, "POST");
  EXPECT_EQ((*lines)[1].body, "{\"a\":1}");
  EXPECT_EQ((*lines)[2].url, "http://h/c/{i}");
  EXPECT_FALSE((*lines)[2].body.has_value());
  EXPECT_EQ((*lines)[2].name, "");
  EXPECT_EQ((*lines)[3].name, "login");
  EXPECT_EQ((*lines)[3].body, "{\"a\":1}");
}

TEST(TargetFileTest, AMalformedLineNamesFileAndLine) {
  struct Case {
    const char* text;
    const char* message;
  } cases[] = {
      {"GET http://h/\nGET\n", "t.txt:2: expected 'METHOD URL [@bodyfile] [name=NAME]'"},
      {"GET http://h/ body\n", "t.txt:1: after METHOD URL, a body '@file' and a 'name=NAME'"},
      {"\n\nPOST http://h/ @missing.bin\n", "t.txt:3: body"},
      {"GET http://h/ @/etc/hostname @/etc/hostname\n", "t.txt:1: after METHOD URL"},
      {"GET http://h/ name=a name=b\n", "t.txt:1: after METHOD URL"},
      {"GET http://h/ name=a{b}\n", "t.txt:1: a name is letters, digits"},
      {"GET http://h/ a b c d\n", "t.txt:1: expected"},
      {"# only a comment\n", "no request in the file"},
  };
  for (const Case& c : cases) {
    absl::StatusOr<std::vector<TargetLine>> lines = ParseTargetFile("/tmp/t.txt", c.text);
    ASSERT_FALSE(lines.ok()) << c.text;
    EXPECT_NE(lines.status().message().find(c.message), std::string::npos) << lines.status();
  }
}

}  // namespace
}  // namespace uringload::core
