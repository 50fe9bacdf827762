#include "tests/support/prometheus_text.h"

#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"

namespace kvbench::testing {

double SumOfSamples(const std::string& text, const std::string& name) {
  double sum = 0;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    if (line.empty() || line[0] == '#') continue;
    if (line.substr(0, line.find_first_of("{ ")) != name) continue;
    double value = 0;
    if (absl::SimpleAtod(line.substr(line.rfind(' ') + 1), &value)) sum += value;
  }
  return sum;
}

}  // namespace kvbench::testing
