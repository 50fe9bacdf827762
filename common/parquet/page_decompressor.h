#pragma once

// Decompression of one page's bytes: UNCOMPRESSED, SNAPPY (libsnappy), GZIP (zlib, concatenated
// members too) and ZSTD (libzstd). Other codecs are UNIMPLEMENTED, naming the codec and column.

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace kvbench::parquet {

// Largest uncompressed page accepted; a header claiming more is treated as corrupt.
inline constexpr int64_t kMaxPageBytes = int64_t{256} << 20;

// `uncompressed_size` is the page header's; the output must have exactly that size.
absl::StatusOr<std::string> DecompressPage(int32_t codec, absl::string_view input,
                                           int64_t uncompressed_size,
                                           absl::string_view column_path);

// True for the codecs DecompressPage supports.
bool IsSupportedCodec(int32_t codec);

}  // namespace kvbench::parquet
