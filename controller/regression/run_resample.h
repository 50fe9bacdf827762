#pragma once

// One bootstrap resample of a side's runs, shared by the diff of two sides
// (bootstrap_diff.h) and the interval of one side's own values (bootstrap_value.h). Pure given
// the generator.

#include <cstddef>
#include <random>
#include <vector>

#include "controller/regression/regression_metric.h"
#include "controller/regression/run_sample.h"

namespace kvbench::regression {

// The share of resamples that must give a value for an interval to be drawn from them (a metric
// may vanish from a resample that drew only users without samples).
inline constexpr double kMinDefinedShare = 0.9;

// The users of every run together.
int UserCount(const std::vector<RunSample>& runs);

// A uniform index below n from 53 random bits: the same sequence on every platform, unlike
// std::uniform_int_distribution, whose algorithm the standard leaves open.
size_t DrawIndex(std::mt19937_64& random, size_t n);

// The metrics of one resample of `runs`. Two stages when they are several runs (a baseline
// segment, a tier's repeats): the runs are drawn with replacement first, then each drawn run's
// users, so what moves a whole run (a noisy neighbour, a warmer page cache) widens the interval
// too; one run: its users only. A resample's window is each drawn run's window scaled by its drawn
// users' time over all its users' (a ratio estimator: throughput = tokens / user time x user time
// / window), so resampling reflects how fast users were served, not only how many tokens they
// asked for; a run's own users give its window back exactly.
MetricValues Resample(const std::vector<RunSample>& runs, std::mt19937_64& random);

}  // namespace kvbench::regression
