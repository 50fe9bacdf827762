#include "agent/runner/runner_argv.h"

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "agent/runner/runner_options.h"

namespace kvbench::runner {

bool IsGptOssModel(const std::string& model) {
  return absl::StrContains(absl::AsciiStrToLower(model), "gpt-oss");
}

std::vector<std::string> RunnerArgv(const v1::JobSpec& spec, const v1::Scenario& scenario,
                                    const RunnerPaths& paths) {
  int sessions = scenario.sessions() > 0 ? scenario.sessions() : scenario.concurrency();
  std::vector<std::string> argv = {
      paths.runner_binary,
      "--base-url", paths.base_url,
      "--model", spec.model(),
      "--num-users", std::to_string(scenario.concurrency()),
      "--num-rounds", std::to_string(spec.num_rounds()),
      "--dataset", spec.dataset().code(),
      "--dataset-path", paths.dataset_path,
      "--agentic-traces",
      "--min-chunk-rounds", std::to_string(kDefaultMinChunkRounds),
      "--warmup", std::to_string(kDefaultWarmupRequests),
      "--request-timeout", std::to_string(kDefaultRequestTimeoutSeconds),
      "--tokenizer", spec.model(),
      "--isl", std::to_string(spec.isl()),
      "--osl", std::to_string(spec.osl()),
      "--sessions", std::to_string(sessions)};
  if (spec.has_seed()) {
    argv.insert(argv.end(), {"--seed", std::to_string(spec.seed())});
  }
  argv.insert(argv.end(), {"--output", paths.output_path, "--summary", paths.summary_path});
  if (!paths.prompts_path.empty()) argv.insert(argv.end(), {"--prompts", paths.prompts_path});
  if (!paths.ready_file.empty()) argv.insert(argv.end(), {"--ready-file", paths.ready_file});
  if (!paths.sim_clock.empty()) argv.insert(argv.end(), {"--sim-clock", paths.sim_clock});
  if (IsGptOssModel(spec.model())) {
    argv.insert(argv.end(), {"--enable-agentic-tools", "--ask-mode", "--sanitize-harmony-tokens",
                             "--agentic-max-attempts",
                             std::to_string(kDefaultAgenticMaxAttempts)});
  }
  return argv;
}

}  // namespace kvbench::runner
