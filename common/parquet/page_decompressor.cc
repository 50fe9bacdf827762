#include "common/parquet/page_decompressor.h"

#include <snappy.h>
#include <zlib.h>
#include <zstd.h>

#include "absl/strings/str_cat.h"
#include "common/parquet/metadata.h"

namespace kvbench::parquet {
namespace {

absl::Status Corrupt(absl::string_view codec, absl::string_view column, absl::string_view what) {
  return absl::InvalidArgumentError(
      absl::StrCat("corrupt ", codec, " page in column ", column, ": ", what));
}

absl::StatusOr<std::string> Snappy(absl::string_view input, size_t size, absl::string_view column) {
  size_t length = 0;
  if (!snappy::GetUncompressedLength(input.data(), input.size(), &length) || length != size) {
    return Corrupt("SNAPPY", column, "uncompressed length differs from the page header");
  }
  std::string out(size, '\0');
  if (!snappy::RawUncompress(input.data(), input.size(), out.data())) {
    return Corrupt("SNAPPY", column, "invalid stream");
  }
  return out;
}

// Inflates every gzip (or zlib) member in turn: some writers concatenate members in one page.
absl::StatusOr<std::string> Gzip(absl::string_view input, size_t size, absl::string_view column) {
  std::string out(size, '\0');
  z_stream stream{};
  if (inflateInit2(&stream, 15 + 32) != Z_OK) return absl::InternalError("inflateInit2 failed");
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(input.data()));
  stream.avail_in = static_cast<uInt>(input.size());
  stream.next_out = reinterpret_cast<Bytef*>(out.data());
  stream.avail_out = static_cast<uInt>(out.size());
  int result = Z_OK;
  while (true) {
    result = inflate(&stream, Z_FINISH);
    if (result == Z_STREAM_END && stream.avail_in > 0 && stream.avail_out > 0) {
      if (inflateReset(&stream) != Z_OK) break;
      continue;
    }
    break;
  }
  const size_t produced = out.size() - stream.avail_out;
  inflateEnd(&stream);
  if (result != Z_STREAM_END && !(result == Z_BUF_ERROR && produced == size)) {
    return Corrupt("GZIP", column, absl::StrCat("inflate error ", result));
  }
  if (produced != size) return Corrupt("GZIP", column, "size differs from the page header");
  return out;
}

absl::StatusOr<std::string> Zstd(absl::string_view input, size_t size, absl::string_view column) {
  std::string out(size, '\0');
  const size_t result = ZSTD_decompress(out.data(), out.size(), input.data(), input.size());
  if (ZSTD_isError(result)) return Corrupt("ZSTD", column, ZSTD_getErrorName(result));
  if (result != size) return Corrupt("ZSTD", column, "size differs from the page header");
  return out;
}

}  // namespace

bool IsSupportedCodec(int32_t codec) {
  return codec == kUncompressed || codec == kSnappy || codec == kGzip || codec == kZstd;
}

absl::StatusOr<std::string> DecompressPage(int32_t codec, absl::string_view input,
                                           int64_t uncompressed_size,
                                           absl::string_view column_path) {
  if (!IsSupportedCodec(codec)) {
    return absl::UnimplementedError(absl::StrCat("compression codec ", CodecName(codec),
                                                 " (column ", column_path, ") is not supported"));
  }
  if (uncompressed_size < 0 || uncompressed_size > kMaxPageBytes) {
    return absl::InvalidArgumentError(absl::StrCat("page of column ", column_path, " claims ",
                                                   uncompressed_size, " uncompressed bytes"));
  }
  const size_t size = static_cast<size_t>(uncompressed_size);
  if (size == 0) return std::string();  // an empty page (page_v2_empty_compressed.parquet)
  switch (codec) {
    case kUncompressed:
      if (input.size() != size) {
        return Corrupt("UNCOMPRESSED", column_path, "compressed and uncompressed sizes differ");
      }
      return std::string(input);
    case kSnappy:
      return Snappy(input, size, column_path);
    case kGzip:
      return Gzip(input, size, column_path);
    default:
      return Zstd(input, size, column_path);
  }
}

}  // namespace kvbench::parquet
