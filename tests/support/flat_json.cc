#include "tests/support/flat_json.h"

#include <gtest/gtest.h>

#include <cctype>
#include <cstdlib>

namespace uringload::testing {
namespace {

class Parser {
 public:
  explicit Parser(std::string_view text) : text_(text) {}

  bool Parse(FlatJson* out) {
    out_ = out;
    if (!Value("")) return false;
    SkipSpace();
    return pos_ == text_.size();
  }

 private:
  void SkipSpace() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  bool Eat(char c) {
    SkipSpace();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  static std::string Join(const std::string& prefix, const std::string& key) {
    return prefix.empty() ? key : prefix + "." + key;
  }

  bool String(std::string* s) {
    if (!Eat('"')) return false;
    while (pos_ < text_.size() && text_[pos_] != '"') {
      char c = text_[pos_++];
      if (c == '\\' && pos_ < text_.size()) {
        char e = text_[pos_++];
        if (e == 'n')
          c = '\n';
        else if (e == 'u') {
          c = '?';
          pos_ += 4;
        } else
          c = e;
      }
      s->push_back(c);
    }
    return Eat('"');
  }

  bool Value(const std::string& path) {
    SkipSpace();
    if (pos_ >= text_.size()) return false;
    char c = text_[pos_];
    if (c == '{') return Object(path);
    if (c == '[') return Array(path);
    if (c == '"') {
      std::string s;
      if (!String(&s)) return false;
      (*out_)[path] = s;
      return true;
    }
    size_t start = pos_;
    while (pos_ < text_.size() &&
           std::string_view(",}] \n\r\t").find(text_[pos_]) == std::string_view::npos) {
      ++pos_;
    }
    if (pos_ == start) return false;
    (*out_)[path] = std::string(text_.substr(start, pos_ - start));
    return true;
  }

  bool Object(const std::string& path) {
    Eat('{');
    if (Eat('}')) return true;
    do {
      std::string key;
      if (!String(&key) || !Eat(':') || !Value(Join(path, key))) return false;
    } while (Eat(','));
    return Eat('}');
  }

  bool Array(const std::string& path) {
    Eat('[');
    if (Eat(']')) return true;
    int index = 0;
    do {
      if (!Value(Join(path, std::to_string(index++)))) return false;
    } while (Eat(','));
    return Eat(']');
  }

  std::string_view text_;
  size_t pos_ = 0;
  FlatJson* out_ = nullptr;
};

}  // namespace

absl::StatusOr<FlatJson> FlattenJson(std::string_view text) {
  FlatJson out;
  if (!Parser(text).Parse(&out)) return absl::InvalidArgumentError("malformed JSON");
  return out;
}

uint64_t JsonCount(const FlatJson& json, const std::string& path) {
  auto it = json.find(path);
  if (it == json.end()) {
    ADD_FAILURE() << "JSON has no key " << path;
    return ~0ull;
  }
  char* end = nullptr;
  uint64_t value = std::strtoull(it->second.c_str(), &end, 10);
  if (end == it->second.c_str() || *end != '\0') {
    ADD_FAILURE() << "JSON key " << path << " is not a count: " << it->second;
    return ~0ull;
  }
  return value;
}

}  // namespace uringload::testing
