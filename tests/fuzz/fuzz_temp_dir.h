#pragma once

// A per-process scratch folder for fuzz targets whose code under test reads files (dataset
// loaders, daemon configs, the event spool). In /dev/shm when it is there, so the millions of
// small writes (and the spool's fsyncs) of a campaign stay in memory; removed at exit.

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "absl/strings/string_view.h"

namespace kvbench::fuzz {

class FuzzTempDir {
 public:
  FuzzTempDir() {
    const char* base = std::filesystem::is_directory("/dev/shm") ? "/dev/shm" : "/tmp";
    std::string pattern = std::string(base) + "/kvbench-fuzz-XXXXXX";
    if (::mkdtemp(pattern.data()) == nullptr) {
      std::perror("mkdtemp");
      std::abort();
    }
    path_ = pattern;
  }
  ~FuzzTempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  FuzzTempDir(const FuzzTempDir&) = delete;
  FuzzTempDir& operator=(const FuzzTempDir&) = delete;

  const std::string& path() const { return path_; }

  // Writes `data` to `name` inside the folder (replacing it) and returns the file's path.
  std::string Write(const std::string& name, absl::string_view data) const {
    const std::string file = path_ + "/" + name;
    std::ofstream out(file, std::ios::binary | std::ios::trunc);
    out.write(data.data(), static_cast<std::streamsize>(data.size()));
    out.close();
    if (!out) {
      std::fprintf(stderr, "fuzz: cannot write %s\n", file.c_str());
      std::abort();
    }
    return file;
  }

  // The one folder of this process (removed when the process exits normally).
  static const FuzzTempDir& Get() {
    static const FuzzTempDir dir;
    return dir;
  }

 private:
  std::string path_;
};

}  // namespace kvbench::fuzz
