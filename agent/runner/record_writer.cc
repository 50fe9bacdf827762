#include "agent/runner/record_writer.h"

#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"

namespace kvbench::runner {

absl::StatusOr<std::unique_ptr<RecordWriter>> RecordWriter::Create(const std::string& path) {
  std::FILE* file = std::fopen(path.c_str(), "w");
  if (file == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot open --output ", path, ": ", std::strerror(errno)));
  }
  return std::unique_ptr<RecordWriter>(new RecordWriter(path, file));
}

RecordWriter::~RecordWriter() { std::fclose(file_); }

void RecordWriter::Write(const RequestRecord& record) {
  std::string line = ToJsonLine(record);
  line.push_back('\n');
  std::lock_guard<std::mutex> lock(mu_);
  if (std::fwrite(line.data(), 1, line.size(), file_) != line.size() ||
      std::fflush(file_) != 0) {
    if (status_.ok()) {
      status_ = absl::InternalError(absl::StrCat("write to ", path_, " failed: ",
                                                 std::strerror(errno)));
    }
  }
}

absl::Status RecordWriter::status() {
  std::lock_guard<std::mutex> lock(mu_);
  return status_;
}

}  // namespace kvbench::runner
