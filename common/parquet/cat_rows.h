#pragma once

// Prints the rows of a Parquet file as JSON lines (one object per row; nested values as arrays
// and objects, nulls as null; bytes that are not UTF-8 replaced by U+FFFD). For the future
// `kvctl dataset cat FILE [--limit N]`.

#include <cstdint>
#include <ostream>
#include <string>

#include "absl/status/status.h"

namespace kvbench::parquet {

// At most `limit` rows; all rows when limit < 0.
absl::Status CatRows(const std::string& path, int64_t limit, std::ostream& out);

}  // namespace kvbench::parquet
