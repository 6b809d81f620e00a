#include "proto/event_stream_parser.h"

#include <algorithm>
#include <cstring>

namespace uringload::proto {
namespace {

constexpr char kBom[] = "\xEF\xBB\xBF";
constexpr std::string_view kDone = "[DONE]";

// Where the line's bytes end (a CR or a LF), from `from`; data.size() if not in `data`. Two
// memchr (vectorised) instead of a loop over the bytes: a chat chunk's data line is ~180 bytes,
// and the loop was most of a received event's CPU (docs/performance.md).
size_t LineEnd(std::string_view data, size_t from) {
  const char* begin = data.data() + from;
  size_t n = data.size() - from;
  const char* lf = static_cast<const char*>(memchr(begin, '\n', n));
  size_t limit = lf != nullptr ? static_cast<size_t>(lf - begin) : n;
  const char* cr = static_cast<const char*>(memchr(begin, '\r', limit));
  return from + (cr != nullptr ? static_cast<size_t>(cr - begin) : limit);
}

}  // namespace

void EventStreamParser::SetDataCapacity(size_t bytes) {
  capacity_ = bytes;
  data_.clear();
  data_.reserve(bytes);
}

void EventStreamParser::Reset() {
  name_size_ = 0;
  name_too_long_ = false;
  in_value_ = false;
  skip_space_ = false;
  field_ = Field::kUnknown;
  after_cr_ = false;
  at_start_ = true;
  bom_ = 0;
  dispatched_ = false;
  ClearEvent();
}

void EventStreamParser::ClearEvent() {
  data_.clear();
  data_size_ = 0;
  has_data_ = false;
  truncated_ = false;
  type_size_ = 0;
  pending_ = false;
}

void EventStreamParser::AppendData(std::string_view bytes) {
  if (sink_ != nullptr && !bytes.empty()) sink_->OnEventData(bytes, data_size_ == 0);
  if (data_size_ < sizeof(head_)) {
    size_t n = std::min(bytes.size(), sizeof(head_) - data_size_);
    memcpy(head_ + data_size_, bytes.data(), n);
  }
  data_size_ += bytes.size();
  size_t room = capacity_ - data_.size();
  if (bytes.size() > room) truncated_ = true;
  data_.append(bytes.data(), std::min(bytes.size(), room));
}

void EventStreamParser::Dispatch() {
  event_ = {.type = std::string_view(type_, type_size_),
            .data = data_,
            .data_size = data_size_,
            .truncated = truncated_,
            .done = data_size_ == kDone.size() && std::string_view(head_, kDone.size()) == kDone};
  dispatched_ = true;  // Its views stay valid until the next Feed.
}

// The line ended: applies a field without a value, or dispatches on an empty line. True when an
// event was dispatched.
bool EventStreamParser::EndLine() {
  bool dispatched = false;
  if (format_ == EventFormat::kNdjson) {
    if (has_data_) {
      Dispatch();
      dispatched = true;
    }
  } else if (!in_value_ && name_size_ == 0) {  // An empty line.
    if (has_data_) {
      Dispatch();
      dispatched = true;
    } else {
      ClearEvent();  // A type without data is dropped with it.
    }
  } else if (!in_value_) {  // A field name alone: its value is empty.
    StartValue();
  }
  name_size_ = 0;
  name_too_long_ = false;
  in_value_ = false;
  skip_space_ = false;
  field_ = Field::kUnknown;
  return dispatched;
}

// The field is named (the colon came, or the line ended): what its value goes into.
void EventStreamParser::StartValue() {
  std::string_view name = name_too_long_ ? "" : std::string_view(name_, name_size_);
  in_value_ = true;
  if (name == "data") {
    field_ = Field::kData;
    if (has_data_) AppendData("\n");  // The line before's LF: the last one is never kept.
    has_data_ = true;
  } else if (name == "event") {
    field_ = Field::kEvent;
    type_size_ = 0;
  } else {
    field_ = Field::kOther;  // id, retry (not kept) or one the standard ignores.
  }
}

EventStreamParser::Step EventStreamParser::Feed(std::string_view data) {
  if (dispatched_) {
    ClearEvent();
    dispatched_ = false;
  }
  size_t i = 0;
  while (i < data.size()) {
    if (at_start_) {  // A UTF-8 BOM before anything else is dropped.
      if (static_cast<unsigned char>(data[i]) == static_cast<unsigned char>(kBom[bom_])) {
        ++i;
        at_start_ = ++bom_ < 3;
        continue;
      }
      at_start_ = false;
      if (bom_ > 0) {  // Not a BOM after all: its bytes were the stream's.
        uint8_t matched = bom_;
        bom_ = 0;
        Feed(std::string_view(kBom, matched));
      }
    }
    char c = data[i];
    if (after_cr_) {
      after_cr_ = false;
      if (c == '\n') {  // A CRLF's LF.
        ++i;
        continue;
      }
    }
    if (c == '\r' || c == '\n') {
      after_cr_ = c == '\r';
      ++i;
      if (EndLine()) return {i, true};
      continue;
    }
    pending_ = true;
    if (format_ == EventFormat::kNdjson) {
      size_t end = LineEnd(data, i);
      AppendData(data.substr(i, end - i));
      has_data_ = true;
      i = end;
      continue;
    }
    if (!in_value_) {
      ++i;
      if (c == ':') {
        if (name_size_ == 0) {
          in_value_ = true;  // A comment: the rest of the line is ignored.
          field_ = Field::kComment;
        } else {
          StartValue();
          skip_space_ = true;
        }
      } else if (name_size_ < sizeof(name_)) {
        name_[name_size_++] = c;
      } else {
        name_too_long_ = true;  // Longer than any field kept: one the standard ignores.
      }
      continue;
    }
    size_t end = LineEnd(data, i);
    std::string_view value = data.substr(i, end - i);
    if (skip_space_) {
      skip_space_ = false;
      if (value.front() == ' ') value.remove_prefix(1);
    }
    if (field_ == Field::kData) {
      AppendData(value);
    } else if (field_ == Field::kEvent) {
      size_t n = std::min(value.size(), kMaxTypeBytes - type_size_);
      memcpy(type_ + type_size_, value.data(), n);
      type_size_ += n;
    }
    i = end;
  }
  return {data.size(), false};
}

}  // namespace uringload::proto
