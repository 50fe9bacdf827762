#include "common/prometheus/line_parser.h"

#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <system_error>
#include <utility>

#include "absl/strings/charconv.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "common/status/status_macros.h"

namespace kvbench::prometheus_text::internal {
namespace {

// Longest excerpt of an offending token quoted in an error message.
constexpr size_t kMaxQuotedToken = 40;

enum CharClass : uint8_t {
  kBlank = 1,
  kLabelNameStart = 2,   // [a-zA-Z_]
  kLabelNameChar = 4,    // [a-zA-Z0-9_]
  kMetricNameStart = 8,  // [a-zA-Z_:]
  kMetricNameChar = 16,  // [a-zA-Z0-9_:]
};

constexpr std::array<uint8_t, 256> MakeCharClasses() {
  std::array<uint8_t, 256> classes{};
  for (int c = 0; c < 256; ++c) {
    const bool alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
    const bool digit = c >= '0' && c <= '9';
    uint8_t bits = 0;
    if (c == ' ' || c == '\t') bits |= kBlank;
    if (alpha) bits |= kLabelNameStart | kMetricNameStart;
    if (alpha || digit) bits |= kLabelNameChar | kMetricNameChar;
    if (c == ':') bits |= kMetricNameStart | kMetricNameChar;
    classes[c] = bits;
  }
  return classes;
}
constexpr std::array<uint8_t, 256> kCharClasses = MakeCharClasses();

bool Is(char c, uint8_t char_class) {
  return (kCharClasses[static_cast<unsigned char>(c)] & char_class) != 0;
}

// `token` quoted and C-escaped for an error message, cut to kMaxQuotedToken bytes.
std::string Quote(absl::string_view token) {
  const bool cut = token.size() > kMaxQuotedToken;
  return absl::StrCat("\"", absl::CHexEscape(token.substr(0, kMaxQuotedToken)), cut ? "..." : "",
                      "\"");
}

// A position in one line, with the scanning steps the grammar needs.
class Cursor {
 public:
  explicit Cursor(absl::string_view line)
      : begin_(line.data()), pos_(line.data()), end_(line.data() + line.size()) {}

  bool AtEnd() const { return pos_ == end_; }
  char Peek() const { return *pos_; }
  const char* pos() const { return pos_; }
  absl::string_view Rest() const { return absl::string_view(pos_, end_ - pos_); }

  bool Consume(char c) {
    if (pos_ == end_ || *pos_ != c) return false;
    ++pos_;
    return true;
  }
  void SkipBlanks() {
    while (pos_ != end_ && Is(*pos_, kBlank)) ++pos_;
  }
  // The longest run of one `start` character then `rest` characters; empty if there is none.
  absl::string_view TakeName(uint8_t start, uint8_t rest) {
    const char* first = pos_;
    if (pos_ == end_ || !Is(*pos_, start)) return {};
    ++pos_;
    while (pos_ != end_ && Is(*pos_, rest)) ++pos_;
    return absl::string_view(first, pos_ - first);
  }
  // Everything up to the next blank or the end of the line.
  absl::string_view TakeToken() {
    const char* first = pos_;
    while (pos_ != end_ && !Is(*pos_, kBlank)) ++pos_;
    return absl::string_view(first, pos_ - first);
  }
  // A quoted label value; the cursor is on the opening quote. Validates the escapes (\\, \", \n)
  // without resolving them.
  absl::Status TakeLabelValue(LabelView* label) {
    const char* open = pos_++;
    const char* close = static_cast<const char*>(std::memchr(pos_, '"', end_ - pos_));
    const char* stop = close != nullptr ? close : end_;
    if (std::memchr(pos_, '\\', stop - pos_) != nullptr) {
      // Escapes: an escaped quote does not close the value, so scan byte by byte.
      for (close = pos_; close != end_ && *close != '"'; ++close) {
        if (*close != '\\') continue;
        if (++close == end_) break;
        if (*close != '\\' && *close != '"' && *close != 'n') {
          return ErrorAt(close - 1, absl::StrCat("invalid escape sequence ",
                                                 Quote(absl::string_view(close - 1, 2)),
                                                 " in a label value (only \\\\, \\\" and \\n)"));
        }
      }
      if (close == end_) close = nullptr;
      label->escaped = true;
    }
    if (close == nullptr) {
      return ErrorAt(open, "unterminated label value (no closing quote)");
    }
    label->raw_value = absl::string_view(pos_, close - pos_);
    pos_ = close + 1;
    return absl::OkStatus();
  }

  absl::Status Error(absl::string_view what) const { return ErrorAt(pos_, what); }
  absl::Status ErrorAt(const char* at, absl::string_view what) const {
    return absl::InvalidArgumentError(absl::StrCat(what, " at column ", at - begin_ + 1));
  }

