#pragma once

// Helpers of the rate-math tests (rate_math_test.cc, hit_rate_test.cc): hand-built series.

#include <catch2/catch.hpp>
#include <cstddef>
#include <optional>
#include <vector>

#include "agent/sampler/rate_math.h"

namespace kvbench::sampler::testing {

// Points at t0, t0 + step, ... with the given values.
inline std::vector<Point> Series(double t0, double step, const std::vector<double>& values) {
  std::vector<Point> points;
  for (std::size_t i = 0; i < values.size(); ++i) {
    points.push_back({t0 + static_cast<double>(i) * step, values[i]});
  }
  return points;
}

// value(t) = f(t) sampled every `step` seconds over [0, end].
template <typename F>
std::vector<Point> Sampled(double step, double end, F f) {
  std::vector<Point> points;
  for (double t = 0; t <= end; t += step) points.push_back({t, f(t)});
  return points;
}

inline void CheckOptional(const std::optional<double>& got, const std::optional<double>& expected) {
  REQUIRE(got.has_value() == expected.has_value());
  if (expected) CHECK(*got == Approx(*expected).margin(1e-12));
}

}  // namespace kvbench::sampler::testing
