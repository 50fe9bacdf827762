#include "controller/spec/job_spec_defaults.h"

namespace kvbench::spec {

void ApplyJobSpecDefaults(v1::JobSpec* spec) {
  if (!spec->has_replicas()) spec->set_replicas(kDefaultReplicas);
  if (!spec->has_tensor_parallel_size()) spec->set_tensor_parallel_size(kDefaultTensorParallelSize);
  if (!spec->has_cpu_pool_gb()) spec->set_cpu_pool_gb(kDefaultCpuPoolGb);
  if (!spec->has_nvme_pool_gb()) spec->set_nvme_pool_gb(kDefaultNvmePoolGb);
  if (!spec->has_seed()) spec->set_seed(kDefaultSeed);
  if (spec->offload_routing() == v1::OFFLOAD_ROUTING_UNSPECIFIED) {
    spec->set_offload_routing(kDefaultOffloadRouting);
  }
  v1::SamplingSpec* sampling = spec->mutable_sampling();
  if (!sampling->has_period_s()) sampling->set_period_s(kDefaultSamplingPeriodSeconds);
  if (!sampling->has_rate_window_s()) sampling->set_rate_window_s(kDefaultRateWindowSeconds);
}

}  // namespace kvbench::spec
