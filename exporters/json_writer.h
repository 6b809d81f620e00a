// JsonWriter: a small streaming JSON writer (objects, arrays, numbers, strings, null) so
// results need no JSON library. Commas and escaping are handled; layout is one key per line.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace uringload::exporters {

class JsonWriter {
 public:
  JsonWriter& BeginObject(std::string_view key = {}) { return Open(key, '{'); }
  JsonWriter& EndObject() { return Close('}'); }
  JsonWriter& BeginArray(std::string_view key = {}) { return Open(key, '['); }
  JsonWriter& EndArray() { return Close(']'); }
  JsonWriter& Number(std::string_view key, uint64_t value);
  JsonWriter& Number(std::string_view key, double value);
  JsonWriter& String(std::string_view key, std::string_view value);
  JsonWriter& Bool(std::string_view key, bool value);
  JsonWriter& Null(std::string_view key);

  // The document so far, with a trailing newline once complete.
  std::string Take();

 private:
  JsonWriter& Open(std::string_view key, char bracket);
  JsonWriter& Close(char bracket);
  void Key(std::string_view key);
  void Escaped(std::string_view text);

  std::string out_;
  std::vector<bool> has_items_;  // Per open container: whether a comma is needed.
};

}  // namespace uringload::exporters
