#include "controller/spec/job_spec_defaults.h"

#include <algorithm>

namespace kvbench::spec {

double DefaultProgressTimeoutSeconds(const v1::JobSpec& spec) {
  double timeout = kDefaultProgressTimeoutSeconds;
  if (spec.engine() == v1::SIM && spec.engine_overrides().has_sim_time_scale()) {
    timeout *= spec.engine_overrides().sim_time_scale();
  }
  return std::max(timeout, kMinDefaultProgressTimeoutSeconds);
}

void ApplyJobSpecDefaults(v1::JobSpec* spec) {
  if (!spec->has_replicas()) spec->set_replicas(kDefaultReplicas);
  if (!spec->has_tensor_parallel_size()) spec->set_tensor_parallel_size(kDefaultTensorParallelSize);
  if (!spec->has_cpu_pool_gb()) spec->set_cpu_pool_gb(kDefaultCpuPoolGb);
  if (!spec->has_nvme_pool_gb()) spec->set_nvme_pool_gb(kDefaultNvmePoolGb);
  if (!spec->has_seed()) spec->set_seed(kDefaultSeed);
  if (!spec->has_repeats()) spec->set_repeats(kDefaultRepeats);
  if (!spec->has_progress_timeout_s()) {
    spec->set_progress_timeout_s(DefaultProgressTimeoutSeconds(*spec));
  }
  if (!spec->has_max_duration_s()) spec->set_max_duration_s(kDefaultMaxDurationSeconds);
  if (spec->offload_routing() == v1::OFFLOAD_ROUTING_UNSPECIFIED) {
    spec->set_offload_routing(kDefaultOffloadRouting);
  }
  v1::SamplingSpec* sampling = spec->mutable_sampling();
  if (!sampling->has_period_s()) sampling->set_period_s(kDefaultSamplingPeriodSeconds);
  if (!sampling->has_rate_window_s()) {
    sampling->set_rate_window_s(
        std::max(kDefaultRateWindowSeconds, kDefaultRateWindowPeriods * sampling->period_s()));
  }
}

}  // namespace kvbench::spec
