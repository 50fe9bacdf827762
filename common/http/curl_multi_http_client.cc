#include "common/http/curl_multi_http_client.h"

#include <curl/curl.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <system_error>
#include <thread>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "common/http/curl_exchange.h"
#include "common/log/logging.h"
#include "common/status/status_macros.h"

namespace kvbench {
namespace {

using SteadyClock = std::chrono::steady_clock;

// epoll events taken per wait.
constexpr int kMaxEventsPerWait = 256;

int ToCurlEvents(uint32_t events) {
  int flags = 0;
  if (events & (EPOLLIN | EPOLLHUP | EPOLLERR)) flags |= CURL_CSELECT_IN;
  if (events & (EPOLLOUT | EPOLLERR)) flags |= CURL_CSELECT_OUT;
  return flags;
}

absl::Status ErrnoError(absl::string_view what) {
  return absl::InternalError(absl::StrCat(what, ": ", std::strerror(errno)));
}

std::once_flag g_curl_init_once;
CURLcode g_curl_init_result = CURLE_OK;

}  // namespace

// One multi handle and the thread that drives it with curl_multi_socket_action over epoll.
class CurlMultiHttpClient::IoThread {
 public:
  static absl::StatusOr<std::unique_ptr<IoThread>> Create(const Options& options,
                                                          CurlMultiHttpClient* client) {
    std::unique_ptr<IoThread> io(new IoThread(client));
    KV_RETURN_IF_ERROR(io->Init(options));
    return io;
  }

  // Stop(), then frees handles: the multi handle (closing cached connections) before the epoll
  // set its socket callback still updates.
  ~IoThread() {
    Stop();
    exchanges_.clear();
    if (multi_ != nullptr) curl_multi_cleanup(multi_);
    if (wake_fd_ >= 0) close(wake_fd_);
    if (epoll_fd_ >= 0) close(epoll_fd_);
  }

  // The I/O thread running the caller, if it belongs to `client`.
  static IoThread* Current(const CurlMultiHttpClient* client) {
    return current_ != nullptr && current_->client_ == client ? current_ : nullptr;
  }

  void Start(const AsyncHttpRequest& request, AsyncHttpObserver* observer) {
    const bool on_this_thread = current_ == this;
    CurlExchange* exchange = Acquire(/*even_when_stopping=*/on_this_thread);
    if (exchange == nullptr) return CancelNow(observer);
    exchange->Prepare(request, observer);
    if (on_this_thread) {
      local_.push_back(exchange);  // begins before the loop waits again
      return;
    }
    bool wake = false;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (!stopping_) {
        wake = queued_.empty();  // else a wakeup is already on its way
        queued_.push_back(std::exchange(exchange, nullptr));
      }
    }
    if (exchange != nullptr) {
      exchange->Finish();
      Release(exchange);
      return CancelNow(observer);
    }
    if (wake) Wake();
  }

  // Cancels every exchange and joins the thread. Idempotent; never from this thread.
  void Stop() {
    KV_CHECK(current_ != this) << "CurlMultiHttpClient::Shutdown called from an observer";
    {
      std::lock_guard<std::mutex> lock(mu_);
      stopping_ = true;
    }
    if (!thread_.joinable()) return;
    Wake();
    thread_.join();
  }

 private:
  explicit IoThread(CurlMultiHttpClient* client) : client_(client) {}

