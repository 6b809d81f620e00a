#include "core/flow/text_pattern.h"

#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"
#include "net/base/absl_view.h"

namespace uringload::core {

// The pattern as a tree, parsed by recursive descent, then emitted as Pike VM code.
class PatternParser {
 public:
  explicit PatternParser(std::string_view pattern) : text_(pattern) {}

  absl::StatusOr<TextPattern> Parse() {
    int root = Alternation();
    if (!error_.empty()) return absl::InvalidArgumentError(error_);
    if (at_ < text_.size()) {
      Fail(") without its (");
      return absl::InvalidArgumentError(error_);
    }
    if (groups_ != 1) {
      return absl::InvalidArgumentError(
          absl::StrCat("a regex extracts exactly one group, this one has ", groups_));
    }
    Emit(root);
    pattern_.program_.push_back({.op = TextPattern::Op::kMatch});
    if (pattern_.program_.size() > TextPattern::kMaxInstructions) {
      return absl::InvalidArgumentError(absl::StrCat(
          "too long: more than ", TextPattern::kMaxInstructions, " instructions once compiled"));
    }
    return std::move(pattern_);
  }

 private:
  enum class Kind : uint8_t {
    kChar,
    kAny,
    kClass,
    kBegin,
    kEnd,
    kConcat,
    kAlternation,
    kStar,
    kPlus,
    kQuestion,
    kGroup,
    kEmpty
  };
  struct Node {
    Kind kind;
    char c = 0;
    uint16_t index = 0;      // kClass: the class.
    bool greedy = true;      // Repeats.
    bool capturing = false;  // kGroup.
    std::vector<int> children = {};
  };

  // The first error is the one reported.
  void Fail(std::string_view why) {
    if (error_.empty()) {
      error_ = absl::StrCat("at ", at_ + 1, ": ", AbslView(why));
    }
  }
  int Add(Node node) {
    nodes_.push_back(std::move(node));
    return static_cast<int>(nodes_.size() - 1);
  }
  bool More() const { return error_.empty() && at_ < text_.size(); }

  int Alternation() {
    Node alternation{.kind = Kind::kAlternation};
    alternation.children.push_back(Concatenation());
    while (More() && text_[at_] == '|') {
      ++at_;
      alternation.children.push_back(Concatenation());
    }
    if (alternation.children.size() == 1) return alternation.children[0];
    return Add(std::move(alternation));
  }

  int Concatenation() {
    Node concat{.kind = Kind::kConcat};
    while (More() && text_[at_] != '|' && text_[at_] != ')') concat.children.push_back(Repeat());
    if (concat.children.empty()) return Add({.kind = Kind::kEmpty});
    if (concat.children.size() == 1) return concat.children[0];
    return Add(std::move(concat));
  }

  int Repeat() {
    int atom = Atom();
    while (More() && (text_[at_] == '*' || text_[at_] == '+' || text_[at_] == '?')) {
      Kind kind = text_[at_] == '*'   ? Kind::kStar
                  : text_[at_] == '+' ? Kind::kPlus
                                      : Kind::kQuestion;
      ++at_;
      bool greedy = true;
      if (at_ < text_.size() && text_[at_] == '?') {
        greedy = false;
        ++at_;
      }
      atom = Add({.kind = kind, .greedy = greedy, .children = {atom}});
    }
    if (More() && text_[at_] == '{') Fail("{n,m} repeats are not supported: use * + ?");
    return atom;
  }

  int Atom() {
    char c = text_[at_++];
    switch (c) {
      case '(': {
        bool capturing = true;
        if (text_.substr(at_, 2) == "?:") {
          capturing = false;
          at_ += 2;
        } else if (at_ < text_.size() && text_[at_] == '?') {
          Fail("only (…) and (?:…) groups are supported");
          return Add({.kind = Kind::kEmpty});
        }
        groups_ += capturing;
        int inner = Alternation();
        if (!More() || text_[at_] != ')') {
          Fail("( without its )");
          return inner;
        }
        ++at_;
        return Add({.kind = Kind::kGroup, .capturing = capturing, .children = {inner}});
      }
      case '[':
        return Class();
      case '.':
        return Add({.kind = Kind::kAny});
      case '^':
        return Add({.kind = Kind::kBegin});
      case '$':
        return Add({.kind = Kind::kEnd});
      case '*':
      case '+':
      case '?':
        --at_;
        Fail("a repeat with nothing before it");
        return Add({.kind = Kind::kEmpty});
      case '\\':
        return Escape(/*in_class=*/false, nullptr);
      default:
        return Add({.kind = Kind::kChar, .c = c});
    }
  }

