#include "agent/runner/base_url.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"

namespace kvbench::runner {
namespace {

// The OpenAI-style API prefix a base URL may end in.
constexpr absl::string_view kOpenAiPrefix = "/v1";

absl::Status Refuse(absl::string_view base_url, absl::string_view why) {
  return absl::InvalidArgumentError(
      absl::StrCat("--base-url \"", base_url, "\": ", why,
                   "; give the server as http://host:port or its OpenAI base http://host:port/v1"));
}

}  // namespace

absl::StatusOr<std::string> ServerRootFromBaseUrl(absl::string_view base_url) {
  absl::string_view rest = base_url;
  std::string scheme;
  if (absl::ConsumePrefix(&rest, "http://")) {
    scheme = "http://";
  } else if (absl::ConsumePrefix(&rest, "https://")) {
    scheme = "https://";
  } else {
    return Refuse(base_url, "must start with http:// or https://");
  }
  if (absl::StrContains(rest, '?') || absl::StrContains(rest, '#')) {
    return Refuse(base_url, "has a query or fragment");
  }
  const size_t slash = rest.find('/');
  const absl::string_view authority = rest.substr(0, slash);
  if (authority.empty()) return Refuse(base_url, "has no host");
  absl::string_view path = slash == absl::string_view::npos ? "" : rest.substr(slash);
  absl::ConsumeSuffix(&path, "/");
  if (!path.empty() && path != kOpenAiPrefix) {
    return Refuse(base_url, absl::StrCat("path \"", path, "\" is neither empty nor /v1"));
  }
  return absl::StrCat(scheme, authority);
}

}  // namespace kvbench::runner
