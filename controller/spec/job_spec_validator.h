#pragma once

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
inline constexpr int kMaxIsl = 10000000;
inline constexpr int kMaxOsl = 1000000;
inline constexpr double kMaxCpuPoolGb = 16384;
inline constexpr double kMaxNvmePoolGb = 1048576;
inline constexpr double kMaxSamplingPeriodSeconds = 3600;
inline constexpr double kMaxRateWindowSeconds = 86400;
inline constexpr int kMaxPriority = 1000;
inline constexpr int kMaxLabelKeyLength = 63;
inline constexpr int kMaxLabelValueLength = 256;
inline constexpr double kMaxSimTimeScale = 1000;
inline constexpr double kMaxProgressTimeoutSeconds = 86400;
inline constexpr double kMaxDurationSeconds = 7 * 86400;  // a week

// Checks every field of `spec` (defaults not yet applied) and returns every problem, each naming
// the field and the allowed range; empty when the spec is valid. Pure.
FieldErrors ValidateJobSpec(const v1::JobSpec& spec);

// The dataset codes kvbench knows, in the order help texts list them.
const std::vector<std::string>& KnownDatasetCodes();
// True for datasets read by the generic loader (every code but "sammshen"), which has a minimum
// chunk length of kMinChunkRounds.
bool UsesGenericLoader(const std::string& dataset_code);

}  // namespace kvbench::spec
