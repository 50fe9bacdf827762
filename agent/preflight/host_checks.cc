#include "agent/preflight/host_checks.h"

#include <unistd.h>

#include <filesystem>
#include <system_error>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "agent/datasets/dataset_resolver.h"
#include "agent/datasets/registry/dataset_registry.h"
#include "agent/preflight/preflight_check.h"
#include "agent/scenario/model_roots.h"
#include "common/net/host_port.h"

namespace kvbench::agent::preflight {
namespace {

namespace fs = std::filesystem;

constexpr char kPorts[] = "ports";
constexpr char kModelRoots[] = "model_roots";
constexpr char kDatasets[] = "datasets";
constexpr char kCheckpointFile[] = "config.json";
// How deep under a root checkpoints are counted: <root>/<name> and <root>/<org>/<name>.
constexpr int kCheckpointDepth = 2;

bool IsCheckpoint(const fs::path& dir) {
  std::error_code error;
  return fs::is_regular_file(dir / kCheckpointFile, error);
}

int CountCheckpoints(const fs::path& dir, int depth) {
  int count = 0;
  std::error_code error;
  for (fs::directory_iterator it(dir, error), end; !error && it != end; it.increment(error)) {
    if (!it->is_directory(error)) continue;
    if (IsCheckpoint(it->path())) {
      ++count;
    } else if (depth > 1) {
      count += CountCheckpoints(it->path(), depth - 1);
    }
  }
  return count;
}

v1::PreflightCheck CheckSpecModel(const std::vector<std::string>& roots, const std::string& model) {
  if (!absl::StartsWith(model, "/")) {
    return Ok(kModelRoots, absl::StrCat("model ", model,
                                        " is an id: the engine resolves it (its cache or hub)"));
  }
  if (absl::Status under = CheckModelUnderRoots(model, roots); !under.ok()) {
    return Fail(kModelRoots, std::string(under.message()),
                "add the checkpoint's folder to model_roots (kvctl run: --model-root DIR), or "
                "move the checkpoint under one of them");
  }
  if (!IsCheckpoint(model)) {
    return Fail(kModelRoots, absl::StrCat("model ", model, " has no ", kCheckpointFile),
                "point the job's model at a Hugging Face checkpoint folder (config.json, "
                "tokenizer, weights)");
  }
  return Ok(kModelRoots, absl::StrCat("model ", model, " is a checkpoint under model_roots"));
}

}  // namespace

v1::PreflightCheck CheckPorts(const std::string& listen_address, PreflightProbes& probes) {
  std::vector<std::string> done;
  for (const char* host : kChildHosts) {
    if (absl::Status bound = probes.BindTcp(host, 0); !bound.ok()) {
      return Fail(kPorts, std::string(bound.message()),
                  "the agent's children listen on 127.0.0.1 and 127.0.0.2+ (one address per "
                  "replica): keep 127.0.0.0/8 on the loopback interface, as Linux sets it up");
    }
    done.push_back(host);
  }
  std::string detail = absl::StrCat("a free port binds on ", absl::StrJoin(done, " and "),
                                    " (the children's addresses)");
  if (listen_address.empty()) return Ok(kPorts, detail);
  absl::StatusOr<HostPort> listen = ParseHostPort(listen_address);
  if (!listen.ok() || listen->port == 0) return Ok(kPorts, detail);
  if (absl::Status bound = probes.BindTcp(listen->host, listen->port); !bound.ok()) {
    return Fail(kPorts, std::string(bound.message()),
                absl::StrCat("stop what listens on ", listen_address,
                             " (another kv-agent?), or set metrics_listen to another port (port "
                             "0 picks a free one)"));
  }
  return Ok(kPorts, absl::StrCat(detail, "; ", listen_address, " is free"));
}

v1::PreflightCheck CheckModelRoots(const std::vector<std::string>& roots,
                                   const std::optional<v1::JobSpec>& spec) {
  if (spec.has_value() && !spec->model().empty()) return CheckSpecModel(roots, spec->model());
  if (roots.empty()) {
    return Skip(kModelRoots, "no model_roots: jobs name model ids, which the engine resolves");
  }
  std::vector<std::string> found;
  std::vector<std::string> missing;
  for (const std::string& root : roots) {
    std::error_code error;
    if (!fs::is_directory(root, error) || ::access(root.c_str(), R_OK | X_OK) != 0) {
      missing.push_back(root);
      continue;
    }
    found.push_back(absl::StrCat(root, " (", CountCheckpoints(root, kCheckpointDepth),
                                 " checkpoints with ", kCheckpointFile, ")"));
  }
  std::string detail = absl::StrJoin(found, ", ");
  if (missing.empty()) return Ok(kModelRoots, detail);
  return Warn(kModelRoots,
              absl::StrCat(detail, detail.empty() ? "" : "; ",
                           "not a readable folder: ", absl::StrJoin(missing, ", ")),
              "create those folders (readable by the agent's user) or remove them from "
              "model_roots: a job's model under them cannot load");
}

v1::PreflightCheck CheckDatasets(const std::vector<std::string>& roots, bool allow_user_paths,
                                 bool pulls_registry_datasets,
                                 const std::optional<v1::JobSpec>& spec) {
  const datasets::DatasetResolver resolver(roots, allow_user_paths);
  const std::string where =
      roots.empty() ? "no dataset folder" : absl::StrCat("[", absl::StrJoin(roots, ", "), "]");
  const std::string pull_remedy =
      "kvctl dataset pull CODE into the agent's dataset_cache_dir, or set dataset_mirror (or "
      "KV_DATASET_MIRROR) to a folder holding it, so no scenario needs the network";
  if (spec.has_value()) {
    const v1::DatasetRef& ref = spec->dataset();
    absl::StatusOr<std::string> path = resolver.Resolve(ref);
    if (path.ok()) return Ok(kDatasets, absl::StrCat("dataset ", ref.code(), ": ", *path));
    if (absl::IsNotFound(path.status()) && pulls_registry_datasets &&
        datasets::FindDataset(ref.code()) != nullptr) {
      return Warn(kDatasets,
                  absl::StrCat("dataset ", ref.code(),
                               " is not here offline: pulled at scenario "
                               "start (",
                               path.status().message(), ")"),
                  pull_remedy);
    }
    return Fail(kDatasets, std::string(path.status().message()),
                "put the dataset in a dataset folder (kvctl run: --dataset-mirror DIR; kv-agent: "
                "dataset_mirror or dataset_cache_dir), or kvctl dataset pull CODE");
  }
  std::vector<std::string> here;
  std::vector<std::string> absent;
  for (const datasets::DatasetSpec& known : datasets::KnownDatasets()) {
    v1::DatasetRef ref;
    ref.set_code(known.code);
    absl::StatusOr<std::string> path = resolver.Resolve(ref);
    if (path.ok()) {
      here.push_back(absl::StrCat(known.code, " (", *path, ")"));
    } else {
      absent.push_back(known.code);
    }
  }
  const std::string absent_text =
      absent.empty() ? "" : absl::StrCat("not here: ", absl::StrJoin(absent, ", "));
  if (here.empty()) {
    return Warn(kDatasets,
                absl::StrCat("no known dataset resolves offline under ", where, "; ", absent_text),
                pull_remedy);
  }
  return Ok(kDatasets, absl::StrCat("offline: ", absl::StrJoin(here, ", "),
                                    absent.empty() ? "" : "; ", absent_text));
}

}  // namespace kvbench::agent::preflight
