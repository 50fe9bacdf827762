#pragma once

#include <cstdio>
#include <memory>
#include <string>

#include "common/parquet/byte_source.h"

namespace kvbench::parquet {

// A file read with pread-like seeks; the file stays open for the source's lifetime.
class FileByteSource : public ByteSource {
 public:
  static absl::StatusOr<std::unique_ptr<FileByteSource>> Open(const std::string& path);
  ~FileByteSource() override;

  int64_t size() const override { return size_; }
  absl::StatusOr<std::string> Read(int64_t offset, int64_t length) override;

 private:
  FileByteSource(std::FILE* file, int64_t size, std::string path)
      : file_(file), size_(size), path_(std::move(path)) {}

  std::FILE* file_;
  int64_t size_;
  std::string path_;
};

}  // namespace kvbench::parquet
