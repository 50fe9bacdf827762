#pragma once

// Helpers of the Parquet reader tests: paths into parquet-testing and reading a whole file.

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/parquet/value_decoder.h"

namespace kvbench::parquet::testing {

// parquet-testing/data/<name> (or bad_data/<name> with DataDir("bad_data")).
std::string DataFile(const std::string& name);
std::string BadDataFile(const std::string& name);
std::vector<std::string> ListFiles(const std::string& folder);  // *.parquet* in a folder

// Every row of the file, or the first error.
absl::StatusOr<std::vector<Json>> ReadAllRows(const std::string& path);

// One column of `rows`, as a JSON array.
Json Column(const std::vector<Json>& rows, const std::string& name);

}  // namespace kvbench::parquet::testing
