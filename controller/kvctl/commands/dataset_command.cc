// kvctl dataset list|pull CODE: the datasets kvbench knows (agent/datasets/registry), whether
// they are in the local cache and verified, and bringing them there — from upstream, an HTTP
// mirror or a mirror folder (air-gapped clusters) — resumed when cut, checked by SHA-256.

#include <unistd.h>

#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "agent/datasets/registry/dataset_pull.h"
#include "controller/kvctl/kvctl_command.h"
#include "controller/kvctl/print/output_format.h"
#include "controller/kvctl/print/table_printer.h"

namespace kvbench::kvctl {
namespace {

using datasets::CachedState;
using datasets::DatasetCache;
using datasets::DatasetSpec;

struct DatasetFlags {
  std::string code;
  std::string mirror;  // --mirror, else $KV_DATASET_MIRROR
  std::string cache;   // --cache, else datasets::DefaultDatasetCacheDir
  OutputFormat format = OutputFormat::kTable;
};

absl::StatusOr<DatasetCache> CacheFor(const DatasetFlags& flags, const KvctlContext& context) {
  if (!flags.cache.empty()) return DatasetCache(flags.cache);
  absl::StatusOr<std::string> dir = datasets::DefaultDatasetCacheDir(context.getenv);
  if (!dir.ok()) return dir.status();
  return DatasetCache(*dir);
}

std::string SizeText(const std::optional<int64_t>& size) {
  return size ? absl::StrCat(*size) : "unknown";
}

absl::Status List(const DatasetFlags& flags, KvctlContext* context) {
  absl::StatusOr<DatasetCache> cache = CacheFor(flags, *context);
  if (!cache.ok()) return cache.status();
  nlohmann::json json = nlohmann::json::array();
  TablePrinter table({"CODE", "FILE", "SIZE", "CACHED", "VERIFIED", "CHECK"});
  for (const DatasetSpec& spec : datasets::KnownDatasets()) {
    nlohmann::json files = nlohmann::json::array();
    for (const datasets::DatasetFileSpec& file : spec.files) {
      const CachedState state = cache->StateOf(file);
      const bool cached = state != CachedState::kMissing;
      const bool verified = state == CachedState::kVerified;
      const std::string check = file.sha256.empty() ? "etag+recorded sha256" : "sha256";
      table.AddRow({spec.code, file.name, SizeText(file.size), cached ? "yes" : "no",
                    verified ? "yes" : "no", check});
      const nlohmann::json null;
      files.push_back({{"name", file.name},
                       {"url", file.url},
                       {"size", file.size ? nlohmann::json(*file.size) : null},
                       {"sha256", file.sha256.empty() ? null : nlohmann::json(file.sha256)},
                       {"path", cache->PathOf(file)},
                       {"cached", cached},
                       {"verified", verified}});
    }
    json.push_back({{"code", spec.code},
                    {"description", spec.description},
                    {"note", spec.note},
                    {"files", files}});
  }
  if (flags.format == OutputFormat::kJson) {
    *context->out << json.dump(2) << "\n";
  } else {
    table.Print(*context->out);
    *context->out << "cache: " << cache->root() << "\n";
  }
  return absl::OkStatus();
}

// A progress line redrawn in place on a terminal; nothing per chunk otherwise.
// The line is ended when the next file starts and by EndProgressLine.
struct ProgressLine {
  std::string file;
  int percent = -1;
  int64_t megabytes = -1;
  bool open = false;
};

std::function<void(const datasets::FetchProgress&)> ProgressFor(
    KvctlContext* context, const std::shared_ptr<ProgressLine>& line) {
  if (context->err != &std::cerr || !::isatty(STDERR_FILENO)) return nullptr;
  return [context, line](const datasets::FetchProgress& progress) {
    const int percent = progress.total && *progress.total > 0
                            ? static_cast<int>(progress.bytes_done * 100 / *progress.total)
                            : -1;
    const int64_t megabytes = progress.bytes_done / 1'000'000;
    if (progress.file == line->file && percent == line->percent &&
        (percent >= 0 || megabytes == line->megabytes)) {
      return;  // redraw only when the figure shown changes
    }
    if (line->open && progress.file != line->file) *context->err << "\n";
    *line = {progress.file, percent, megabytes, true};
    *context->err << "\r" << progress.file << "  "
                  << absl::StrFormat("%.1f MB", progress.bytes_done / 1e6);
    if (percent >= 0) {
      *context->err << absl::StrFormat(" / %.1f MB  %d%%", *progress.total / 1e6, percent);
    }
    *context->err << "\x1b[K" << std::flush;
  };
}

void EndProgressLine(KvctlContext* context, const ProgressLine& line) {
  if (line.open) *context->err << "\n";
}

absl::Status Pull(const DatasetFlags& flags, KvctlContext* context) {
  const DatasetSpec* spec = datasets::FindDataset(flags.code);
  if (spec == nullptr) {
    return absl::NotFoundError(absl::StrCat("unknown dataset code '", flags.code,
                                            "'; known codes: ", datasets::KnownDatasetCodes()));
  }
  absl::StatusOr<DatasetCache> cache = CacheFor(flags, *context);
  if (!cache.ok()) return cache.status();
  datasets::FetchOptions options;
  options.mirror = flags.mirror.empty() ? context->getenv(datasets::kDatasetMirrorEnv).value_or("")
                                        : flags.mirror;
  auto line = std::make_shared<ProgressLine>();
  options.on_progress = ProgressFor(context, line);
  absl::StatusOr<std::vector<datasets::FetchedFile>> fetched =
      datasets::PullDataset(*spec, *std::move(cache), std::move(options));
  EndProgressLine(context, *line);
  if (!fetched.ok()) return fetched.status();
  nlohmann::json json = nlohmann::json::array();
  TablePrinter table({"FILE", "OUTCOME", "SIZE", "SHA256"});
  for (const datasets::FetchedFile& file : *fetched) {
    table.AddRow({file.name, datasets::FetchOutcomeName(file.outcome), absl::StrCat(file.size),
                  file.sha256});
    json.push_back({{"name", file.name},
                    {"path", file.path},
                    {"outcome", datasets::FetchOutcomeName(file.outcome)},
                    {"size", file.size},
                    {"sha256", file.sha256},
                    {"downloads", file.downloads}});
  }
  if (flags.format == OutputFormat::kJson) {
    *context->out
        << nlohmann::json{{"code", spec->code}, {"cache", cache->root()}, {"files", json}}.dump(2)
        << "\n";
  } else {
    table.Print(*context->out);
    *context->out << spec->code << ": " << fetched->size() << " file(s) verified in "
                  << cache->root() << "\n";
  }
  return absl::OkStatus();
}

}  // namespace

void AddDatasetCommand(CLI::App* app, KvctlContext* context) {
  CLI::App* dataset =
      app->add_subcommand("dataset", "Known datasets: list, pull into the local cache, cat files");
  dataset->require_subcommand(1);
  auto flags = std::make_shared<DatasetFlags>();
  const std::string cache_help =
      absl::StrCat("Dataset cache folder (default $", datasets::kDatasetCacheEnv,
                   ", else $XDG_CACHE_HOME/kvbench/datasets, else ~/.cache/kvbench/datasets)");

  CLI::App* list = dataset->add_subcommand("list", "Codes, files, sizes, cached and verified");
  list->add_option("--cache", flags->cache, cache_help);
  AddOutputOption(list, &flags->format, {OutputFormat::kTable, OutputFormat::kJson});
  list->callback(
      [context, flags] { context->action = [context, flags] { return List(*flags, context); }; });

  CLI::App* pull = dataset->add_subcommand(
      "pull", "Download a dataset's files into the cache, resumed and verified");
  pull->add_option("code", flags->code, "Dataset code (kvctl dataset list)")->required();
  pull->add_option("--mirror", flags->mirror,
                   absl::StrCat("A folder or http(s) base URL serving <mirror>/<file> instead of "
                                "upstream (default $",
                                datasets::kDatasetMirrorEnv, ")"));
  pull->add_option("--cache", flags->cache, cache_help);
  AddOutputOption(pull, &flags->format, {OutputFormat::kTable, OutputFormat::kJson});
  pull->callback(
      [context, flags] { context->action = [context, flags] { return Pull(*flags, context); }; });
  AddDatasetCatCommand(dataset, context);
}

}  // namespace kvbench::kvctl
