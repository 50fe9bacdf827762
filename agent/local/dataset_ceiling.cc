#include "agent/local/dataset_ceiling.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <vector>

#include "absl/strings/str_cat.h"
#include "agent/datasets/dataset_loader.h"
#include "agent/datasets/dataset_resolver.h"
#include "agent/local/local_run_config.h"
#include "agent/runner/gpt_oss_agentic.h"
#include "agent/runner/request_body.h"
#include "agent/runner/runner_argv.h"
#include "agent/sim/engine/chat_template.h"
#include "agent/sim/engine/engine_config.h"
#include "agent/sim/engine/tokenizer.h"
#include "common/status/status_macros.h"

namespace kvbench::agent {
namespace {

// How kvsim-vllm's POST /tokenize counts `body` (agent/sim/vllm/vllm_api_server.cc,
// HandleTokenize: the chat template with add_generation_prompt, default true, then the
// tokenizer).
absl::StatusOr<size_t> SimTokenizeCount(const std::string& body) {
  const nlohmann::json json = nlohmann::json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (!json.is_object() || !json.contains("messages")) {
    return absl::InternalError("the /tokenize body has no messages");
  }
  KV_ASSIGN_OR_RETURN(std::string text,
                      sim::RenderChat(json["messages"], json.value("add_generation_prompt", true)));
  return sim::SimTokenizer::CountTokens(text);
}

// Each round's prompt of `user` in tokens, with the body kv-runner sends to /tokenize for it
// (agent/runner/replay.cc, Replay::Prepare; the gpt-oss flags as RunnerArgv sets them).
absl::StatusOr<std::vector<size_t>> PromptTokens(const v1::JobSpec& spec,
                                                 const datasets::VirtualUser& user) {
  const bool gpt_oss = runner::IsGptOssModel(spec.model());
  runner::BodyOptions options;
  options.model = spec.model();
  options.sanitize_harmony_tokens = gpt_oss;
  const nlohmann::json tools =
      gpt_oss ? runner::DeclareRecordedTools(user.rounds) : nlohmann::json::array();
  std::vector<size_t> tokens;
  for (const datasets::Round* round : user.rounds) {
    KV_ASSIGN_OR_RETURN(
        size_t count, SimTokenizeCount(runner::BuildTokenizeBody(options, round->messages, tools)));
    tokens.push_back(count);
  }
  return tokens;
}

std::string DatasetName(const v1::JobSpec& spec, const std::string& path) {
  return absl::StrCat(spec.dataset().code(), " (", path, ")");
}

}  // namespace

absl::StatusOr<DatasetCeiling> DatasetCeiling::Compute(const v1::JobSpec& spec,
                                                       const std::string& dataset_mirror) {
  DatasetCeiling ceiling;
  datasets::DatasetResolver resolver(LocalRunConfig::DatasetRoots(dataset_mirror),
                                     /*allow_user_paths=*/true);
  absl::StatusOr<std::string> path = resolver.Resolve(spec.dataset());
  if (!path.ok()) {
    ceiling.unreadable_reason_ = std::string(path.status().message());
    return ceiling;
  }
  ceiling.readable_ = true;
  ceiling.path_ = *path;
  KV_ASSIGN_OR_RETURN(datasets::Dataset dataset,
                      datasets::LoadDataset(spec.dataset().code(), *path));
  KV_ASSIGN_OR_RETURN(
      std::vector<datasets::VirtualUser> users,
      datasets::ChunkIntoUsers(dataset, spec.num_rounds(), datasets::kDefaultMinChunkRounds));
  ceiling.virtual_users_ = static_cast<int>(users.size());
  // Prompts are counted on the sim engine only (a real engine's tokenizer is not here), and only
  // when something needs them: the ceiling under ISL, or a forced KV capacity to check.
  const bool count =
      spec.engine() == v1::SIM && (spec.isl() > 0 || spec.engine_overrides().has_num_gpu_blocks());
  if (!count) return ceiling;
  int fitting = 0;
  for (const datasets::VirtualUser& user : users) {
    absl::StatusOr<std::vector<size_t>> tokens = PromptTokens(spec, user);
    if (!tokens.ok()) {
      return absl::InvalidArgumentError(absl::StrCat("dataset ", DatasetName(spec, *path),
                                                     ", user ", user.user_id, ": ",
                                                     tokens.status().message()));
    }
    bool fits = true;
    for (size_t round = 0; round < tokens->size(); ++round) {
      const int64_t count_here = static_cast<int64_t>((*tokens)[round]);
      fits = fits && (spec.isl() <= 0 || count_here <= spec.isl());
      if (!ceiling.largest_prompt_ || count_here > ceiling.largest_prompt_->tokens) {
        ceiling.largest_prompt_ =
            LargestPrompt{count_here, user.user_id, static_cast<int>(round) + 1};
      }
    }
    fitting += fits ? 1 : 0;
  }
  if (spec.isl() > 0) ceiling.under_isl_ = fitting;
  return ceiling;
}

int DatasetCeiling::SessionsToRun(int requested) const {
  return std::min(requested, under_isl_.value_or(virtual_users_));
}

std::optional<std::string> DatasetCeiling::KvCapacityWarning(const v1::JobSpec& spec) const {
  if (!largest_prompt_ || !spec.engine_overrides().has_num_gpu_blocks()) return std::nullopt;
  const int64_t blocks = spec.engine_overrides().num_gpu_blocks();
  // As the simulated engine admits a request (agent/sim/engine/engine_core.cc): the KV holds
  // prompt + output - 1 tokens, in blocks of its block size (the agent leaves vLLM's default);
  // the output at most osl.
  const int64_t block_size = sim::EngineConfig().block_size;
  const int64_t output = std::max(spec.osl(), 1);
  const int64_t needed = (largest_prompt_->tokens + output - 1 + block_size - 1) / block_size;
  if (needed <= blocks) return std::nullopt;
  return absl::StrCat("num_gpu_blocks ", blocks, ": the largest prompt (", largest_prompt_->tokens,
                      " tokens, user ", largest_prompt_->user_id, " round ", largest_prompt_->round,
                      ") needs ", needed, " KV blocks of ", block_size, " tokens (with up to ",
                      output, " output tokens) and one replica has ", blocks,
                      ": every request that large fails");
}

absl::Status DatasetCeiling::CheckCellsHaveUsers(const v1::JobSpec& spec) const {
  if (!readable_) return absl::OkStatus();
  if (virtual_users_ == 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "num_rounds ", spec.num_rounds(), ": dataset ", DatasetName(spec, path_),
        " has 0 virtual users at ", spec.num_rounds(),
        " rounds (dataset ceiling 0: every session is shorter); no scenario would run"));
  }
  if (under_isl_.has_value() && *under_isl_ == 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "isl ", spec.isl(), ": dataset ", DatasetName(spec, path_), " has ", virtual_users_,
        " virtual users at num_rounds ", spec.num_rounds(), ", none with every prompt within ",
        spec.isl(), " tokens (ceiling under ISL 0); no scenario would run whole"));
  }
  return absl::OkStatus();
}

}  // namespace kvbench::agent
