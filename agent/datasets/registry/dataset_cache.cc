#include "agent/datasets/registry/dataset_cache.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "common/files/atomic_file.h"

namespace kvbench::datasets {

absl::StatusOr<std::string> DefaultDatasetCacheDir(
    const std::function<std::optional<std::string>(const std::string&)>& getenv) {
  if (auto dir = getenv(kDatasetCacheEnv); dir && !dir->empty()) return *dir;
  if (auto xdg = getenv("XDG_CACHE_HOME"); xdg && !xdg->empty()) {
    return absl::StrCat(*xdg, "/", kDefaultCacheSubdir);
  }
  if (auto home = getenv("HOME"); home && !home->empty()) {
    return absl::StrCat(*home, "/.cache/", kDefaultCacheSubdir);
  }
  return absl::FailedPreconditionError(
      absl::StrCat("no dataset cache folder: set ", kDatasetCacheEnv, " or pass --cache"));
}

std::optional<int64_t> FileSize(const std::string& path) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0 || !S_ISREG(info.st_mode)) return std::nullopt;
  return static_cast<int64_t>(info.st_size);
}

std::string DatasetCache::PathOf(const DatasetFileSpec& file) const {
  return absl::StrCat(root_, "/", file.name);
}
std::string DatasetCache::PartPathOf(const DatasetFileSpec& file) const {
  return absl::StrCat(PathOf(file), ".part");
}
std::string DatasetCache::MetaPathOf(const DatasetFileSpec& file) const {
  return absl::StrCat(PathOf(file), ".meta");
}
std::string DatasetCache::PartEtagPathOf(const DatasetFileSpec& file) const {
  return absl::StrCat(PartPathOf(file), ".etag");
}

absl::StatusOr<DatasetFileMeta> DatasetCache::ReadMeta(const DatasetFileSpec& file) const {
  const std::string path = MetaPathOf(file);
  std::ifstream in(path);
  if (!in) return absl::NotFoundError(absl::StrCat("no ", path));
  std::stringstream text;
  text << in.rdbuf();
  nlohmann::json json = nlohmann::json::parse(text.str(), nullptr, /*allow_exceptions=*/false);
  if (!json.is_object()) return absl::DataLossError(absl::StrCat("unreadable ", path));
  DatasetFileMeta meta;
  meta.sha256 = json.value("sha256", "");
  meta.size = json.value("size", int64_t{0});
  meta.etag = json.value("etag", "");
  meta.source = json.value("source", "");
  return meta;
}

absl::Status DatasetCache::WriteMeta(const DatasetFileSpec& file,
                                     const DatasetFileMeta& meta) const {
  const nlohmann::json json = {
      {"sha256", meta.sha256}, {"size", meta.size}, {"etag", meta.etag}, {"source", meta.source}};
  return WriteFileAtomically(MetaPathOf(file), absl::StrCat(json.dump(2), "\n"));
}

CachedState DatasetCache::StateOf(const DatasetFileSpec& file) const {
  const std::optional<int64_t> size = FileSize(PathOf(file));
  if (!size) return CachedState::kMissing;
  absl::StatusOr<DatasetFileMeta> meta = ReadMeta(file);
  if (!meta.ok() || meta->size != *size || meta->sha256.empty()) return CachedState::kUnverified;
  if (file.size && *file.size != *size) return CachedState::kUnverified;
  if (!file.sha256.empty() && file.sha256 != meta->sha256) return CachedState::kUnverified;
  return CachedState::kVerified;
}

absl::Status DatasetCache::MakeParentDirs(const DatasetFileSpec& file) const {
  const std::string path = PathOf(file);
  for (size_t at = path.find('/', 1); at != std::string::npos; at = path.find('/', at + 1)) {
    const std::string dir = path.substr(0, at);
    if (::mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST) {
      return absl::PermissionDeniedError(
          absl::StrCat("cannot create ", dir, ": ", std::strerror(errno)));
    }
  }
  return absl::OkStatus();
}

}  // namespace kvbench::datasets
