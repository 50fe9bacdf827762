#pragma once

#include <array>
#include <cstdint>

#include "absl/strings/string_view.h"

namespace kvbench::runner {
namespace plain_json_internal {

// The bytes a plain string holds: printable ASCII but the quote and the backslash.
inline constexpr std::array<bool, 256> PlainBytes() {
  std::array<bool, 256> plain{};
  for (int byte = 0x20; byte < 0x7f; ++byte) plain[byte] = byte != '"' && byte != '\\';
  return plain;
}
inline constexpr std::array<bool, 256> kPlain = PlainBytes();

}  // namespace plain_json_internal

// A strict JSON (RFC 8259) scanner for the common case of stream events (stream_event_scan.h):
// Run() is true only for a payload that is one valid JSON value and whose strings are printable
// ASCII without escapes; it is false as soon as it meets anything else (a syntax error included),
// and the caller then asks nlohmann. So it never accepts what nlohmann would reject, and reports
// the same values for what it accepts. `Handler` takes the events as they come: StartObject(),
// StartArray(), End(), ObjectKey(name), String(text), Integer(int: the value cast as
// nlohmann's get<int> casts it), Scalar() (null, true, false, a float).
template <typename Handler>
class PlainJsonScanner {
 public:
  PlainJsonScanner(absl::string_view text, Handler* scan)
      : p_(text.data()), end_(text.data() + text.size()), scan_(scan) {}

  bool Run() {
    SkipSpace();
    if (!Value(0)) return false;
    SkipSpace();
    return p_ == end_;
  }

 private:
  // Deeper payloads go to nlohmann (no server sends them; this keeps the recursion bounded).
  static constexpr int kMaxDepth = 32;
  // Integers of more digits may not fit in 64 bits: nlohmann decides how it reads them.
  static constexpr int kMaxIntegerDigits = 18;

  static bool IsDigit(char c) { return c >= '0' && c <= '9'; }

  void SkipSpace() {
    while (p_ != end_ && (*p_ == ' ' || *p_ == '\n' || *p_ == '\r' || *p_ == '\t')) ++p_;
  }

  bool Value(int depth) {
    if (p_ == end_) return false;
    switch (*p_) {
      case '{':
        return Object(depth + 1);
      case '[':
        return Array(depth + 1);
      case '"': {
        absl::string_view text;
        if (!String(&text)) return false;
        scan_->String(text);
        return true;
      }
      case 't':
        return Literal("true");
      case 'f':
        return Literal("false");
      case 'n':
        return Literal("null");
      default:
        return Number();
    }
  }

  bool Object(int depth) {
    if (depth > kMaxDepth) return false;
    ++p_;
    scan_->StartObject();
    SkipSpace();
    if (p_ != end_ && *p_ == '}') {
      ++p_;
      scan_->End();
      return true;
    }
    for (;;) {
      absl::string_view key;
      if (p_ == end_ || *p_ != '"' || !String(&key)) return false;
      scan_->ObjectKey(key);
      SkipSpace();
      if (p_ == end_ || *p_ != ':') return false;
      ++p_;
      SkipSpace();
      if (!Value(depth)) return false;
      SkipSpace();
      if (p_ == end_) return false;
      if (*p_ == '}') {
        ++p_;
        scan_->End();
        return true;
      }
      if (*p_ != ',') return false;
      ++p_;
      SkipSpace();
    }
  }

  bool Array(int depth) {
    if (depth > kMaxDepth) return false;
    ++p_;
    scan_->StartArray();
    SkipSpace();
    if (p_ != end_ && *p_ == ']') {
      ++p_;
      scan_->End();
      return true;
    }
    for (;;) {
      if (!Value(depth)) return false;
      SkipSpace();
      if (p_ == end_) return false;
      if (*p_ == ']') {
        ++p_;
        scan_->End();
        return true;
      }
      if (*p_ != ',') return false;
      ++p_;
      SkipSpace();
    }
  }

  // At the opening quote.
  bool String(absl::string_view* text) {
    const char* begin = ++p_;
    while (p_ != end_ && plain_json_internal::kPlain[static_cast<unsigned char>(*p_)]) ++p_;
    if (p_ == end_ || *p_ != '"') return false;  // an escape, a control or a UTF-8 byte
    *text = absl::string_view(begin, static_cast<size_t>(p_ - begin));
    ++p_;
    return true;
  }

  bool Literal(absl::string_view literal) {
    if (static_cast<size_t>(end_ - p_) < literal.size() ||
        absl::string_view(p_, literal.size()) != literal) {
      return false;
    }
    p_ += literal.size();
    scan_->Scalar();
    return true;
  }

  // -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?
  bool Number() {
    const bool negative = *p_ == '-';
    if (negative) ++p_;
    const char* digits = p_;
    if (p_ == end_ || !IsDigit(*p_)) return false;
    if (*p_ == '0') {
      ++p_;
    } else {
      while (p_ != end_ && IsDigit(*p_)) ++p_;
    }
    const char* digits_end = p_;
    bool integer = true;
    if (p_ != end_ && *p_ == '.') {
      integer = false;
      ++p_;
      if (p_ == end_ || !IsDigit(*p_)) return false;
      while (p_ != end_ && IsDigit(*p_)) ++p_;
    }
    if (p_ != end_ && (*p_ == 'e' || *p_ == 'E')) {
      integer = false;
      ++p_;
      if (p_ != end_ && (*p_ == '+' || *p_ == '-')) ++p_;
      if (p_ == end_ || !IsDigit(*p_)) return false;
      while (p_ != end_ && IsDigit(*p_)) ++p_;
    }
    if (!integer) {
      scan_->Scalar();
      return true;
    }
    if (digits_end - digits > kMaxIntegerDigits) return false;
    int64_t value = 0;
    for (const char* d = digits; d != digits_end; ++d) value = value * 10 + (*d - '0');
    scan_->Integer(static_cast<int>(negative ? -value : value));
    return true;
  }

  const char* p_;
  const char* const end_;
  Handler* const scan_;
};

}  // namespace kvbench::runner
