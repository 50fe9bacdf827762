#include "tests/component/agent/sim/lmcache/metrics_text.h"

#include <cstdlib>
#include <sstream>

namespace kvbench::sim::lmcache::testing {

std::optional<double> Series(const std::string& text, const std::string& series) {
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.size() > series.size() && line.compare(0, series.size(), series) == 0 &&
        line[series.size()] == ' ') {
      return std::strtod(line.c_str() + series.size() + 1, nullptr);
    }
  }
  return std::nullopt;
}

double ValueOr0(const std::string& text, const std::string& series) {
  return Series(text, series).value_or(0.0);
}

bool HasFamily(const std::string& text, const std::string& name) {
  return text.find("# TYPE " + name + " ") != std::string::npos;
}

}  // namespace kvbench::sim::lmcache::testing
