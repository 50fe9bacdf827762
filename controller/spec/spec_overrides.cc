#include "controller/spec/spec_overrides.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"

namespace kvbench::spec {
namespace {

// VALUE as JSON when it is JSON, else as a string.
nlohmann::ordered_json ValueOf(const std::string& text) {
  nlohmann::ordered_json value = nlohmann::ordered_json::parse(text, nullptr, false);
  if (value.is_discarded()) return nlohmann::ordered_json(text);
  return value;
}

}  // namespace

absl::Status ApplySpecOverrides(const std::vector<std::string>& sets,
                                nlohmann::ordered_json* spec) {
  for (const std::string& set : sets) {
    const size_t equals = set.find('=');
    if (equals == std::string::npos || equals == 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--set \"", set, "\": expected KEY=VALUE, e.g. engine_overrides.num_gpu_blocks=64"));
    }
    const std::string key = set.substr(0, equals);
    const std::vector<std::string> parts = absl::StrSplit(key, '.');
    nlohmann::ordered_json* node = spec;
    for (size_t i = 0; i < parts.size(); ++i) {
      if (parts[i].empty()) {
        return absl::InvalidArgumentError(
            absl::StrCat("--set \"", set, "\": the key ", key, " has an empty part"));
      }
      if (node->is_null()) *node = nlohmann::ordered_json::object();
      if (!node->is_object()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "--set \"", set, "\": ",
            i == 0 ? std::string("the spec") : absl::StrJoin(parts.begin(), parts.begin() + i, "."),
            " is not an object"));
      }
      node = &(*node)[parts[i]];
    }
    *node = ValueOf(set.substr(equals + 1));
  }
  return absl::OkStatus();
}

}  // namespace kvbench::spec
