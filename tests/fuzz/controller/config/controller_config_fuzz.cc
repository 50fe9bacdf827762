// Fuzz target for the controller's config reader (LoadControllerConfig, the entry point
// kv-controller uses, over a file): any bytes in, no crash. Invariants: a config it accepts still
// validates once its defaults are filled in, and the config printed as JSON (what an operator would
// save back) loads to the same config.

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "absl/strings/string_view.h"
#include "common/json/proto_json.h"
#include "common/log/logging.h"
#include "controller/config/controller_config_validator.h"
#include "google/protobuf/util/message_differencer.h"
#include "tests/fuzz/fuzz_temp_dir.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // Warnings about bad input are the expected outcome, millions of times over.
  static const bool quiet = (kvbench::SetMinLogLevel(kvbench::LogLevel::kFatal), true);
  (void)quiet;
  const kvbench::fuzz::FuzzTempDir& dir = kvbench::fuzz::FuzzTempDir::Get();
  const std::string path =
      dir.Write("controller.json", absl::string_view(reinterpret_cast<const char*>(data), size));
  absl::StatusOr<kvbench::v1::ControllerConfig> config =
      kvbench::controller::LoadControllerConfig(path);
  if (!config.ok()) return 0;
  const kvbench::FieldErrors errors = kvbench::controller::ValidateControllerConfig(*config);
  if (!errors.empty()) {
    std::fprintf(stderr, "controller_config_fuzz: defaults made a valid config invalid: %s\n",
                 errors.ToStatus("defaults").ToString().c_str());
    std::abort();
  }
  const std::string printed = kvbench::ProtoToJson(*config);
  absl::StatusOr<kvbench::v1::ControllerConfig> again =
      kvbench::controller::LoadControllerConfig(dir.Write("printed.json", printed));
  if (!again.ok() || !google::protobuf::util::MessageDifferencer::Equals(*config, *again)) {
    std::fprintf(stderr, "controller_config_fuzz: a printed config does not load back: %s\n%s\n",
                 printed.c_str(), again.status().ToString().c_str());
    std::abort();
  }
  return 0;
}
