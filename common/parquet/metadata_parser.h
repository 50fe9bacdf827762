#pragma once

// Decoding of Parquet's Thrift-compact metadata: the footer's FileMetaData and page headers.
// Unknown fields are skipped; a known field of the wrong wire type is INVALID_ARGUMENT.

#include <cstddef>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/parquet/metadata.h"

namespace kvbench::parquet {

absl::StatusOr<FileMetaData> ParseFileMetaData(absl::string_view bytes);

// Parses the page header at the start of `bytes`; *header_size gets the bytes it took.
absl::StatusOr<PageHeader> ParsePageHeader(absl::string_view bytes, size_t* header_size);

}  // namespace kvbench::parquet