  absl::Status Init(const Options& options) {
    multi_ = curl_multi_init();
    if (multi_ == nullptr) return absl::InternalError("curl_multi_init failed");
    epoll_fd_ = epoll_create1(EPOLL_CLOEXEC);
    if (epoll_fd_ < 0) return ErrnoError("epoll_create1");
    wake_fd_ = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (wake_fd_ < 0) return ErrnoError("eventfd");
    epoll_event event{};
    event.events = EPOLLIN;
    event.data.fd = wake_fd_;
    if (epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, wake_fd_, &event) != 0) return ErrnoError("epoll_ctl");
    CURLMcode result = CURLM_OK;
    auto set = [&](CURLMoption option, auto value) {
      if (result == CURLM_OK) result = curl_multi_setopt(multi_, option, value);
    };
    set(CURLMOPT_SOCKETFUNCTION, &IoThread::OnSocket);
    set(CURLMOPT_SOCKETDATA, static_cast<void*>(this));
    set(CURLMOPT_TIMERFUNCTION, &IoThread::OnTimer);
    set(CURLMOPT_TIMERDATA, static_cast<void*>(this));
    set(CURLMOPT_PIPELINING, static_cast<long>(CURLPIPE_NOTHING));
    set(CURLMOPT_MAXCONNECTS, kMaxCachedConnectionsPerThread);
    set(CURLMOPT_MAX_HOST_CONNECTIONS, static_cast<long>(options.max_connections_per_host));
    if (result != CURLM_OK) {
      return absl::InternalError(absl::StrCat("curl_multi_setopt: ", curl_multi_strerror(result)));
    }
    try {
      thread_ = std::thread([this] { Run(); });
    } catch (const std::system_error& error) {
      return absl::InternalError(absl::StrCat("cannot start an I/O thread: ", error.what()));
    }
    return absl::OkStatus();
  }

  void Run() {
    current_ = this;
    epoll_event events[kMaxEventsPerWait];
    bool running = true;
    while (running) {
      const int ready = epoll_wait(epoll_fd_, events, kMaxEventsPerWait, EpollTimeoutMs());
      KV_CHECK(ready >= 0 || errno == EINTR) << "epoll_wait: " << std::strerror(errno);
      int still_running = 0;
      for (int i = 0; i < ready; ++i) {
        if (events[i].data.fd == wake_fd_) {
          uint64_t count = 0;
          [[maybe_unused]] const ssize_t got = read(wake_fd_, &count, sizeof(count));
          running = TakeQueued();
          continue;
        }
        curl_multi_socket_action(multi_, events[i].data.fd, ToCurlEvents(events[i].events),
                                 &still_running);
      }
      if (timer_.has_value() && SteadyClock::now() >= *timer_) {
        timer_.reset();  // OnTimer may set the next one
        curl_multi_socket_action(multi_, CURL_SOCKET_TIMEOUT, 0, &still_running);
      }
      DrainDone();
      BeginLocal();  // new exchanges set a zero timer: the next wait returns at once
    }
    CancelEverything();
  }

  int EpollTimeoutMs() const {
    if (!timer_.has_value()) return -1;
    const auto left = *timer_ - SteadyClock::now();
    if (left <= SteadyClock::duration::zero()) return 0;
    const auto millis = std::chrono::ceil<std::chrono::milliseconds>(left).count();
    return static_cast<int>(std::min<int64_t>(millis, INT32_MAX));
  }

  // Moves exchanges started on other threads to local_; false once stopping.
  bool TakeQueued() {
    std::lock_guard<std::mutex> lock(mu_);
    local_.insert(local_.end(), queued_.begin(), queued_.end());
    queued_.clear();
    return !stopping_;
  }

  void BeginLocal() {
    while (!local_.empty()) {  // a failed Begin completes at once; its observer may Start again
      beginning_.swap(local_);
      for (CurlExchange* exchange : beginning_) Begin(exchange);
      beginning_.clear();
    }
  }

  void Begin(CurlExchange* exchange) {
    if (exchange->failure().ok()) {
      const CURLMcode code = curl_multi_add_handle(multi_, exchange->easy());
      if (code == CURLM_OK) {
        exchange->set_slot(active_.size());
        active_.push_back(exchange);
        return;
      }
      exchange->set_failure(
          absl::InternalError(absl::StrCat("curl_multi_add_handle: ", curl_multi_strerror(code))));
    }
    Complete(exchange, exchange->failure());
  }

  void DrainDone() {
    int left = 0;
    while (CURLMsg* message = curl_multi_info_read(multi_, &left)) {
      if (message->msg != CURLMSG_DONE) continue;
      CurlExchange* exchange = CurlExchange::FromHandle(message->easy_handle);
      Complete(exchange, exchange->ResultStatus(message->data.result));
    }
  }

  void Complete(CurlExchange* exchange, absl::Status status) {
    const MonotonicTime end = SteadyClock::now();
    if (const size_t slot = exchange->slot(); slot != CurlExchange::kNoSlot) {
      curl_multi_remove_handle(multi_, exchange->easy());  // a finished connection stays cached
      active_[slot] = active_.back();
      active_[slot]->set_slot(slot);
      active_.pop_back();
      exchange->set_slot(CurlExchange::kNoSlot);
    }
    AsyncHttpObserver* observer = exchange->Finish();
    Release(exchange);  // first, so a Start from OnComplete can take this warm handle
    observer->OnComplete(std::move(status), end);
    client_->in_flight_.fetch_sub(1, std::memory_order_acq_rel);
  }

  void CancelEverything() {
    TakeQueued();
    while (!active_.empty() || !local_.empty()) {  // observers may Start again while cancelled
      CurlExchange* exchange = active_.empty() ? local_.back() : active_.back();
      if (active_.empty()) local_.pop_back();
      Complete(exchange, exchange->CancelledStatus("cancelled by CurlMultiHttpClient::Shutdown"));
    }
  }

  void CancelNow(AsyncHttpObserver* observer) {
    observer->OnComplete(absl::CancelledError("CurlMultiHttpClient is shut down"),
                         SteadyClock::now());
    client_->in_flight_.fetch_sub(1, std::memory_order_acq_rel);
  }

  // A free exchange, or a new one; null when stopping, unless `even_when_stopping`.
  CurlExchange* Acquire(bool even_when_stopping) {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_ && !even_when_stopping) return nullptr;
    if (!free_.empty()) {
      CurlExchange* exchange = free_.back();  // the most recently used
      free_.pop_back();
      return exchange;
    }
    exchanges_.push_back(std::make_unique<CurlExchange>());
    return exchanges_.back().get();
  }

  void Release(CurlExchange* exchange) {
    std::lock_guard<std::mutex> lock(mu_);
    free_.push_back(exchange);
  }

  void Wake() {
    const uint64_t one = 1;
    [[maybe_unused]] const ssize_t written = write(wake_fd_, &one, sizeof(one));
  }

  // CURLMOPT_SOCKETFUNCTION: keeps the epoll set in step with the sockets curl waits on.
  static int OnSocket(CURL*, curl_socket_t socket, int what, void* user, void* registered) {
    auto* self = static_cast<IoThread*>(user);
    if (what == CURL_POLL_REMOVE) {
      epoll_ctl(self->epoll_fd_, EPOLL_CTL_DEL, socket, nullptr);  // fails if already closed
      return 0;
    }
    epoll_event event{};
    event.events =
        ((what & CURL_POLL_IN) ? EPOLLIN : 0u) | ((what & CURL_POLL_OUT) ? EPOLLOUT : 0u);
    event.data.fd = socket;
    if (registered != nullptr && epoll_ctl(self->epoll_fd_, EPOLL_CTL_MOD, socket, &event) == 0) {
      return 0;
    }
    if (epoll_ctl(self->epoll_fd_, EPOLL_CTL_ADD, socket, &event) != 0 && errno == EEXIST) {
      epoll_ctl(self->epoll_fd_, EPOLL_CTL_MOD, socket, &event);
    }
    curl_multi_assign(self->multi_, socket, self);  // marks the socket registered
    return 0;
  }

  // CURLMOPT_TIMERFUNCTION: when Run must call curl_multi_socket_action(CURL_SOCKET_TIMEOUT).
  static int OnTimer(CURLM*, long timeout_ms, void* user) {
    auto* self = static_cast<IoThread*>(user);
    if (timeout_ms < 0) {
      self->timer_.reset();
    } else {
      self->timer_ = SteadyClock::now() + std::chrono::milliseconds(timeout_ms);
    }
    return 0;
  }

  static thread_local IoThread* current_;

  CurlMultiHttpClient* const client_;
  CURLM* multi_ = nullptr;
  int epoll_fd_ = -1;
  int wake_fd_ = -1;
  // The I/O thread's own state.
  std::optional<SteadyClock::time_point> timer_;
  std::vector<CurlExchange*> active_;     // added to multi_
  std::vector<CurlExchange*> local_;      // to begin in this iteration
  std::vector<CurlExchange*> beginning_;  // local_'s batch being begun
  // Shared with starting threads.
  std::mutex mu_;
  std::vector<std::unique_ptr<CurlExchange>> exchanges_;  // guarded by mu_: every one made
  std::vector<CurlExchange*> free_;                       // guarded by mu_
  std::vector<CurlExchange*> queued_;                     // guarded by mu_
  bool stopping_ = false;                                 // guarded by mu_
  std::thread thread_;
};

