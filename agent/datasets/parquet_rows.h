#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <string>

#include "absl/status/status.h"

namespace kvbench::datasets {

// True when `path` is a folder, ends in ".parquet", or starts with Parquet's magic "PAR1".
bool IsParquetInput(const std::string& path);

// Every row of a Parquet file, or of every *.parquet file in a folder (shards, by name), one at
// a time (a row group at a time in memory), as JSON; `origin` names the file and row for errors
// ("train-00000-of-00005.parquet row 17"). Stops at the first error, the callback's included.
absl::Status ForEachParquetRow(
    const std::string& path,
    const std::function<absl::Status(const std::string& origin, const nlohmann::json& row)>& row);

}  // namespace kvbench::datasets
