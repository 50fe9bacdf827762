#include "agent/sim/lmcache/zmq_service.h"

#include <cerrno>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "common/log/logging.h"

namespace kvbench::sim::lmcache {
namespace {

// A worker never waits longer than this to hand a reply to the poller (only at shutdown could it).
constexpr int kWorkerSendTimeoutMs = 1000;

std::string UniqueInprocAddress() {
  static std::atomic<uint64_t> next{0};
  return absl::StrCat("inproc://kvsim-lmcache-replies-", next.fetch_add(1));
}

std::string ToString(const zmq::message_t& message) {
  return std::string(static_cast<const char*>(message.data()), message.size());
}

}  // namespace

absl::StatusOr<std::unique_ptr<ZmqService>> ZmqService::Create(const std::string& endpoint,
                                                               int num_workers,
                                                               RequestHandler* handler) {
  std::unique_ptr<ZmqService> service(new ZmqService(num_workers < 1 ? 1 : num_workers, handler));
  try {
    service->router_.set(zmq::sockopt::linger, 0);
    service->router_.bind(endpoint);
    service->replies_.set(zmq::sockopt::linger, 0);
    service->replies_.bind(service->replies_address_);
  } catch (const zmq::error_t& error) {
    return absl::UnavailableError(
        absl::StrCat("cannot bind the ZMQ socket at ", endpoint, ": ", error.what()));
  }
  service->endpoint_ = service->router_.get(zmq::sockopt::last_endpoint);
  size_t colon = service->endpoint_.rfind(':');
  if (colon == std::string::npos ||
      !absl::SimpleAtoi(absl::string_view(service->endpoint_).substr(colon + 1), &service->port_)) {
    return absl::InternalError(
        absl::StrCat("cannot read the port of the bound endpoint ", service->endpoint_));
  }
  return service;
}

ZmqService::ZmqService(int num_workers, RequestHandler* handler)
    : num_workers_(num_workers),
      handler_(handler),
      replies_address_(UniqueInprocAddress()),
      context_(1),
      router_(context_, zmq::socket_type::router),
      replies_(context_, zmq::socket_type::pull) {}

ZmqService::~ZmqService() { Stop(); }

void ZmqService::Start() {
  if (started_) return;
  started_ = true;
  for (int i = 0; i < num_workers_; ++i) workers_.emplace_back([this] { WorkerLoop(); });
  poller_ = std::thread([this] { PollLoop(); });
}

void ZmqService::Stop() {
  if (!started_ || stopped_) return;
  stopped_ = true;
  {
    // A single empty frame on the reply channel tells the poller to return.
    zmq::socket_t stop(context_, zmq::socket_type::push);
    stop.set(zmq::sockopt::linger, 1000);
    stop.connect(replies_address_);
    stop.send(zmq::message_t(), zmq::send_flags::none);
  }
  poller_.join();
  {
    std::lock_guard<std::mutex> lock(mu_);
    workers_stop_ = true;
  }
  jobs_cv_.notify_all();
  for (std::thread& worker : workers_) worker.join();
  router_.close();
  replies_.close();
}

void ZmqService::PollLoop() {
  zmq::pollitem_t items[] = {{static_cast<void*>(router_), 0, ZMQ_POLLIN, 0},
                             {static_cast<void*>(replies_), 0, ZMQ_POLLIN, 0}};
  while (true) {
    try {
      zmq::poll(items, 2);
      if ((items[1].revents & ZMQ_POLLIN) != 0 && !ForwardReply()) return;
      if ((items[0].revents & ZMQ_POLLIN) != 0) ReceiveRequest();
    } catch (const zmq::error_t& error) {
      if (error.num() == EINTR) continue;
      if (error.num() == ETERM) return;
      KV_LOG_EVERY_N_SEC(ERROR, 30) << "ZMQ poller error=\"" << error.what() << "\"";
    }
  }
}

bool ZmqService::ForwardReply() {
  std::vector<zmq::message_t> frames;
  do {
    zmq::message_t frame;
    if (!replies_.recv(frame, zmq::recv_flags::dontwait)) break;
    frames.push_back(std::move(frame));
  } while (replies_.get(zmq::sockopt::rcvmore) != 0);
  if (frames.size() == 1 && frames[0].size() == 0) return false;  // the stop signal
  for (size_t i = 0; i < frames.size(); ++i) {
    const bool last = i + 1 == frames.size();
    // An unknown identity (a client that left) is dropped by the ROUTER.
    router_.send(frames[i], last ? zmq::send_flags::none : zmq::send_flags::sndmore);
  }
  return true;
}

void ZmqService::ReceiveRequest() {
  Job job;
  bool more = true;
  while (more) {
    zmq::message_t frame;
    if (!router_.recv(frame, zmq::recv_flags::dontwait)) return;
    more = router_.get(zmq::sockopt::rcvmore) != 0;
    if (more) {
      job.envelope.push_back(ToString(frame));
    } else {
      job.request = ToString(frame);
    }
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    jobs_.push_back(std::move(job));
  }
  jobs_cv_.notify_one();
}

void ZmqService::WorkerLoop() {
  zmq::socket_t out(context_, zmq::socket_type::push);
  out.set(zmq::sockopt::linger, 0);
  out.set(zmq::sockopt::sndtimeo, kWorkerSendTimeoutMs);
  out.connect(replies_address_);
  while (true) {
    Job job;
    {
      std::unique_lock<std::mutex> lock(mu_);
      jobs_cv_.wait(lock, [this] { return workers_stop_ || !jobs_.empty(); });
      if (workers_stop_) return;
      job = std::move(jobs_.front());
      jobs_.pop_front();
    }
    std::string reply = handler_->Handle(job.request);
    try {
      for (const std::string& frame : job.envelope) {
        out.send(zmq::buffer(frame), zmq::send_flags::sndmore);
      }
      out.send(zmq::buffer(reply), zmq::send_flags::none);
    } catch (const zmq::error_t& error) {
      KV_LOG_EVERY_N_SEC(WARNING, 30) << "dropped a reply error=\"" << error.what() << "\"";
    }
  }
}

}  // namespace kvbench::sim::lmcache