thread_local CurlMultiHttpClient::IoThread* CurlMultiHttpClient::IoThread::current_ = nullptr;

CurlMultiHttpClient::CurlMultiHttpClient() = default;

absl::StatusOr<std::unique_ptr<CurlMultiHttpClient>> CurlMultiHttpClient::Create() {
  return Create(Options());
}

absl::StatusOr<std::unique_ptr<CurlMultiHttpClient>> CurlMultiHttpClient::Create(
    const Options& options) {
  if (options.io_threads < 1 || options.max_connections_per_host < 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "CurlMultiHttpClient needs io_threads >= 1 and max_connections_per_host >= 0, got ",
        options.io_threads, " and ", options.max_connections_per_host));
  }
  std::call_once(g_curl_init_once, [] { g_curl_init_result = curl_global_init(CURL_GLOBAL_ALL); });
  if (g_curl_init_result != CURLE_OK) {
    return absl::InternalError(
        absl::StrCat("curl_global_init failed: ", curl_easy_strerror(g_curl_init_result)));
  }
  std::unique_ptr<CurlMultiHttpClient> client(new CurlMultiHttpClient());
  for (int i = 0; i < options.io_threads; ++i) {
    KV_ASSIGN_OR_RETURN(std::unique_ptr<IoThread> io, IoThread::Create(options, client.get()));
    client->io_threads_.push_back(std::move(io));
  }
  return client;
}

CurlMultiHttpClient::~CurlMultiHttpClient() { Shutdown(); }

void CurlMultiHttpClient::Start(const AsyncHttpRequest& request, AsyncHttpObserver* observer) {
  in_flight_.fetch_add(1, std::memory_order_acq_rel);
  IoThread* io = IoThread::Current(this);
  if (io == nullptr) {
    const size_t count = io_threads_.size();
    io = io_threads_[count == 1 ? 0 : next_thread_.fetch_add(1, std::memory_order_relaxed) % count]
             .get();
  }
  io->Start(request, observer);
}

void CurlMultiHttpClient::Shutdown() {
  std::lock_guard<std::mutex> lock(shutdown_mu_);
  if (shut_down_) return;
  shut_down_ = true;
  for (const std::unique_ptr<IoThread>& io : io_threads_) io->Stop();
}

}  // namespace kvbench
