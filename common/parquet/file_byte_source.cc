#include "common/parquet/file_byte_source.h"

#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"

namespace kvbench::parquet {

absl::StatusOr<std::unique_ptr<FileByteSource>> FileByteSource::Open(const std::string& path) {
  std::FILE* file = std::fopen(path.c_str(), "rb");
  if (file == nullptr) {
    const std::string message = absl::StrCat("cannot open ", path, ": ", std::strerror(errno));
    return errno == ENOENT ? absl::NotFoundError(message) : absl::InvalidArgumentError(message);
  }
  if (std::fseek(file, 0, SEEK_END) != 0) {
    std::fclose(file);
    return absl::InvalidArgumentError(absl::StrCat("cannot seek in ", path));
  }
  const long size = std::ftell(file);
  if (size < 0) {
    std::fclose(file);
    return absl::InvalidArgumentError(absl::StrCat("cannot size ", path, " (a directory?)"));
  }
  return std::unique_ptr<FileByteSource>(new FileByteSource(file, size, path));
}

FileByteSource::~FileByteSource() { std::fclose(file_); }

absl::StatusOr<std::string> FileByteSource::Read(int64_t offset, int64_t length) {
  if (offset < 0 || length < 0 || offset > size_ || length > size_ - offset) {
    return absl::InvalidArgumentError(absl::StrCat("range ", offset, "+", length, " is past the end of ",
                                                   path_, " (", size_, " bytes)"));
  }
  std::string bytes(static_cast<size_t>(length), '\0');
  if (std::fseek(file_, offset, SEEK_SET) != 0 ||
      std::fread(bytes.data(), 1, bytes.size(), file_) != bytes.size()) {
    return absl::DataLossError(absl::StrCat("short read of ", path_, " at ", offset));
  }
  return bytes;
}

}  // namespace kvbench::parquet
