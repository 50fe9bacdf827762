// Fuzz target for the agent's config reader (LoadAgentConfig, the entry point kv-agent uses, over
// a file): any bytes in, no crash. Invariants: a config it accepts still validates once its
// defaults are filled in, and the config printed as JSON (what an operator would save back) loads
// to the same config.

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "absl/strings/string_view.h"
#include "agent/config/agent_config_validator.h"
#include "common/json/proto_json.h"
#include "common/log/logging.h"
#include "google/protobuf/util/message_differencer.h"
#include "tests/fuzz/fuzz_temp_dir.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // Warnings about bad input are the expected outcome, millions of times over.
  static const bool quiet = (kvbench::SetMinLogLevel(kvbench::LogLevel::kFatal), true);
  (void)quiet;
  const kvbench::fuzz::FuzzTempDir& dir = kvbench::fuzz::FuzzTempDir::Get();
  const std::string path =
      dir.Write("agent.json", absl::string_view(reinterpret_cast<const char*>(data), size));
  absl::StatusOr<kvbench::v1::AgentConfig> config =
      kvbench::agent::LoadAgentConfig(path, "fuzz-host");
  if (!config.ok()) return 0;
  const kvbench::FieldErrors errors = kvbench::agent::ValidateAgentConfig(*config);
  if (!errors.empty()) {
    std::fprintf(stderr, "agent_config_fuzz: defaults made a valid config invalid: %s\n",
                 errors.ToStatus("defaults").ToString().c_str());
    std::abort();
  }
  const std::string printed = kvbench::ProtoToJson(*config);
  absl::StatusOr<kvbench::v1::AgentConfig> again =
      kvbench::agent::LoadAgentConfig(dir.Write("printed.json", printed), "fuzz-host");
  if (!again.ok() || !google::protobuf::util::MessageDifferencer::Equals(*config, *again)) {
    std::fprintf(stderr, "agent_config_fuzz: a printed config does not load back: %s\n%s\n",
                 printed.c_str(), again.status().ToString().c_str());
    std::abort();
  }
  return 0;
}
