#include "agent/runner/replay_command.h"

#include <iostream>
#include <memory>

#include "absl/strings/str_cat.h"
#include "agent/datasets/dataset_loader.h"
#include "agent/datasets/user_selection.h"
#include "agent/results/counted_prompts.h"
#include "agent/results/runner_lag.h"
#include "agent/results/scenario_metrics.h"
#include "agent/results/session_plan_json.h"
#include "agent/results/summary_json.h"
#include "agent/runner/base_url.h"
#include "agent/runner/gpt_oss_agentic.h"
#include "agent/runner/ready_gate.h"
#include "agent/runner/record_writer.h"
#include "agent/runner/replay.h"
#include "common/files/atomic_file.h"
#include "common/http/beast_http_client.h"
#include "common/log/logging.h"
#include "common/status/status_macros.h"

namespace kvbench::runner {
namespace {

absl::Status Validate(const RunnerOptions& options) {
  if (options.base_url.empty()) return absl::InvalidArgumentError("--base-url is required");
  if (options.model.empty()) return absl::InvalidArgumentError("--model is required");
  if (options.dataset.empty()) return absl::InvalidArgumentError("--dataset is required");
  if (options.dataset_path.empty()) {
    return absl::InvalidArgumentError("--dataset-path is required");
  }
  if (options.concurrency < 1) return absl::InvalidArgumentError("--num-users must be >= 1");
  if (options.num_rounds < 1) return absl::InvalidArgumentError("--num-rounds must be >= 1");
  if (options.sessions < 0) return absl::InvalidArgumentError("--sessions must be >= 0");
  if (options.warmup < 0 || options.isl < 0 || options.osl < 0) {
    return absl::InvalidArgumentError("--warmup, --isl and --osl must be >= 0");
  }
  if (options.request_timeout <= absl::ZeroDuration()) {
    return absl::InvalidArgumentError("--request-timeout must be > 0");
  }
  if (options.io_threads < 1) return absl::InvalidArgumentError("--io-threads must be >= 1");
  if (options.agentic_max_attempts < 1) {
    return absl::InvalidArgumentError("--agentic-max-attempts must be >= 1");
  }
  return CheckAskModeSupported(options.model, options.tokenizer, options.ask_mode,
                               options.server_auto_tool_choice);
}

// The options as the replay uses them: validated, --base-url reduced to the server root.
absl::StatusOr<RunnerOptions> EffectiveOptions(const RunnerOptions& options) {
  KV_RETURN_IF_ERROR(Validate(options));
  RunnerOptions effective = options;
  KV_ASSIGN_OR_RETURN(effective.base_url, ServerRootFromBaseUrl(options.base_url));
  return effective;
}

absl::StatusOr<std::unique_ptr<AsyncHttpClient>> MakeClient(const RunnerOptions& options) {
  BeastHttpClient::Options client_options;
  client_options.io_threads = options.io_threads;
  KV_ASSIGN_OR_RETURN(auto client, BeastHttpClient::Create(client_options));
  return std::unique_ptr<AsyncHttpClient>(std::move(client));
}

// Whole or not at all (the agent builds the result from these files): `what` names the flag.
absl::Status WriteWhole(const std::string& path, absl::string_view content,
                        absl::string_view what) {
  absl::Status written = WriteFileAtomically(path, content);
  if (written.ok()) return written;
  return absl::Status(written.code(), absl::StrCat("cannot write ", what, ": ", written.message()));
}

absl::Status WriteSummary(const std::string& path, const nlohmann::json& summary) {
  return WriteWhole(path, absl::StrCat(summary.dump(2), "\n"), "--summary");
}

absl::Status WritePrompts(const std::string& path,
                          const std::vector<agent::results::CountedPrompt>& prompts) {
  std::string lines;
  for (const agent::results::CountedPrompt& prompt : prompts) {
    absl::StrAppend(&lines, agent::results::ToPromptLine(prompt), "\n");
  }
  return WriteWhole(path, lines, "--prompts");
}

// Just before the clock: the counted prompts to --prompts, then the --ready-file handshake.
BeforeClockHook BeforeClock(const RunnerOptions& options, StopSource* go, StopSource* stop) {
  return [&options, go,
          stop](const std::vector<agent::results::CountedPrompt>& prompts) -> absl::Status {
    if (!options.prompts_path.empty() && !prompts.empty()) {
      KV_RETURN_IF_ERROR(WritePrompts(options.prompts_path, prompts));
    }
    if (!options.ready_file.empty()) {
      KV_LOG(INFO) << "ready: waiting for SIGUSR1 (" << options.ready_file << ")";
      KV_RETURN_IF_ERROR(AwaitGo(options.ready_file, go, stop));
    }
    return absl::OkStatus();
  };
}

}  // namespace

absl::Status RunReplayCommand(const RunnerOptions& flags, StopSource* stop, StopSource* go) {
  if (!flags.ready_file.empty() && go == nullptr) {
    return absl::InvalidArgumentError("--ready-file needs the go signal installed");
  }
  KV_ASSIGN_OR_RETURN(const RunnerOptions options, EffectiveOptions(flags));
  KV_ASSIGN_OR_RETURN(datasets::Dataset dataset,
                      datasets::LoadDataset(options.dataset, options.dataset_path));
  KV_ASSIGN_OR_RETURN(
      std::vector<datasets::VirtualUser> users,
      datasets::ChunkIntoUsers(dataset, options.num_rounds, options.min_chunk_rounds));
  if (users.empty()) {
    return absl::FailedPreconditionError(absl::StrCat("dataset ", options.dataset_path,
                                                      " gives 0 virtual users for --num-rounds ",
                                                      options.num_rounds));
  }
  agent::results::SessionPlan plan;
  plan.dataset_ceiling = static_cast<int>(users.size());
  plan.requested = options.requested_sessions();

  std::unique_ptr<RecordWriter> writer;
  if (!options.output_path.empty()) {
    KV_ASSIGN_OR_RETURN(writer, RecordWriter::Create(options.output_path));
  }
  KV_ASSIGN_OR_RETURN(std::unique_ptr<AsyncHttpClient> client, MakeClient(options));
  std::unique_ptr<sim::SimClock> sim_clock;
  if (!options.sim_clock.empty()) {
    KV_ASSIGN_OR_RETURN(sim_clock, sim::SimClock::Open(options.sim_clock));
  }
  Replay replay(client.get(), options, writer.get(), stop, sim_clock.get());
  KV_RETURN_IF_ERROR(replay.Warmup());
  // With ISL, the users are chosen among those every prompt of which fits (choosing among
  // all of them would truncate some, and no ISL-limited comparison could then be valid); what
  // `kvctl plan` prints as WILL_RUN is then what runs.
  std::vector<datasets::VirtualUser> candidates = users;
  std::string within;
  if (options.isl > 0) {
    KV_ASSIGN_OR_RETURN(std::vector<bool> fits, replay.FitUnderIsl(users));
    candidates.clear();
    for (size_t i = 0; i < users.size(); ++i) {
      if (fits[i]) candidates.push_back(users[i]);
    }
    plan.dataset_ceiling_under_isl = static_cast<int>(candidates.size());
    within = absl::StrCat(" (of the dataset's ", users.size(),
                          ", those with every prompt within isl ", options.isl, ")");
  }
  datasets::UserSelection selection =
      datasets::SelectUsers(candidates, plan.requested, options.seed);
  plan.selection = selection.description + within;
  KV_LOG(INFO) << "replay start base_url=" << options.base_url << " model=" << options.model
               << " concurrency=" << options.concurrency << " num_rounds=" << options.num_rounds
               << " sessions_requested=" << plan.requested
               << " dataset_ceiling=" << plan.dataset_ceiling << " selection=\"" << plan.selection
               << "\" warmup=" << options.warmup << " isl=" << options.isl << " osl=" << options.osl
               << " io_threads=" << options.io_threads;

  KV_ASSIGN_OR_RETURN(ReplayResult result, replay.Run(selection.users, options.count_prompts,
                                                      BeforeClock(options, go, stop)));
  client->Shutdown();

  plan.planned_users = result.planned_users;
  v1::SessionCounts counts = agent::results::ComputeSessionCounts(result.records, plan);
  v1::LatencyMetrics latency = agent::results::ComputeLatencyMetrics(result.records);
  if (result.reuse && result.reuse->same_user_pct) {
    latency.set_reuse_same_user_pct(*result.reuse->same_user_pct);
    latency.set_reuse_any_user_pct(*result.reuse->any_user_pct);
  }
  nlohmann::json summary = agent::results::SummaryJson(latency, counts);
  agent::results::AddSessionPlan(plan, &summary);
  agent::results::AddRunnerLag(agent::results::ComputeRunnerLag(result.records), &summary);
  // Aligns the records' *_s times with other processes' steady_clock stamps (runner roofline).
  summary["clock_origin_s"] = result.clock_origin_s;
  // Messages the shared simulated clock wrote off (SimClock::stalls): each made the run no
  // longer deterministic.
  if (sim_clock != nullptr) summary["sim_clock_stalls"] = sim_clock->stalls();
  if (!options.summary_path.empty()) {
    KV_RETURN_IF_ERROR(WriteSummary(options.summary_path, summary));
  }
  if (writer != nullptr) KV_RETURN_IF_ERROR(writer->Close());
  KV_LOG(INFO) << "replay end requests=" << result.records.size()
               << " sessions_complete=" << counts.complete()
               << " sessions_incomplete=" << counts.incomplete()
               << " sessions_not_started=" << counts.not_started()
               << " sessions_truncated_by_isl=" << counts.truncated_by_isl()
               << " sessions_error=" << counts.error() << " stopped=" << result.stopped;
  if (result.stopped) return absl::CancelledError("replay stopped by signal; output written");
  return absl::OkStatus();
}

}  // namespace kvbench::runner