  // After a backslash: a class (\d …) as a node, or one character. In a class, adds to `set`.
  int Escape(bool in_class, std::bitset<256>* set) {
    size_t backslash = at_ - 1;
    if (at_ >= text_.size()) {
      Fail("a pattern cannot end with \\");
      return Add({.kind = Kind::kEmpty});
    }
    char c = text_[at_++];
    std::bitset<256> named;
    bool is_class = true;
    switch (c) {
      case 'd':
      case 'D':
        for (int k = '0'; k <= '9'; ++k) named.set(k);
        break;
      case 'w':
      case 'W':
        for (int k = 0; k < 256; ++k) {
          if ((k >= 'a' && k <= 'z') || (k >= 'A' && k <= 'Z') || (k >= '0' && k <= '9') ||
              k == '_') {
            named.set(k);
          }
        }
        break;
      case 's':
      case 'S':
        for (char k : {' ', '\t', '\n', '\r', '\f', '\v'}) named.set(static_cast<uint8_t>(k));
        break;
      default:
        is_class = false;
    }
    if (is_class) {
      if (c == 'D' || c == 'W' || c == 'S') named.flip();
      if (in_class) {
        *set |= named;
        return -1;
      }
      return AddClass(named);
    }
    char literal = c == 'n' ? '\n' : c == 't' ? '\t' : c == 'r' ? '\r' : c;
    if ((c >= 'a' && c <= 'z' && c != 'n' && c != 't' && c != 'r') || (c >= '0' && c <= '9')) {
      at_ = backslash;
      Fail(absl::StrCat("\\", std::string(1, c), " is not supported"));
      return Add({.kind = Kind::kEmpty});
    }
    if (in_class) {
      set->set(static_cast<uint8_t>(literal));
      return static_cast<uint8_t>(literal);
    }
    return Add({.kind = Kind::kChar, .c = literal});
  }

  int Class() {
    std::bitset<256> set;
    bool negated = at_ < text_.size() && text_[at_] == '^';
    if (negated) ++at_;
    bool first = true;
    while (true) {
      if (at_ >= text_.size()) {
        Fail("[ without its ]");
        return Add({.kind = Kind::kEmpty});
      }
      char c = text_[at_++];
      if (c == ']' && !first) break;
      first = false;
      int low = static_cast<uint8_t>(c);
      if (c == '\\') {
        low = Escape(/*in_class=*/true, &set);
        if (!error_.empty()) return Add({.kind = Kind::kEmpty});
        if (low < 0) continue;  // A named class.
      }
      if (at_ + 1 < text_.size() && text_[at_] == '-' && text_[at_ + 1] != ']') {
        ++at_;
        int high = static_cast<uint8_t>(text_[at_++]);
        if (high == '\\') {
          high = Escape(/*in_class=*/true, &set);
          if (high < 0) Fail("a range ends at a class");
        }
        if (high < low) Fail("a range whose end is before its start");
        if (!error_.empty()) return Add({.kind = Kind::kEmpty});
        for (int k = low; k <= high; ++k) set.set(k);
      } else {
        set.set(low);
      }
    }
    if (negated) set.flip();
    return AddClass(set);
  }

  int AddClass(const std::bitset<256>& set) {
    pattern_.classes_.push_back(set);
    return Add(
        {.kind = Kind::kClass, .index = static_cast<uint16_t>(pattern_.classes_.size() - 1)});
  }

  using Op = TextPattern::Op;
  size_t Here() const { return pattern_.program_.size(); }
  size_t Put(TextPattern::Instruction instruction) {
    pattern_.program_.push_back(instruction);
    return pattern_.program_.size() - 1;
  }
  TextPattern::Instruction& At(size_t pc) { return pattern_.program_[pc]; }
  static uint16_t Pc(size_t pc) { return static_cast<uint16_t>(pc); }

  void Emit(int index) {
    // Copied: emitting children may add nodes to no vector, but keep the reference simple.
    const Node node = nodes_[index];
    switch (node.kind) {
      case Kind::kChar:
        Put({.op = Op::kChar, .c = node.c});
        return;
      case Kind::kAny:
        Put({.op = Op::kAny});
        return;
      case Kind::kClass:
        Put({.op = Op::kClass, .x = node.index});
        return;
      case Kind::kBegin:
        Put({.op = Op::kBegin});
        return;
      case Kind::kEnd:
        Put({.op = Op::kEnd});
        return;
      case Kind::kEmpty:
        return;
      case Kind::kConcat:
        for (int child : node.children) Emit(child);
        return;
      case Kind::kGroup:
        if (node.capturing) Put({.op = Op::kSave, .x = 0});
        Emit(node.children[0]);
        if (node.capturing) Put({.op = Op::kSave, .x = 1});
        return;
      case Kind::kAlternation: {
        // split L1, next; L1: a; jmp end; next: split L2, next2; ... last alternative.
        std::vector<size_t> jumps;
        for (size_t k = 0; k < node.children.size(); ++k) {
          if (k + 1 == node.children.size()) {
            Emit(node.children[k]);
            break;
          }
          size_t split = Put({.op = Op::kSplit});
          At(split).x = Pc(Here());
          Emit(node.children[k]);
          jumps.push_back(Put({.op = Op::kJump}));
          At(split).y = Pc(Here());
        }
        for (size_t jump : jumps) At(jump).x = Pc(Here());
        return;
      }
      case Kind::kStar: {  // L1: split L2, L3; L2: x; jmp L1; L3:
        size_t split = Put({.op = Op::kSplit});
        Emit(node.children[0]);
        Put({.op = Op::kJump, .x = Pc(split)});
        SetSplit(split, split + 1, Here(), node.greedy);
        return;
      }
      case Kind::kPlus: {  // L1: x; split L1, L3; L3:
        size_t start = Here();
        Emit(node.children[0]);
        size_t split = Put({.op = Op::kSplit});
        SetSplit(split, start, Here(), node.greedy);
        return;
      }
      case Kind::kQuestion: {  // split L1, L2; L1: x; L2:
        size_t split = Put({.op = Op::kSplit});
        Emit(node.children[0]);
        SetSplit(split, split + 1, Here(), node.greedy);
        return;
      }
    }
  }
  // A split preferring `more` (greedy) or `done` (lazy).
  void SetSplit(size_t split, size_t more, size_t done, bool greedy) {
    At(split).x = Pc(greedy ? more : done);
    At(split).y = Pc(greedy ? done : more);
  }

