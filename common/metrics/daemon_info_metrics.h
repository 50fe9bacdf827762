#pragma once

#include <string>

#include <prometheus/registry.h>

#include "absl/time/time.h"

namespace kvbench {

// Registers what every kvbench daemon exposes about itself:
//   kvbench_build_info{component,version,revision} 1
//   kvbench_process_start_time_seconds{component}   (unix seconds)
void RegisterDaemonInfoMetrics(prometheus::Registry* registry, const std::string& component,
                               absl::Time start_time);

}  // namespace kvbench
