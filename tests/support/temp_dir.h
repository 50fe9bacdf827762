#pragma once

#include <string>

namespace kvbench::testing {

// A fresh directory under $TMPDIR (or /tmp), removed with everything in it on destruction.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::string& path() const { return path_; }
  // path() + "/" + name.
  std::string File(const std::string& name) const;
  // Writes `content` to File(name) and returns its path.
  std::string WriteFile(const std::string& name, const std::string& content) const;
  // The whole content of File(name), or "" if it cannot be read.
  std::string ReadFile(const std::string& name) const;

 private:
  std::string path_;
};

}  // namespace kvbench::testing
