#pragma once

// The line-level scanners behind prometheus_text::Parse (exposition.h): one line in, one sample or
// one declaration out, or an INVALID_ARGUMENT naming what is wrong and at which column. No
// regex, no copies until a line has been validated. Internal to common/prometheus.

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "common/prometheus/exposition.h"

namespace kvbench::prometheus_text::internal {

// A number as Go's strconv.ParseFloat reads it, which is what Prometheus accepts: decimal and
// exponent forms, an optional sign, NaN and [+-]Inf (any case, also "infinity"). False for
// anything else, including overflow (Go's ErrRange); underflow reads as 0 or a subnormal.
bool ParseFloat(absl::string_view token, double* value);

// One label of a sample line as it stands in the text, before unescaping.
struct LabelView {
  absl::string_view name;
  absl::string_view raw_value;  // between the quotes, escapes not yet resolved
  bool escaped = false;         // raw_value holds a backslash
};

// Parses a sample line (`name{labels} value [timestamp]`, blanks allowed between tokens) into
// `sample`. `scratch` is reused across calls to avoid allocating; `sample` is written only on
// success.
absl::Status ParseSampleLine(absl::string_view line, std::vector<LabelView>* scratch,
                             Sample* sample);

// A comment line: `# HELP name text`, `# TYPE name type`, or any other comment.
struct Declaration {
  enum class Kind { kOtherComment, kHelp, kType };
  Kind kind = Kind::kOtherComment;
  absl::string_view name;
  std::string help;                        // unescaped, for kHelp
  MetricType type = MetricType::kUntyped;  // for kType
};

// Parses a line whose first non-blank character is '#'.
absl::Status ParseCommentLine(absl::string_view line, Declaration* declaration);

}  // namespace kvbench::prometheus_text::internal
