#include "agent/scenario/sampler_options.h"

#include <utility>

namespace kvbench::agent {

sampler::Sampler::Options SamplerOptionsForJob(const v1::JobSpec& job, std::string samples_path) {
  const double scale = job.engine() == v1::SIM && job.engine_overrides().has_sim_time_scale()
                           ? job.engine_overrides().sim_time_scale()
                           : 1.0;
  sampler::Sampler::Options options;
  if (job.sampling().has_period_s()) options.period_s = job.sampling().period_s();
  if (job.sampling().has_rate_window_s()) options.rate_window_s = job.sampling().rate_window_s();
  options.period_s *= scale;
  options.rate_window_s *= scale;
  options.samples_path = std::move(samples_path);
  return options;
}

}  // namespace kvbench::agent
