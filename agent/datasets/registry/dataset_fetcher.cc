#include "agent/datasets/registry/dataset_fetcher.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "agent/datasets/registry/file_digest.h"
#include "common/status/status_macros.h"

namespace kvbench::datasets {
namespace {

constexpr size_t kCopyBlockBytes = 1 << 20;

bool IsUrl(const std::string& mirror) {
  return absl::StartsWith(mirror, "http://") || absl::StartsWith(mirror, "https://");
}

void RemoveFile(const std::string& path) { std::remove(path.c_str()); }

std::string ReadSmallFile(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

// Only a strong ETag may go in If-Range (RFC 9110 13.1.5); a weak or missing one is not kept.
void KeepPartEtag(const std::string& path, const std::string& raw_etag) {
  if (raw_etag.empty() || absl::StartsWith(raw_etag, "W/")) {
    RemoveFile(path);
    return;
  }
  std::ofstream(path, std::ios::trunc) << raw_etag << "\n";
}

// The Status of a final HTTP answer other than 200/206.
absl::Status HttpStatusError(int status, const std::string& url) {
  const std::string message = absl::StrCat("GET ", url, ": HTTP ", status);
  if (status == 404 || status == 410) return absl::NotFoundError(message);
  if (status == 401 || status == 403) return absl::PermissionDeniedError(message);
  if (status == 429 || status >= 500) return absl::UnavailableError(message);
  return absl::FailedPreconditionError(message);
}

bool Retryable(const absl::Status& status) {
  return absl::IsUnavailable(status) || absl::IsDeadlineExceeded(status);
}

}  // namespace

const char* FetchOutcomeName(FetchOutcome outcome) {
  switch (outcome) {
    case FetchOutcome::kAlreadyCached:
      return "cached";
    case FetchOutcome::kDownloaded:
      return "downloaded";
    case FetchOutcome::kResumed:
      return "resumed";
    case FetchOutcome::kCopied:
      return "copied";
  }
  return "?";
}

DatasetFetcher::DatasetFetcher(DatasetCache cache, FileDownloader* downloader, FetchOptions options)
    : cache_(std::move(cache)), downloader_(downloader), options_(std::move(options)) {}

bool DatasetFetcher::MirrorIsFolder() const {
  return !options_.mirror.empty() && !IsUrl(options_.mirror);
}

std::string DatasetFetcher::SourceUrl(const DatasetFileSpec& file) const {
  if (options_.mirror.empty()) return file.url;
  return absl::StrCat(absl::StripSuffix(options_.mirror, "/"), "/", file.name);
}

// An exclusive flock(2) on a cache file's lock file, held while it is fetched; the kernel
// releases it with the process, so a crashed fetch never leaves it held.
class DatasetFetcher::CacheFileLock {
 public:
  static absl::StatusOr<CacheFileLock> Acquire(const std::string& path) {
    const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0) {
      return absl::PermissionDeniedError(
          absl::StrCat("cannot open ", path, ": ", std::strerror(errno)));
    }
    while (::flock(fd, LOCK_EX) != 0) {
      if (errno == EINTR) continue;
      const int error = errno;
      ::close(fd);
      return absl::InternalError(absl::StrCat("cannot lock ", path, ": ", std::strerror(error)));
    }
    return CacheFileLock(fd);
  }
  CacheFileLock(CacheFileLock&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  CacheFileLock& operator=(CacheFileLock&&) = delete;
  CacheFileLock(const CacheFileLock&) = delete;
  ~CacheFileLock() {
    if (fd_ >= 0) ::close(fd_);
  }

 private:
  explicit CacheFileLock(int fd) : fd_(fd) {}
  int fd_;
};

absl::StatusOr<std::vector<FetchedFile>> DatasetFetcher::Pull(const DatasetSpec& spec) {
  std::vector<FetchedFile> fetched;
  for (const DatasetFileSpec& file : spec.files) {
    KV_ASSIGN_OR_RETURN(FetchedFile one, Fetch(file));
    fetched.push_back(std::move(one));
  }
  return fetched;
}

absl::StatusOr<FetchedFile> DatasetFetcher::Fetch(const DatasetFileSpec& file) {
  KV_RETURN_IF_ERROR(cache_.MakeParentDirs(file));
  // One fetch of a file at a time, across processes: two agents on one host sharing a cache
  // wrote the same .part at once and each failed its checksum. The second waits, then finds the
  // file cached.
  KV_ASSIGN_OR_RETURN(CacheFileLock lock, CacheFileLock::Acquire(cache_.PathOf(file) + ".lock"));
  FetchedFile result;
  result.name = file.name;
  result.path = cache_.PathOf(file);
  std::optional<DatasetFileMeta> previous;
  if (absl::StatusOr<DatasetFileMeta> meta = cache_.ReadMeta(file); meta.ok()) previous = *meta;

  if (absl::StatusOr<std::string> cached = CheckCached(file); cached.ok()) {
    result.sha256 = *cached;
    result.size = FileSize(result.path).value_or(0);
    if (!previous) {  // pinned, placed there by hand: record it so `list` shows it verified
      KV_RETURN_IF_ERROR(cache_.WriteMeta(file, {result.sha256, result.size, "", result.path}));
    }
    return result;
  }
  std::string etag;
  std::string source;
  if (MirrorIsFolder()) {
    source = absl::StrCat(options_.mirror, "/", file.name);
    KV_RETURN_IF_ERROR(CopyFromFolder(file, source));
    result.outcome = FetchOutcome::kCopied;
  } else {
    source = SourceUrl(file);
    bool resumed = false;
    KV_RETURN_IF_ERROR(DownloadToPart(file, source, &etag, &result.downloads, &resumed));
    result.outcome = resumed ? FetchOutcome::kResumed : FetchOutcome::kDownloaded;
  }
  KV_ASSIGN_OR_RETURN(result.sha256, VerifyAndInstall(file, source, etag, previous));
  result.size = FileSize(result.path).value_or(0);
  return result;
}

absl::StatusOr<std::string> DatasetFetcher::CheckCached(const DatasetFileSpec& file) const {
  const std::string path = cache_.PathOf(file);
  const std::optional<int64_t> size = FileSize(path);
  if (!size) return absl::NotFoundError(path);
  std::string expected = file.sha256;
  if (expected.empty()) {
    absl::StatusOr<DatasetFileMeta> meta = cache_.ReadMeta(file);
    if (!meta.ok()) return absl::DataLossError(absl::StrCat(path, " has no record"));
    expected = meta->sha256;
  }
  if (file.size && *file.size != *size) return absl::DataLossError("size differs");
  KV_ASSIGN_OR_RETURN(std::string actual, Sha256OfFile(path));
  if (actual != expected) return absl::DataLossError("digest differs");
  return actual;
}

absl::Status DatasetFetcher::CopyFromFolder(const DatasetFileSpec& file,
                                            const std::string& source) {
  std::unique_ptr<FILE, decltype(&std::fclose)> in(std::fopen(source.c_str(), "rb"), &std::fclose);
  if (!in) {
    return absl::NotFoundError(
        absl::StrCat("mirror folder has no ", file.name, ": cannot open ", source));
  }
  const std::string part = cache_.PartPathOf(file);
  std::unique_ptr<FILE, decltype(&std::fclose)> out(std::fopen(part.c_str(), "wb"), &std::fclose);
  if (!out) {
    return absl::PermissionDeniedError(
        absl::StrCat("cannot write ", part, ": ", std::strerror(errno)));
  }
  const std::optional<int64_t> total = FileSize(source);
  std::vector<char> block(kCopyBlockBytes);
  int64_t done = 0;
  size_t read = 0;
  while ((read = std::fread(block.data(), 1, block.size(), in.get())) > 0) {
    if (std::fwrite(block.data(), 1, read, out.get()) != read) {
      return absl::InternalError(absl::StrCat("cannot write ", part, ": ", std::strerror(errno)));
    }
    done += static_cast<int64_t>(read);
    if (options_.on_progress) options_.on_progress({file.name, done, total});
  }
  if (std::ferror(in.get())) return absl::InternalError(absl::StrCat("cannot read ", source));
  if (std::fclose(out.release()) != 0) {
    return absl::InternalError(absl::StrCat("cannot write ", part));
  }
  return absl::OkStatus();
}

absl::Status DatasetFetcher::DownloadToPart(const DatasetFileSpec& file, const std::string& url,
                                            std::string* etag, int* downloads, bool* resumed) {
  const std::string part = cache_.PartPathOf(file);
  absl::Status last = absl::UnavailableError(absl::StrCat("GET ", url, ": no attempt made"));
  for (int attempt = 0; attempt < options_.max_attempts; ++attempt) {
    DownloadRequest request;
    request.url = url;
    request.path = part;
    request.offset = FileSize(part).value_or(0);
    const std::string part_etag = cache_.PartEtagPathOf(file);
    if (request.offset > 0) request.if_range = ReadSmallFile(part_etag);
    request.on_etag = [&part_etag, &request](const std::string& raw_etag) {
      // A 206 continues the bytes the kept ETag describes; a 200 starts new ones.
      if (request.offset == 0 || raw_etag != request.if_range) KeepPartEtag(part_etag, raw_etag);
    };
    if (options_.on_progress) {
      request.on_progress = [this, &file](int64_t done, std::optional<int64_t> total) {
        options_.on_progress({file.name, done, total});
      };
    }
    ++*downloads;
    absl::StatusOr<DownloadResult> result = downloader_->Download(request);
    if (!result.ok()) {
      last = result.status();
      // Try again only while the cut transfers keep bringing bytes.
      if (!Retryable(last) || FileSize(part).value_or(0) <= request.offset) return last;
      continue;
    }
    if (result->http_status == 416 && request.offset > 0) {  // the .part is not a prefix
      RemoveFile(part);
      RemoveFile(part_etag);
      last = absl::UnavailableError(absl::StrCat("GET ", url, ": HTTP 416 for a resume"));
      continue;
    }
    if (result->http_status != 200 && result->http_status != 206) {
      return HttpStatusError(result->http_status, url);
    }
    *etag = result->etag;
    *resumed = *resumed || result->resumed;
    return absl::OkStatus();
  }
  return last;
}

absl::StatusOr<std::string> DatasetFetcher::VerifyAndInstall(
    const DatasetFileSpec& file, const std::string& source, const std::string& etag,
    const std::optional<DatasetFileMeta>& previous) {
  const std::string part = cache_.PartPathOf(file);
  RemoveFile(cache_.PartEtagPathOf(file));  // the .part is whole now: installed or removed
  const int64_t size = FileSize(part).value_or(0);
  KV_ASSIGN_OR_RETURN(std::string actual, Sha256OfFile(part));
  std::string expected = file.sha256;
  if (expected.empty() && previous && !previous->sha256.empty()) {
    if (!etag.empty() && !previous->etag.empty() && etag != previous->etag) {
      RemoveFile(part);
      return absl::FailedPreconditionError(
          absl::StrCat(file.name, " changed upstream: ETag ", etag, ", recorded ", previous->etag,
                       " in ", cache_.MetaPathOf(file), " (remove it to accept the new file)"));
    }
    expected = previous->sha256;
  }
  if (file.size && *file.size != size) {
    RemoveFile(part);
    return absl::DataLossError(absl::StrCat("size mismatch for ", file.name, " from ", source,
                                            ": expected ", *file.size, " bytes, got ", size,
                                            " (sha256 ", actual, "); removed ", part));
  }
  if (!expected.empty() && expected != actual) {
    RemoveFile(part);
    return absl::DataLossError(absl::StrCat("checksum mismatch for ", file.name, " from ", source,
                                            ": expected sha256 ", expected, ", got ", actual,
                                            "; removed ", part));
  }
  const std::string path = cache_.PathOf(file);
  if (std::rename(part.c_str(), path.c_str()) != 0) {
    return absl::InternalError(
        absl::StrCat("cannot rename ", part, " to ", path, ": ", std::strerror(errno)));
  }
  KV_RETURN_IF_ERROR(cache_.WriteMeta(file, {actual, size, etag, source}));
  return actual;
}

}  // namespace kvbench::datasets
