#include "agent/sim/clock/sim_clock.h"

#include <fcntl.h>
#include <linux/futex.h>
#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <ctime>

#include "absl/strings/str_cat.h"
#include "common/files/atomic_file.h"

namespace kvbench::sim {

namespace {

constexpr uint64_t kMagic = 0x6b7673696d636c6bULL;  // "kvsimclk"
constexpr uint32_t kLayoutVersion = 2;

struct RankSlot {
  int32_t joined;
  int32_t phase;     // of next_s
  double next_s;     // < 0: no event
  int32_t arrivals;  // a kStep at the current time is due
  int32_t pid;       // the process that joined
};

// How often a waiter checks that the participant it waits for still lives.
constexpr int64_t kLivenessCheckNs = 200'000'000;

bool ProcessGone(int32_t pid) { return pid > 0 && kill(pid, 0) != 0 && errno == ESRCH; }

int64_t MonotonicNs() {
  timespec now{};
  clock_gettime(CLOCK_MONOTONIC, &now);
  return int64_t{now.tv_sec} * 1000000000 + now.tv_nsec;
}

timespec AbsoluteTime(int64_t ns) {
  timespec at{};
  at.tv_sec = static_cast<time_t>(ns / 1000000000);
  at.tv_nsec = static_cast<long>(ns % 1000000000);
  return at;
}

}  // namespace

struct SimClockShared {
  uint64_t magic;
  uint32_t layout_version;
  int32_t turn_holder;  // -1: none
  pthread_mutex_t mu;   // robust, process-shared
  // Bumped on every change, then futex-woken: a futex word, not a process-shared condition
  // variable, whose internal lock a participant killed inside a wait would hold forever.
  uint32_t changed;
  double time_scale;
  double stall_after_s;
  double now_s;
  int64_t in_flight;
  int64_t stalls;
  int64_t progress_wall_ns;  // when anything last changed
  int64_t anchor_wall_ns;    // the last turn's start, wall
  double anchor_sim_s;       // and simulated
  RankSlot ranks[SimClock::kMaxRanks];
};

namespace {

// Locks `shared->mu`, taking over from a holder that died (its state is whole: every update
// under the lock is a few plain stores).
class SharedLock {
 public:
  explicit SharedLock(SimClockShared* shared) : shared_(shared) {
    if (pthread_mutex_lock(&shared_->mu) == EOWNERDEAD) pthread_mutex_consistent(&shared_->mu);
  }
  ~SharedLock() { pthread_mutex_unlock(&shared_->mu); }
  SharedLock(const SharedLock&) = delete;
  SharedLock& operator=(const SharedLock&) = delete;

  // Waits for a change (Broadcast), or until `deadline_ns` (monotonic) when >= 0.
  void Wait(int64_t deadline_ns) {
    const uint32_t seen = __atomic_load_n(&shared_->changed, __ATOMIC_ACQUIRE);
    pthread_mutex_unlock(&shared_->mu);
    const timespec at = AbsoluteTime(deadline_ns);
    // FUTEX_WAIT_BITSET takes an absolute CLOCK_MONOTONIC time; returns at once if the word
    // moved since it was read under the lock, so no wake-up is lost.
    syscall(SYS_futex, &shared_->changed, FUTEX_WAIT_BITSET, seen, deadline_ns < 0 ? nullptr : &at,
            nullptr, FUTEX_BITSET_MATCH_ANY);
    if (pthread_mutex_lock(&shared_->mu) == EOWNERDEAD) pthread_mutex_consistent(&shared_->mu);
  }

