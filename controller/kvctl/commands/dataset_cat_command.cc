// kvctl dataset cat FILE [--limit N]: the rows of a Parquet file (kvbench's own reader; nested
// values as JSON arrays/objects, null as null) or of a JSONL file, as JSON lines, for people to
// look at data.

#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "common/parquet/cat_rows.h"
#include "controller/kvctl/kvctl_command.h"

namespace kvbench::kvctl {
namespace {

struct CatFlags {
  std::string path;
  int64_t limit = -1;
};

bool IsParquet(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  char magic[4] = {};
  return in.read(magic, sizeof(magic)) && std::string(magic, 4) == "PAR1";
}

// JSON lines, each checked to be JSON (a broken line is an error naming it) and printed compact.
absl::Status CatJsonLines(const std::string& path, int64_t limit, std::ostream& out) {
  std::ifstream in(path);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot read ", path));
  std::string line;
  int64_t printed = 0;
  for (int number = 1; (limit < 0 || printed < limit) && std::getline(in, line); ++number) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    nlohmann::ordered_json row = nlohmann::ordered_json::parse(line, nullptr, false);
    if (row.is_discarded()) {
      return absl::InvalidArgumentError(absl::StrCat(path, ":", number, ": not JSON"));
    }
    out << row.dump() << "\n";
    ++printed;
  }
  return absl::OkStatus();
}

}  // namespace

void AddDatasetCatCommand(CLI::App* dataset, KvctlContext* context) {
  auto flags = std::make_shared<CatFlags>();
  CLI::App* cat =
      dataset->add_subcommand("cat", "Print the rows of a Parquet or JSONL file as JSON lines");
  cat->add_option("file", flags->path, "A .parquet or .jsonl file")->required();
  cat->add_option("--limit", flags->limit, "At most this many rows (default: all)");
  cat->callback([context, flags] {
    context->action = [context, flags]() -> absl::Status {
      if (IsParquet(flags->path)) return parquet::CatRows(flags->path, flags->limit, *context->out);
      return CatJsonLines(flags->path, flags->limit, *context->out);
    };
  });
}

}  // namespace kvbench::kvctl
