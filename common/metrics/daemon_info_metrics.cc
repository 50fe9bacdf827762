#include "common/metrics/daemon_info_metrics.h"

#include <prometheus/gauge.h>

#include "common/version/version.h"

namespace kvbench {

void RegisterDaemonInfoMetrics(prometheus::Registry* registry, const std::string& component,
                               absl::Time start_time) {
  prometheus::BuildGauge()
      .Name("kvbench_build_info")
      .Help("Version of the running kvbench binary (value is always 1)")
      .Register(*registry)
      .Add({{"component", component}, {"version", kVersion}, {"revision", kGitRevision}})
      .Set(1);
  prometheus::BuildGauge()
      .Name("kvbench_process_start_time_seconds")
      .Help("Start time of the process, unix seconds")
      .Register(*registry)
      .Add({{"component", component}})
      .Set(absl::ToDoubleSeconds(start_time - absl::UnixEpoch()));
}

}  // namespace kvbench
