#include "tests/support/prometheus_text.h"

#include "common/prometheus/exposition.h"

namespace kvbench::testing {

double SumOfSamples(const std::string& text, const std::string& name) {
  namespace prom = ::kvbench::prometheus_text;
  return prom::Sum(prom::Parse(text), prom::Selector{{name}, {}}).value_or(0);
}

}  // namespace kvbench::testing
