#pragma once

// Pure parsers of AMD's GPU tools' JSON into GpuReadings.
//
// The formats are from AMD's documentation and public examples of amd-smi (ROCm 6.x-7.x) and
// rocm-smi (ROCm 5.x-6.x); they are UNVERIFIED on AMD hardware here, so the parsers are lenient:
// unknown keys are ignored, a missing or "N/A" value leaves that field nullopt and adds a note to
// GpuReading::errors, and only unusable documents are errors.

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "agent/telemetry/gpu_reading.h"

namespace kvbench::telemetry {

// The commands whose output these parse: "amd-smi metric --power --usage --mem-usage --json"
// (only the three metric groups used: the full `amd-smi metric` also reads ECC, PCIe, clocks...)
// and "rocm-smi --showpower --showuse --showmeminfo vram --json".
std::vector<std::string> AmdSmiMetricCommand();
std::vector<std::string> RocmSmiCommand();

// `amd-smi metric --json`: a list of per-GPU objects (ROCm 6.0-6.3), or {"gpu_data": [...]}
// (ROCm 6.4+). Per GPU: "gpu" (the index), power.socket_power (else current_socket_power or
// average_socket_power), usage.gfx_activity, mem_usage.used_vram / total_vram. A value is a
// number, a numeric string, or {"value": ..., "unit": ...}: power in W (or mW, uW), memory in
// MB (AMD's MB are MiB; B, KB, GB also accepted), activity in %. Text before the first '[' or
// '{' (warnings) is skipped. INVALID_ARGUMENT when the text is not JSON of that shape.
absl::StatusOr<std::vector<GpuReading>> ParseAmdSmiMetricJson(absl::string_view text);

// `rocm-smi --showpower --showuse --showmeminfo vram --json`: {"card0": {...}, "card1": {...}}
// with string values under "Average Graphics Package Power (W)" (MI300: "Current Socket Graphics
// Package Power (W)"), "GPU use (%)", "VRAM Total Memory (B)", "VRAM Total Used Memory (B)", and
// the name under "Card Series" when --showproductname was given. Keys other than "cardN" (such
// as "system") are skipped; readings are sorted by N. INVALID_ARGUMENT when the text is not JSON
// of that shape.
absl::StatusOr<std::vector<GpuReading>> ParseRocmSmiJson(absl::string_view text);

}  // namespace kvbench::telemetry
