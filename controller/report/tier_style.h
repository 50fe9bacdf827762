#pragma once

// One colour per tier, the same in every chart and table of the report: Okabe-Ito colours,
// distinguishable with the common colour-vision deficiencies.

#include <string>

#include "kvbench/v1/job.pb.h"

namespace kvbench::report {

struct TierStyle {
  std::string name;   // "GPU", "CPU_RAM", "NVME"
  std::string color;  // "#0072B2"
};

// GPU blue #0072B2, CPU_RAM orange #E69F00, NVME bluish green #009E73; grey for anything else.
TierStyle StyleOfTier(v1::Tier tier);

}  // namespace kvbench::report
