#pragma once

// How validity reasons and notes write numbers and tiers (one style in every message).

#include <cstdint>
#include <string>

#include "kvbench/v1/job.pb.h"

namespace kvbench::results {

// 1234567 -> "1,234,567".
std::string WithCommas(int64_t value);

// GPU -> "GPU"; an unnamed value -> "tier 7".
std::string TierName(v1::Tier tier);

// 0.4567 -> "45.7%" (one decimal).
std::string Percent(double fraction);

}  // namespace kvbench::results
