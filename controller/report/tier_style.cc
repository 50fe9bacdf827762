#include "controller/report/tier_style.h"

namespace kvbench::report {

TierStyle StyleOfTier(v1::Tier tier) {
  switch (tier) {
    case v1::GPU:
      return {"GPU", "#0072B2"};
    case v1::CPU_RAM:
      return {"CPU_RAM", "#E69F00"};
    case v1::NVME:
      return {"NVME", "#009E73"};
    default:
      return {v1::Tier_Name(tier), "#666666"};
  }
}

}  // namespace kvbench::report