  std::string_view text_;
  size_t at_ = 0;
  int groups_ = 0;
  std::string error_;
  std::vector<Node> nodes_;
  TextPattern pattern_;
};

absl::StatusOr<TextPattern> TextPattern::Compile(std::string_view pattern) {
  return PatternParser(pattern).Parse();
}

PatternScratch::PatternScratch() {
  for (List& list : lists_) {
    list.threads.resize(TextPattern::kMaxInstructions);
    list.seen.resize(TextPattern::kMaxInstructions);
  }
  stack_.resize(2 * TextPattern::kMaxInstructions + 2);
}

std::optional<std::string_view> TextPattern::Search(std::string_view text,
                                                    PatternScratch& scratch) const {
  using Thread = PatternScratch::Thread;
  using List = PatternScratch::List;
  const auto n = static_cast<int32_t>(text.size());
  // Adds `thread` to `list` after following its jumps, splits, saves and assertions at `at`,
  // the preferred branch first (so the list keeps the threads in priority order).
  auto add = [&](List& list, uint32_t generation, Thread thread, int32_t at) {
    size_t top = 0;
    scratch.stack_[top++] = thread;
    while (top > 0) {
      Thread t = scratch.stack_[--top];
      if (list.seen[t.pc] == generation) continue;
      list.seen[t.pc] = generation;
      const Instruction& i = program_[t.pc];
      switch (i.op) {
        case Op::kJump:
          scratch.stack_[top++] = {i.x, t.start, t.end};
          break;
        case Op::kSplit:
          scratch.stack_[top++] = {i.y, t.start, t.end};
          scratch.stack_[top++] = {i.x, t.start, t.end};
          break;
        case Op::kSave:
          scratch.stack_[top++] = i.x == 0 ? Thread{static_cast<uint16_t>(t.pc + 1), at, -1}
                                           : Thread{static_cast<uint16_t>(t.pc + 1), t.start, at};
          break;
        case Op::kBegin:
          if (at == 0) scratch.stack_[top++] = {static_cast<uint16_t>(t.pc + 1), t.start, t.end};
          break;
        case Op::kEnd:
          if (at == n) scratch.stack_[top++] = {static_cast<uint16_t>(t.pc + 1), t.start, t.end};
          break;
        default:
          list.threads[list.size++] = t;
      }
    }
  };
  List* current = &scratch.lists_[0];
  List* next = &scratch.lists_[1];
  current->size = 0;
  uint32_t current_generation = ++scratch.generation_;
  bool matched = false;
  Thread best{0, -1, -1};
  for (int32_t at = 0; at <= n; ++at) {
    // A new start at each position, behind every thread already under way.
    if (!matched) add(*current, current_generation, {0, -1, -1}, at);
    if (current->size == 0) break;
    next->size = 0;
    uint32_t next_generation = ++scratch.generation_;
    for (uint32_t k = 0; k < current->size; ++k) {
      const Thread& t = current->threads[k];
      const Instruction& i = program_[t.pc];
      bool step = false;
      switch (i.op) {
        case Op::kChar:
          step = at < n && text[at] == i.c;
          break;
        case Op::kAny:
          step = at < n && text[at] != '\n';
          break;
        case Op::kClass:
          step = at < n && classes_[i.x][static_cast<uint8_t>(text[at])];
          break;
        case Op::kMatch:
          matched = true;
          best = t;
          k = current->size;  // Threads after it have lower priority.
          continue;
        default:
          break;
      }
      if (step)
        add(*next, next_generation, {static_cast<uint16_t>(t.pc + 1), t.start, t.end}, at + 1);
    }
    std::swap(current, next);
    current_generation = next_generation;
  }
  if (!matched || best.start < 0 || best.end < best.start) return std::nullopt;
  return text.substr(static_cast<size_t>(best.start), static_cast<size_t>(best.end - best.start));
}

}  // namespace uringload::core
