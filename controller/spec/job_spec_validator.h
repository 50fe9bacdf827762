#pragma once

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "common/json/proto_json.h"
#include "kvbench/v1/job.pb.h"

namespace kvbench::spec {

// Limits a valid spec stays within; each error message quotes the one it broke.
inline constexpr int kMaxNameLength = 128;
inline constexpr int kMaxModelLength = 256;
inline constexpr int kMaxReplicas = 64;
inline constexpr int kMaxTensorParallelSize = 64;
inline constexpr int kMaxNumRounds = 10000;
inline constexpr int kMaxConcurrency = 100000;
inline constexpr int kMaxSessions = 1000000;
// Repeats of a cell: 20 give a run-to-run spread to a few percent; more belong in separate jobs.
inline constexpr int kMaxRepeats = 20;
inline constexpr int kMaxIsl = 10000000;
inline constexpr int kMaxOsl = 1000000;
inline constexpr double kMaxCpuPoolGb = 16384;
inline constexpr double kMaxNvmePoolGb = 1048576;
// The sampler scrapes every replica each period: 0.1 s is as fine as a scrape is meaningful
// (1e-9 would spin an agent core).
inline constexpr double kMinSamplingPeriodSeconds = 0.1;
inline constexpr double kMaxSamplingPeriodSeconds = 3600;
inline constexpr double kMaxRateWindowSeconds = 86400;
inline constexpr int kMaxPriority = 1000;
inline constexpr int kMaxLabelKeyLength = 63;
inline constexpr int kMaxLabelValueLength = 256;
// FAN_OUT_EACH: how long an agent that is down or busy is waited for (placement.agent_wait_s).
inline constexpr double kDefaultAgentWaitSeconds = 3600;
inline constexpr double kMaxAgentWaitSeconds = 7 * 24 * 3600;
inline constexpr double kMaxSimTimeScale = 1000;
inline constexpr double kMaxProgressTimeoutSeconds = 86400;
inline constexpr double kMaxDurationSeconds = 7 * 86400;  // a week

// Checks every field of `spec` (defaults not yet applied) and returns every problem, each naming
// the field and the allowed range; empty when the spec is valid. Pure.
FieldErrors ValidateJobSpec(const v1::JobSpec& spec);

// OK when `model` is a model id ("meta-llama/Llama-3.1-8B-Instruct": one or two parts of
// letters, digits, '.', '_', '-', '+', each starting with a letter, digit or '_') or an absolute
// path of such parts, with no "." or ".." part (a local checkpoint, which the agent accepts only
// under its model_roots). INVALID_ARGUMENT otherwise: the model reaches the engine's argv as a
// positional value, so "--help" or "--trust-remote-code" would ride in as flags.
absl::Status CheckModelName(const std::string& model);

// The dataset codes kvbench knows, in the order help texts list them.
const std::vector<std::string>& KnownDatasetCodes();
// True for datasets read by the generic loader (every code but "sammshen"), which has a minimum
// chunk length of kMinChunkRounds.
bool UsesGenericLoader(const std::string& dataset_code);

}  // namespace kvbench::spec
