#include "agent/sim/lmcache/l2_fs_adapter.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/files/atomic_file.h"
#include "common/log/logging.h"

namespace kvbench::sim::lmcache {
namespace {

constexpr char kMagic[8] = {'K', 'V', 'S', 'I', 'M', 'L', '2', '\0'};
constexpr size_t kIoBufferBytes = 64 * 1024;

void PutU64(char* out, uint64_t value) {
  for (int i = 0; i < 8; ++i) out[i] = static_cast<char>((value >> (8 * i)) & 0xFF);
}

uint64_t GetU64(const char* in) {
  uint64_t value = 0;
  for (int i = 0; i < 8; ++i)
    value |= static_cast<uint64_t>(static_cast<unsigned char>(in[i])) << (8 * i);
  return value;
}

// The filler of every chunk file: bytes that are not all zero, so no filesystem can elide them.
const std::vector<char>& Filler() {
  static const std::vector<char> filler = [] {
    std::vector<char> bytes(kIoBufferBytes);
    for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<char>((i * 131 + 7) & 0xFF);
    return bytes;
  }();
  return filler;
}

absl::Status Errno(absl::string_view what, const std::string& path) {
  return absl::UnavailableError(absl::StrCat(what, " ", path, ": ", std::strerror(errno)));
}

absl::Status WriteAll(int fd, const char* data, size_t size, const std::string& path) {
  while (size > 0) {
    ssize_t n = ::write(fd, data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Errno("cannot write", path);
    data += n;
    size -= static_cast<size_t>(n);
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::unique_ptr<L2FsAdapter>> L2FsAdapter::Create(L2FsOptions options,
                                                                 const Clock* clock,
                                                                 LmcacheMetrics* metrics) {
  std::error_code error;
  std::filesystem::create_directories(options.base_path, error);
  if (error || !std::filesystem::is_directory(options.base_path)) {
    return absl::FailedPreconditionError(absl::StrCat("L2 fs adapter: cannot create base_path ",
                                                      options.base_path, ": ",
                                                      error ? error.message() : "not a directory"));
  }
  return std::unique_ptr<L2FsAdapter>(new L2FsAdapter(std::move(options), clock, metrics));
}

L2FsAdapter::L2FsAdapter(L2FsOptions options, const Clock* clock, LmcacheMetrics* metrics)
    : options_(std::move(options)), clock_(clock), metrics_(metrics) {
  metrics_->SetL2Usage(0);
  if (options_.eviction && options_.max_capacity_bytes == 0) {
    // As upstream's _should_enable_l2_eviction: eviction needs a capacity to compare against.
    KV_LOG(WARNING) << "L2 adapter " << name_ << " configured with '" << options_.eviction->policy
                    << "' eviction but max_capacity_gb is 0: L2 eviction stays disabled";
  }
  writer_ = std::thread([this] { WriterLoop(); });
}

L2FsAdapter::~L2FsAdapter() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  work_cv_.notify_all();
  writer_.join();
}

std::string L2FsAdapter::PathOf(uint64_t hash) const {
  return absl::StrFormat("%s/%02x/%016x.data", options_.base_path, hash >> 56, hash);
}

int64_t L2FsAdapter::FileBytes(int64_t logical_bytes) const {
  const int64_t scaled = std::llround(static_cast<double>(logical_bytes) * options_.bytes_scale);
  return std::max<int64_t>(kHeaderBytes, scaled);
}

bool L2FsAdapter::Contains(uint64_t hash) const {
  std::lock_guard<std::mutex> lock(mu_);
  return index_.count(hash) != 0;
}

int64_t L2FsAdapter::usage_bytes() const {
  std::lock_guard<std::mutex> lock(mu_);
  return usage_bytes_;
}

size_t L2FsAdapter::object_count() const {
  std::lock_guard<std::mutex> lock(mu_);
  return index_.size();
}

void L2FsAdapter::SubmitStore(std::vector<L2Object> objects) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    std::vector<L2Object> batch;
    batch.reserve(objects.size());
    for (const L2Object& object : objects) {
      if (index_.count(object.hash) != 0 || !pending_.insert(object.hash).second) continue;
      batch.push_back(object);
    }
    if (batch.empty()) return;
    metrics_->RecordL2StoreSubmitted(static_cast<int>(batch.size()));
    queue_.push_back(std::move(batch));
  }
  work_cv_.notify_one();
}

void L2FsAdapter::WaitIdle() {
  std::unique_lock<std::mutex> lock(mu_);
  idle_cv_.wait(lock, [this] { return queue_.empty() && !writing_; });
}

void L2FsAdapter::WriterLoop() {
  std::unique_lock<std::mutex> lock(mu_);
  while (true) {
    work_cv_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
    if (queue_.empty()) break;  // stopping, and everything queued is written
    std::vector<L2Object> batch = std::move(queue_.front());
    queue_.pop_front();
    writing_ = true;
    lock.unlock();
    WriteBatch(batch);
    lock.lock();
    writing_ = false;
    if (queue_.empty()) idle_cv_.notify_all();
  }
}

void L2FsAdapter::WriteBatch(const std::vector<L2Object>& batch) {
  int stored = 0;
  int64_t real_bytes = 0;
  const absl::Duration start = clock_->Monotonic();
  for (const L2Object& object : batch) {
    absl::Status status = WriteObject(object);
    std::lock_guard<std::mutex> lock(mu_);
    pending_.erase(object.hash);
    if (!status.ok()) {
      KV_LOG_EVERY_N_SEC(WARNING, 30)
          << "L2 store failed l2_name=" << name_ << " error=\"" << status.message() << "\"";
      continue;
    }
    EraseLocked(object.hash);  // a concurrent rewrite of the same name: count it once
    lru_.push_front(object.hash);
    index_.emplace(object.hash, Entry{object.bytes, lru_.begin()});
    usage_bytes_ += object.bytes;
    real_bytes += FileBytes(object.bytes);
    ++stored;
  }
  const absl::Duration io_time = clock_->Monotonic() - start;
  metrics_->RecordL2Store(stored, real_bytes, io_time);
  metrics_->SetL2Usage(usage_bytes());
}

bool L2FsAdapter::evicts() const {
  return options_.eviction.has_value() && options_.eviction->policy != "noop" &&
         options_.max_capacity_bytes > 0;
}

int L2FsAdapter::EvictionTick() {
  if (!evicts()) return 0;
  int evicted = 0;
  {
    std::lock_guard<std::mutex> lock(mu_);
    const double capacity = static_cast<double>(options_.max_capacity_bytes);
    if (lru_.empty() ||
        static_cast<double>(usage_bytes_) < options_.eviction->trigger_watermark * capacity) {
      return 0;
    }
    // LRU policy: a share of the tracked keys, at least one (eviction_policy/lru.py@01c71b71).
    const size_t target = std::max<size_t>(
        1, static_cast<size_t>(static_cast<double>(lru_.size()) *
                               std::clamp(options_.eviction->eviction_ratio, 0.0, 1.0)));
    while (static_cast<size_t>(evicted) < target && !lru_.empty()) {
      const uint64_t victim = lru_.back();
      ::unlink(PathOf(victim).c_str());
      EraseLocked(victim);
      ++evicted;
    }
  }
  metrics_->RecordL2Eviction(evicted);
  metrics_->SetL2Usage(usage_bytes());
  return evicted;
}

void L2FsAdapter::EraseLocked(uint64_t hash) {
  auto it = index_.find(hash);
  if (it == index_.end()) return;
  usage_bytes_ -= it->second.bytes;
  real_bytes_on_disk_ -= FileBytes(it->second.bytes);  // its file is gone or replaced
  lru_.erase(it->second.lru_position);
  index_.erase(it);
}

absl::Status L2FsAdapter::WriteObject(const L2Object& object) {
  const int shard = static_cast<int>(object.hash >> 56);
  const std::string path = PathOf(object.hash);
  if (!shard_dirs_made_.test(shard)) {
    std::error_code error;
    std::filesystem::create_directories(std::filesystem::path(path).parent_path(), error);
    if (error)
      return absl::UnavailableError(absl::StrCat("cannot create ", path, ": ", error.message()));
    shard_dirs_made_.set(shard);
  }
  const int64_t file_bytes = FileBytes(object.bytes);
  if (options_.device_bytes > 0 && real_bytes_on_disk_ + file_bytes > options_.device_bytes) {
    // --sim-l2-device-bytes: the pool's disk is full, as write(2) reports it.
    errno = ENOSPC;
    return Errno("cannot write", path + ".tmp");
  }
  char header[kHeaderBytes];
  std::memcpy(header, kMagic, 8);
  PutU64(header + 8, object.hash);
  PutU64(header + 16, static_cast<uint64_t>(object.bytes));
  PutU64(header + 24, static_cast<uint64_t>(file_bytes));
  // Renamed into place so a reader never finds half an object; not fsync'ed: the objects are a
  // simulator's scratch that no one reads after a crash, and a flush per object would add real
  // disk time to the store latency this adapter measures (RecordL2Store's io_time).
  AtomicWriteOptions options;
  options.sync_file = false;
  absl::Status status = WriteFileAtomicallyWith(
      path,
      [&](int fd, const std::string& tmp) {
        absl::Status written = WriteAll(fd, header, kHeaderBytes, tmp);
        for (int64_t left = file_bytes - static_cast<int64_t>(kHeaderBytes);
             written.ok() && left > 0;) {
          size_t n = static_cast<size_t>(std::min<int64_t>(left, kIoBufferBytes));
          written = WriteAll(fd, Filler().data(), n, tmp);
          left -= static_cast<int64_t>(n);
        }
        return written;
      },
      options);
  if (status.ok()) real_bytes_on_disk_ += file_bytes;
  return status;
}

absl::Status L2FsAdapter::ReadObject(uint64_t hash, int64_t logical_bytes) {
  const std::string path = PathOf(hash);
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Errno("cannot open", path);
  std::vector<char> buffer(kIoBufferBytes);
  int64_t total = 0;
  bool header_ok = false;
  absl::Status status;
  while (true) {
    ssize_t n = ::read(fd, buffer.data(), buffer.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      status = Errno("cannot read", path);
      break;
    }
    if (n == 0) break;
    if (total == 0) {
      header_ok = static_cast<size_t>(n) >= kHeaderBytes &&
                  std::memcmp(buffer.data(), kMagic, 8) == 0 && GetU64(buffer.data() + 8) == hash &&
                  GetU64(buffer.data() + 16) == static_cast<uint64_t>(logical_bytes);
    }
    total += n;
  }
  ::close(fd);
  if (!status.ok()) return status;
  if (!header_ok || total != FileBytes(logical_bytes)) {
    return absl::DataLossError(absl::StrCat("chunk file ", path, " is damaged (", total,
                                            " bytes, expected ", FileBytes(logical_bytes), ")"));
  }
  return absl::OkStatus();
}

std::vector<L2Object> L2FsAdapter::Load(const std::vector<uint64_t>& hashes) {
  std::vector<L2Object> loaded;
  if (hashes.empty()) return loaded;
  int64_t real_bytes = 0;
  const absl::Duration start = clock_->Monotonic();
  for (uint64_t hash : hashes) {
    int64_t bytes = 0;
    {
      std::lock_guard<std::mutex> lock(mu_);
      auto it = index_.find(hash);
      if (it == index_.end()) break;
      lru_.splice(lru_.begin(), lru_, it->second.lru_position);
      bytes = it->second.bytes;
    }
    if (absl::Status status = ReadObject(hash, bytes); !status.ok()) {
      KV_LOG_EVERY_N_SEC(WARNING, 30)
          << "L2 load failed l2_name=" << name_ << " error=\"" << status.message() << "\"";
      std::lock_guard<std::mutex> lock(mu_);
      EraseLocked(hash);  // gone or damaged: no longer a hit
      break;
    }
    loaded.push_back(L2Object{hash, bytes});
    real_bytes += FileBytes(bytes);
  }
  metrics_->RecordL2Load(static_cast<int>(loaded.size()), real_bytes, clock_->Monotonic() - start);
  metrics_->SetL2Usage(usage_bytes());
  return loaded;
}

}  // namespace kvbench::sim::lmcache
