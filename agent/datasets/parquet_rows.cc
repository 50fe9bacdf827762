#include "agent/datasets/parquet_rows.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <limits>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/json/validated_json.h"
#include "common/parquet/parquet_reader.h"
#include "common/status/status_macros.h"

namespace kvbench::datasets {
namespace {

namespace fs = std::filesystem;

absl::StatusOr<std::vector<std::string>> Shards(const std::string& path) {
  std::error_code error;
  if (!fs::is_directory(path, error)) {
    // Streamed, so no size limit; but a regular file (a FIFO or /dev/zero is refused by name).
    KV_RETURN_IF_ERROR(CheckRegularFile(path, std::numeric_limits<int64_t>::max()));
    return std::vector<std::string>{path};
  }
  std::vector<std::string> shards;
  for (const fs::directory_entry& entry : fs::directory_iterator(path, error)) {
    if (absl::EndsWith(entry.path().filename().string(), ".parquet")) {
      shards.push_back(entry.path().string());
    }
  }
  if (error) return absl::NotFoundError(absl::StrCat("cannot read ", path, ": ", error.message()));
  if (shards.empty()) {
    return absl::NotFoundError(absl::StrCat(path, " holds no .parquet shard"));
  }
  std::sort(shards.begin(), shards.end());
  return shards;
}

}  // namespace

bool IsParquetInput(const std::string& path) {
  std::error_code error;
  if (fs::is_directory(path, error) || absl::EndsWith(path, ".parquet")) return true;
  // Never open what is not a regular file (a FIFO would block here forever); the
  // JSON readers then refuse it by name.
  if (!fs::is_regular_file(path, error)) return false;
  std::ifstream in(path, std::ios::binary);
  char magic[4] = {};
  return in.read(magic, sizeof(magic)) && std::string(magic, 4) == "PAR1";
}

absl::Status ForEachParquetRow(
    const std::string& path,
    const std::function<absl::Status(const std::string& origin, const nlohmann::json& row)>& row) {
  KV_ASSIGN_OR_RETURN(std::vector<std::string> shards, Shards(path));
  for (const std::string& shard : shards) {
    absl::StatusOr<std::unique_ptr<parquet::ParquetReader>> reader =
        parquet::ParquetReader::Open(shard);
    if (!reader.ok()) {
      return absl::Status(reader.status().code(),
                          absl::StrCat(shard, ": ", reader.status().message()));
    }
    const std::string name = fs::path(shard).filename().string();
    parquet::Json value;
    for (int64_t index = 0;; ++index) {
      absl::StatusOr<bool> more = (*reader)->Next(&value);
      if (!more.ok()) {
        return absl::Status(more.status().code(),
                            absl::StrCat(shard, " row ", index, ": ", more.status().message()));
      }
      if (!*more) break;
      // The loaders work on nlohmann::json; the text round trip keeps every value as is.
      KV_RETURN_IF_ERROR(
          row(absl::StrCat(name, " row ", index), nlohmann::json::parse(value.dump())));
    }
  }
  return absl::OkStatus();
}

}  // namespace kvbench::datasets