 private:
  const char* begin_;
  const char* pos_;
  const char* end_;
};

// `{name="value",...}` (a trailing comma and blanks allowed); the cursor is on the '{'.
absl::Status ParseLabels(Cursor& cursor, std::vector<LabelView>* labels) {
  cursor.Consume('{');
  while (true) {
    cursor.SkipBlanks();
    if (cursor.AtEnd()) return cursor.Error("unterminated label set (no closing '}')");
    if (cursor.Consume('}')) return absl::OkStatus();
    LabelView label;
    label.name = cursor.TakeName(kLabelNameStart, kLabelNameChar);
    if (label.name.empty()) return cursor.Error("expected a label name");
    cursor.SkipBlanks();
    if (!cursor.Consume('=')) {
      return cursor.Error(absl::StrCat("expected '=' after label ", Quote(label.name)));
    }
    cursor.SkipBlanks();
    if (cursor.AtEnd() || cursor.Peek() != '"') {
      return cursor.Error(absl::StrCat("expected a quoted value for label ", Quote(label.name)));
    }
    KV_RETURN_IF_ERROR(cursor.TakeLabelValue(&label));
    for (const LabelView& other : *labels) {
      if (other.name == label.name) {
        return cursor.Error(absl::StrCat("duplicate label ", Quote(label.name)));
      }
    }
    labels->push_back(label);
    cursor.SkipBlanks();
    if (cursor.Consume(',')) continue;
    if (cursor.Consume('}')) return absl::OkStatus();
    if (cursor.AtEnd()) return cursor.Error("unterminated label set (no closing '}')");
    return cursor.Error("expected ',' or '}' after a label value");
  }
}

// A label value with its escapes resolved (they were validated while scanning).
std::string UnescapeLabelValue(absl::string_view raw) {
  std::string out;
  out.reserve(raw.size());
  for (size_t i = 0; i < raw.size(); ++i) {
    char c = raw[i];
    if (c == '\\' && i + 1 < raw.size()) {
      c = raw[++i];
      if (c == 'n') c = '\n';
    }
    out.push_back(c);
  }
  return out;
}

// HELP text with \\ and \n resolved; false (with the offset of the bad backslash) for any other
// escape, as Prometheus's parser does.
bool UnescapeHelp(absl::string_view raw, std::string* out, size_t* bad_offset) {
  out->clear();
  out->reserve(raw.size());
  for (size_t i = 0; i < raw.size(); ++i) {
    char c = raw[i];
    if (c == '\\') {
      if (i + 1 == raw.size() || (raw[i + 1] != '\\' && raw[i + 1] != 'n')) {
        *bad_offset = i;
        return false;
      }
      c = raw[++i] == 'n' ? '\n' : '\\';
    }
    out->push_back(c);
  }
  return true;
}

// A decimal int64 with an optional sign, as Go's strconv.ParseInt(s, 10, 64).
bool ParseInt64(absl::string_view token, int64_t* value) {
  const char* first = token.data();
  const char* last = first + token.size();
  if (first != last && *first == '+') ++first;
  if (first == last || *first == '+' || (*first == '-' && token.front() == '+')) return false;
  const std::from_chars_result result = std::from_chars(first, last, *value);
  return result.ec == std::errc() && result.ptr == last;
}

std::optional<MetricType> ParseMetricType(absl::string_view text) {
  constexpr std::pair<absl::string_view, MetricType> kTypes[] = {
      {"counter", MetricType::kCounter},     {"gauge", MetricType::kGauge},
      {"histogram", MetricType::kHistogram}, {"summary", MetricType::kSummary},
      {"untyped", MetricType::kUntyped},
  };
  for (const auto& [name, type] : kTypes) {
    if (absl::EqualsIgnoreCase(text, name)) return type;
  }
  return std::nullopt;
}

}  // namespace

bool ParseFloat(absl::string_view token, double* value) {
  const char* first = token.data();
  const char* last = first + token.size();
  // absl::from_chars takes no leading '+'; Go's ParseFloat does ("+Inf" is what Prometheus writes).
  if (first != last && *first == '+') {
    ++first;
    if (first == last || *first == '-' || *first == '+') return false;
  }
  // absl::from_chars reads hex ("0x10"); Go wants a 'p' exponent there and exporters never write
  // hex, so it is refused.
  const char* digits = first != last && *first == '-' ? first + 1 : first;
  if (last - digits > 1 && digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X')) return false;
  const absl::from_chars_result result = absl::from_chars(first, last, *value);
  if (result.ptr != last || result.ec == std::errc::invalid_argument) return false;
  if (result.ec == std::errc::result_out_of_range) {
    // Rare: tell overflow (an error in Go) from underflow (a tiny number) with strtod.
    const std::string copy(token);
    *value = std::strtod(copy.c_str(), nullptr);
    return !std::isinf(*value);
  }
  // from_chars also reads C's "nan(chars)", which Go does not.
  if (std::isnan(*value) && token.find('(') != absl::string_view::npos) return false;
  return true;
}

absl::Status ParseSampleLine(absl::string_view line, std::vector<LabelView>* scratch,
                             Sample* sample) {
  Cursor cursor(line);
  cursor.SkipBlanks();
  const absl::string_view name = cursor.TakeName(kMetricNameStart, kMetricNameChar);
  if (name.empty()) return cursor.Error("expected a metric name");
  scratch->clear();
  cursor.SkipBlanks();
  if (!cursor.AtEnd() && cursor.Peek() == '{') {
    KV_RETURN_IF_ERROR(ParseLabels(cursor, scratch));
    cursor.SkipBlanks();
  }
  if (cursor.AtEnd()) return cursor.Error(absl::StrCat("missing value for ", Quote(name)));
  const char* value_at = cursor.pos();
  const absl::string_view value_token = cursor.TakeToken();
  double value = 0;
  if (!ParseFloat(value_token, &value)) {
    return cursor.ErrorAt(value_at, absl::StrCat("invalid value ", Quote(value_token)));
  }
  cursor.SkipBlanks();
  std::optional<int64_t> timestamp_ms;
  if (!cursor.AtEnd()) {
    const char* timestamp_at = cursor.pos();
    const absl::string_view timestamp_token = cursor.TakeToken();
    int64_t timestamp = 0;
    if (!ParseInt64(timestamp_token, &timestamp)) {
      return cursor.ErrorAt(timestamp_at,
                            absl::StrCat("invalid timestamp ", Quote(timestamp_token)));
    }
    timestamp_ms = timestamp;
    cursor.SkipBlanks();
    if (!cursor.AtEnd()) return cursor.Error("unexpected text after the timestamp");
  }

  sample->name.assign(name.data(), name.size());
  sample->labels.clear();
  sample->labels.reserve(scratch->size());
  for (const LabelView& label : *scratch) {
    std::string value_text =
        label.escaped ? UnescapeLabelValue(label.raw_value) : std::string(label.raw_value);
    sample->labels.emplace_back(std::string(label.name), std::move(value_text));
  }
  sample->value = value;
  sample->timestamp_ms = timestamp_ms;
  return absl::OkStatus();
}

absl::Status ParseCommentLine(absl::string_view line, Declaration* declaration) {
  declaration->kind = Declaration::Kind::kOtherComment;
  Cursor cursor(line);
  cursor.SkipBlanks();
  cursor.Consume('#');
  cursor.SkipBlanks();
  const absl::string_view keyword = cursor.TakeToken();
  Declaration::Kind kind;
  if (keyword == "HELP") {
    kind = Declaration::Kind::kHelp;
  } else if (keyword == "TYPE") {
    kind = Declaration::Kind::kType;
  } else {
    return absl::OkStatus();  // any other comment
  }
  // As in Prometheus's parser, a HELP or TYPE line cut short before its name is not an error.
  cursor.SkipBlanks();
  if (cursor.AtEnd()) return absl::OkStatus();
  const absl::string_view name = cursor.TakeName(kMetricNameStart, kMetricNameChar);
  if (name.empty() || (!cursor.AtEnd() && !Is(cursor.Peek(), kBlank))) {
    return cursor.Error(absl::StrCat("invalid metric name in ", keyword, " line"));
  }
  cursor.SkipBlanks();
  if (kind == Declaration::Kind::kHelp) {
    const absl::string_view raw = cursor.Rest();
    size_t bad = 0;
    if (!UnescapeHelp(raw, &declaration->help, &bad)) {
      return cursor.ErrorAt(raw.data() + bad,
                            "invalid escape sequence in HELP text (only \\\\ and \\n)");
    }
  } else {
    const absl::string_view type_text = absl::StripTrailingAsciiWhitespace(cursor.Rest());
    if (type_text.empty()) return absl::OkStatus();  // "# TYPE name": ignored, as Prometheus does
    const std::optional<MetricType> type = ParseMetricType(type_text);
    if (!type.has_value()) {
      return cursor.Error(absl::StrCat("unknown metric type ", Quote(type_text)));
    }
    declaration->type = *type;
  }
  declaration->kind = kind;
  declaration->name = name;
  return absl::OkStatus();
}

}  // namespace kvbench::prometheus_text::internal