 private:
  SimClockShared* shared_;
};

void Touch(SimClockShared* shared) { shared->progress_wall_ns = MonotonicNs(); }

// Wakes every waiter (in any process).
void Broadcast(SimClockShared* shared) {
  __atomic_add_fetch(&shared->changed, 1, __ATOMIC_RELEASE);
  syscall(SYS_futex, &shared->changed, FUTEX_WAKE, INT32_MAX, nullptr, nullptr, 0);
}

// The event of `slot` at current time `now_s`: false when it has none. Arrivals make a kStep now
// only for a participant with no event of its own: one whose step is under way takes them with
// the step after it, once that step's outputs went out (as vLLM's engine loop does).
bool EventOf(const RankSlot& slot, double now_s, double* time_s, int32_t* phase) {
  if (slot.next_s >= 0) {
    *time_s = slot.next_s;
    *phase = slot.phase;
    return true;
  }
  if (slot.arrivals == 0) return false;
  *time_s = now_s;
  *phase = SimClock::kStep;
  return true;
}

// The rank whose event comes first by (time, phase, rank); -1 when no one has one.
int EarliestRank(const SimClockShared& shared, double* time_s, int32_t* phase) {
  int best = -1;
  for (int rank = 0; rank < SimClock::kMaxRanks; ++rank) {
    const RankSlot& slot = shared.ranks[rank];
    double t;
    int32_t p;
    if (slot.joined == 0 || !EventOf(slot, shared.now_s, &t, &p)) continue;
    if (best < 0 || t < *time_s || (t == *time_s && p < *phase)) {
      best = rank;
      *time_s = t;
      *phase = p;
    }
  }
  return best;
}

absl::Status Errno(const std::string& what, const std::string& path) {
  return absl::FailedPreconditionError(
      absl::StrCat("sim clock ", path, ": ", what, ": ", std::strerror(errno)));
}

// Lays out a fresh clock in the empty file `fd` (named `temp`), magic last.
absl::Status InitShared(int fd, const std::string& temp, double time_scale, double stall_after_s) {
  if (ftruncate(fd, sizeof(SimClockShared)) != 0) return Errno("cannot size", temp);
  void* mapped = mmap(nullptr, sizeof(SimClockShared), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (mapped == MAP_FAILED) return Errno("cannot map", temp);
  auto* shared = static_cast<SimClockShared*>(mapped);
  std::memset(shared, 0, sizeof(SimClockShared));
  pthread_mutexattr_t mutex_attr;
  pthread_mutexattr_init(&mutex_attr);
  pthread_mutexattr_setpshared(&mutex_attr, PTHREAD_PROCESS_SHARED);
  pthread_mutexattr_setrobust(&mutex_attr, PTHREAD_MUTEX_ROBUST);
  pthread_mutex_init(&shared->mu, &mutex_attr);
  pthread_mutexattr_destroy(&mutex_attr);
  shared->turn_holder = -1;
  shared->time_scale = time_scale;
  shared->stall_after_s = stall_after_s;
  shared->anchor_wall_ns = MonotonicNs();
  shared->progress_wall_ns = shared->anchor_wall_ns;
  for (RankSlot& slot : shared->ranks) slot.next_s = -1;
  shared->layout_version = kLayoutVersion;
  shared->magic = kMagic;  // last: a reader that sees it sees the rest (msync orders the file)
  msync(mapped, sizeof(SimClockShared), MS_SYNC);
  munmap(mapped, sizeof(SimClockShared));
  return absl::OkStatus();
}

}  // namespace

absl::Status SimClock::Create(const std::string& path, double time_scale, double stall_after_s) {
  if (!(time_scale > 0) || !(stall_after_s > 0)) {
    return absl::InvalidArgumentError(absl::StrCat("sim clock ", path, ": time scale ", time_scale,
                                                   " and stall timeout ", stall_after_s,
                                                   " s must be positive"));
  }
  // The mapped file is laid out whole under the temp name: an Open never maps a half-made clock.
  AtomicWriteOptions options;
  options.mode = 0600;
  return WriteFileAtomicallyWith(
      path,
      [&](int fd, const std::string& temp) {
        return InitShared(fd, temp, time_scale, stall_after_s);
      },
      options);
}

absl::StatusOr<std::unique_ptr<SimClock>> SimClock::Open(const std::string& path) {
  const int fd = open(path.c_str(), O_RDWR | O_CLOEXEC);
  if (fd < 0) return Errno("cannot open", path);
  struct stat info {};
  if (fstat(fd, &info) != 0 || info.st_size != static_cast<off_t>(sizeof(SimClockShared))) {
    close(fd);
    return absl::FailedPreconditionError(
        absl::StrCat("sim clock ", path, ": not a clock file of this build (", info.st_size,
                     " bytes, expected ", sizeof(SimClockShared), ")"));
  }
  void* mapped = mmap(nullptr, sizeof(SimClockShared), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (mapped == MAP_FAILED) {
    absl::Status status = Errno("cannot map", path);
    close(fd);
    return status;
  }
  auto* shared = static_cast<SimClockShared*>(mapped);
  if (shared->magic != kMagic || shared->layout_version != kLayoutVersion) {
    munmap(mapped, sizeof(SimClockShared));
    close(fd);
    return absl::FailedPreconditionError(
        absl::StrCat("sim clock ", path, ": not a clock file of this build (bad header)"));
  }
  return std::unique_ptr<SimClock>(new SimClock(fd, shared));
}

SimClock::SimClock(int fd, SimClockShared* shared) : fd_(fd), shared_(shared) {}

SimClock::~SimClock() {
  munmap(shared_, sizeof(SimClockShared));
  close(fd_);
}

double SimClock::time_scale() const { return shared_->time_scale; }

double SimClock::NowSeconds() const {
  SharedLock lock(shared_);
  return shared_->now_s;
}

int64_t SimClock::stalls() const {
  SharedLock lock(shared_);
  return shared_->stalls;
}

void SimClock::Sent(int count) {
  SharedLock lock(shared_);
  shared_->in_flight += count;
  Touch(shared_);
}

void SimClock::Received(int count) {
  SharedLock lock(shared_);
  // After a stall wrote the count off, a late receipt must not leave it negative.
  shared_->in_flight = std::max<int64_t>(shared_->in_flight - count, 0);
  Touch(shared_);
  if (shared_->in_flight == 0) Broadcast(shared_);
}

void SimClock::Join(int rank) {
  SharedLock lock(shared_);
  RankSlot& slot = shared_->ranks[rank];
  slot.joined = 1;
  slot.next_s = -1;
  slot.arrivals = 0;
  slot.pid = static_cast<int32_t>(getpid());
  Touch(shared_);
  Broadcast(shared_);
}

void SimClock::Leave(int rank) {
  SharedLock lock(shared_);
  shared_->ranks[rank].joined = 0;
  if (shared_->turn_holder == rank) shared_->turn_holder = -1;
  Touch(shared_);
  Broadcast(shared_);
}

void SimClock::MarkArrivals(int rank) {
  SharedLock lock(shared_);
  shared_->ranks[rank].arrivals = 1;
  Touch(shared_);
  Broadcast(shared_);
}

void SimClock::Wake() {
  SharedLock lock(shared_);
  Broadcast(shared_);
}

std::optional<SimClock::Turn> SimClock::AwaitTurn(int rank,
                                                  const std::function<bool()>& cancelled) {
  SharedLock lock(shared_);
  const auto stall_ns = static_cast<int64_t>(shared_->stall_after_s * 1e9);
  while (true) {
    if (cancelled()) return std::nullopt;
    const int64_t now_ns = MonotonicNs();
    if (shared_->turn_holder >= 0) {
      // A holder that died (a replica killed mid-turn) would hold it forever.
      if (ProcessGone(shared_->ranks[shared_->turn_holder].pid)) {
        shared_->ranks[shared_->turn_holder].joined = 0;
        shared_->turn_holder = -1;
        Touch(shared_);
        continue;
      }
      lock.Wait(now_ns + kLivenessCheckNs);
      continue;
    }
    if (shared_->in_flight > 0) {
      const int64_t deadline = shared_->progress_wall_ns + stall_ns;
      if (now_ns < deadline) {
        lock.Wait(deadline);
        continue;
      }
      ++shared_->stalls;  // a message nobody will receive: write it off, time goes on
      shared_->in_flight = 0;
      Touch(shared_);
      Broadcast(shared_);
    }
    double time_s = 0;
    int32_t phase = kStep;
    const int earliest = EarliestRank(*shared_, &time_s, &phase);
    if (earliest != rank) {
      // A participant that died with an event pending would stop time for everyone.
      if (earliest >= 0 && ProcessGone(shared_->ranks[earliest].pid)) {
        shared_->ranks[earliest].joined = 0;
        Touch(shared_);
        continue;
      }
      lock.Wait(earliest >= 0 ? now_ns + kLivenessCheckNs : -1);
      continue;
    }
    const double gap_s = std::max(time_s - shared_->anchor_sim_s, 0.0);
    const int64_t target_ns =
        shared_->anchor_wall_ns + static_cast<int64_t>(std::llround(gap_s * time_scale() * 1e9));
    if (now_ns < target_ns) {
      lock.Wait(target_ns);
      continue;
    }
    shared_->turn_holder = rank;
    shared_->now_s = std::max(shared_->now_s, time_s);
    shared_->anchor_wall_ns = now_ns;
    shared_->anchor_sim_s = shared_->now_s;
    Touch(shared_);
    Turn turn;
    turn.time_s = shared_->now_s;
    turn.phase = static_cast<Phase>(phase);
    turn.late_real_s = phase == kDeliver ? static_cast<double>(now_ns - target_ns) / 1e9 : 0;
    return turn;
  }
}

void SimClock::EndTurn(int rank, double next_s, Phase next_phase, bool arrivals_pending) {
  SharedLock lock(shared_);
  RankSlot& slot = shared_->ranks[rank];
  slot.next_s = next_s;
  slot.phase = next_phase;
  slot.arrivals = arrivals_pending ? 1 : 0;
  if (shared_->turn_holder == rank) shared_->turn_holder = -1;
  Touch(shared_);
  Broadcast(shared_);
}

}  // namespace kvbench::sim
