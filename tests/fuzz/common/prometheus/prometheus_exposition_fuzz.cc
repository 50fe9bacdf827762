// Fuzz target for prometheus_text::Parse: any bytes in, no crash, no sanitizer report, and the
// invariants below hold. The one that catches most: every sample the parser keeps, written back
// out in the text format, parses again to the same sample (names, labels after unescaping,
// values bit for bit, timestamps).
//
// Built two ways (tests/fuzz/CMakeLists.txt): with standalone_fuzz_driver.cc as a ctest test, and
// with clang's libFuzzer (-DKV_FUZZ=ON) for coverage-guided runs.

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "common/prometheus/exposition.h"

namespace kvbench::prometheus_text {
namespace {

void Require(bool condition, const char* what) {
  if (condition) return;
  std::fprintf(stderr, "prometheus_exposition_fuzz: invariant broken: %s\n", what);
  std::abort();
}

void AppendValue(double value, std::string* out) {
  if (std::isnan(value)) {
    out->append("NaN");
  } else if (std::isinf(value)) {
    out->append(value > 0 ? "+Inf" : "-Inf");
  } else {
    char buffer[32];
    std::snprintf(buffer, sizeof(buffer), "%.17g", value);
    out->append(buffer);
  }
}

// `samples` written back in the text format, one line each.
std::string Write(const std::vector<Sample>& samples) {
  std::string out;
  for (const Sample& sample : samples) {
    out.append(sample.name);
    out.push_back('{');
    for (const auto& [name, value] : sample.labels) {
      out.append(name).append("=\"");
      for (char c : value) {
        switch (c) {
          case '\\':
            out.append("\\\\");
            break;
          case '"':
            out.append("\\\"");
            break;
          case '\n':
            out.append("\\n");
            break;
          default:
            out.push_back(c);
        }
      }
      out.append("\",");
    }
    out.append("} ");
    AppendValue(sample.value, &out);
    if (sample.timestamp_ms.has_value())
      out.append(" ").append(std::to_string(*sample.timestamp_ms));
    out.push_back('\n');
  }
  return out;
}

bool SameValue(double a, double b) {
  return (std::isnan(a) && std::isnan(b)) || std::memcmp(&a, &b, sizeof(a)) == 0;
}

bool IsMetricNameChar(char c, bool first) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':' ||
         (!first && c >= '0' && c <= '9');
}

void CheckInvariants(absl::string_view text, const Exposition& exposition) {
  int lines = 1;
  for (char c : text) lines += c == '\n' ? 1 : 0;
  int previous_line = 0;
  for (const ParseError& error : exposition.errors) {
    Require(error.line >= 1 && error.line <= lines, "error line within the text");
    Require(error.line > previous_line, "one error per line, in order");
    Require(!error.message.empty(), "error message not empty");
    previous_line = error.line;
  }
  for (const Sample& sample : exposition.samples) {
    Require(!sample.name.empty(), "sample name not empty");
    for (size_t i = 0; i < sample.name.size(); ++i) {
      Require(IsMetricNameChar(sample.name[i], i == 0), "sample name is a metric name");
    }
  }
  for (const auto& [name, family] : exposition.families) {
    Require(!name.empty() && IsMetricNameChar(name[0], true), "family name is a metric name");
  }

  const Exposition again = Parse(Write(exposition.samples));
  Require(again.errors.empty(), "written samples parse without errors");
  Require(again.samples.size() == exposition.samples.size(), "written samples all parse");
  for (size_t i = 0; i < again.samples.size(); ++i) {
    const Sample& a = exposition.samples[i];
    const Sample& b = again.samples[i];
    Require(a.name == b.name && a.labels == b.labels, "round trip keeps name and labels");
    Require(SameValue(a.value, b.value), "round trip keeps the value bit for bit");
    Require(a.timestamp_ms == b.timestamp_ms, "round trip keeps the timestamp");
  }

  if (!exposition.samples.empty()) {
    const Sample& first = exposition.samples.front();
    Require(Sum(exposition, Selector{{first.name}, first.labels}).has_value(),
            "a sample selects itself");
    const std::string base = first.name.substr(0, first.name.rfind('_'));
    (void)SumHistogram(exposition, Selector{{base, first.name}, {}});
    (void)FindFamily(exposition, first.name);
  }
}

}  // namespace
}  // namespace kvbench::prometheus_text

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const absl::string_view text(reinterpret_cast<const char*>(data), size);
  kvbench::prometheus_text::CheckInvariants(text, kvbench::prometheus_text::Parse(text));
  return 0;
}
