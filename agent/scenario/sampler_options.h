#pragma once

// How often a scenario's sampler scrapes, and over what window it takes rates.

#include <string>

#include "agent/sampler/sampler.h"
#include "kvbench/v1/job.pb.h"

namespace kvbench::agent {

// DESIGN.md's 15 s period and 300 s window unless the job's sampling says otherwise. A simulated
// engine runs sim_time_scale real seconds per simulated one, and both are simulated seconds, so
// they shrink with it (else a 0.01-scaled run would sample once per 25 simulated minutes).
// Scrapes are appended to `samples_path`.
sampler::Sampler::Options SamplerOptionsForJob(const v1::JobSpec& job, std::string samples_path);

}  // namespace kvbench::agent
