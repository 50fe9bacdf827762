#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace kvbench::runner {

// The server root kv-runner talks to, from --base-url (pure). Accepted: `http[s]://host:port`
// and the OpenAI-style base `http[s]://host:port/v1` (as the OpenAI SDK and the methodology's
// multi-round-qa client take it), each with or without a trailing slash; the result is
// `scheme://host:port` with no path. The replay then POSTs to <root>/v1/chat/completions and
// counts prompts at <root>/tokenize: vLLM mounts /tokenize at the server root, not under /v1
// (vllm-project/vllm:vllm/entrypoints/serve/tokenize/api_router.py@045d7575, a router with no
// prefix included as is). INVALID_ARGUMENT naming the URL for any other path, a query or
// fragment, a scheme other than http/https, or no host.
absl::StatusOr<std::string> ServerRootFromBaseUrl(absl::string_view base_url);

}  // namespace kvbench::runner
