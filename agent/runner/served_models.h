#pragma once

// The models an OpenAI-compatible server serves (GET /v1/models), so that kv-runner can say what
// to pass as --model when the server does not know the one it was given: vLLM answers such a
// request 404 "The model `x` does not exist." (vllm-project/vllm
// vllm/entrypoints/openai/engine/serving.py@00bd1493, OpenAIServing._check_model), and kvsim-vllm
// as vLLM does: a run asking for a model the server does not serve must say which ones it
// serves, not only "http_404".

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "common/http/async_http_client.h"

namespace kvbench::runner {

// How long GET /v1/models may take.
inline constexpr absl::Duration kServedModelsTimeout = absl::Seconds(10);

// The ids of /v1/models' answer ({"object": "list", "data": [{"id": ...}, ...]}), in its order.
// INVALID_ARGUMENT when the body is not that shape. Pure.
absl::StatusOr<std::vector<std::string>> ParseServedModels(absl::string_view body);

// GET `base_url`/v1/models (`base_url`: the server root, as RunnerOptions holds it) through
// `client`, blocking until it is answered. UNAVAILABLE when it cannot be fetched or is not 200.
absl::StatusOr<std::vector<std::string>> FetchServedModels(AsyncHttpClient* client,
                                                           const std::string& base_url,
                                                           absl::Duration timeout);

// Why a request for `model` was refused 404 by `base_url`, which serves `served` (not `model`),
// and what to pass as --model instead. One line, for kv-runner's exit message. Pure.
std::string UnknownModelMessage(const std::string& model, const std::string& base_url,
                                const std::vector<std::string>& served);

}  // namespace kvbench::runner
