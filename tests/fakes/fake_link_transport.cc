#include "tests/fakes/fake_link_transport.h"

#include <utility>

#include "common/log/logging.h"

namespace kvbench::testing {
namespace {

// Ends `state` with `status` once; the callback runs without `mu` held.
void FinishOnce(std::mutex& mu, FakeLinkTransport::StreamState& state, absl::Status status) {
  std::function<void(absl::Status)> on_done;
  {
    std::lock_guard<std::mutex> lock(mu);
    if (state.done) return;
    state.done = true;
    on_done = state.callbacks.on_done;
  }
  if (on_done) on_done(std::move(status));
}

class FakeLinkStream : public agent::LinkStream {
 public:
  FakeLinkStream(std::mutex* mu, std::shared_ptr<FakeLinkTransport::StreamState> state)
      : mu_(mu), state_(std::move(state)) {}
  // Like the gRPC stream: destruction cancels a live stream and reports it done.
  ~FakeLinkStream() override {
    {
      std::lock_guard<std::mutex> lock(*mu_);
      if (!state_->done) state_->cancelled = true;
    }
    FinishOnce(*mu_, *state_, absl::CancelledError("destroyed"));
  }

  void Write(v1::AgentMessage message) override {
    std::lock_guard<std::mutex> lock(*mu_);
    if (!state_->done) state_->writes.push_back(std::move(message));
  }
  void Cancel() override {
    {
      std::lock_guard<std::mutex> lock(*mu_);
      state_->cancelled = true;
    }
    FinishOnce(*mu_, *state_, absl::CancelledError("cancelled by the agent"));
  }

 private:
  std::mutex* mu_;
  std::shared_ptr<FakeLinkTransport::StreamState> state_;
};

}  // namespace

FakeLinkTransport::FakeLinkTransport(Clock* clock) : clock_(clock) {}

std::unique_ptr<agent::LinkStream> FakeLinkTransport::Open(agent::LinkStreamCallbacks callbacks) {
  auto state = std::make_shared<StreamState>();
  state->callbacks = std::move(callbacks);
  std::lock_guard<std::mutex> lock(mu_);
  streams_.push_back(state);
  open_times_.push_back(clock_ != nullptr ? clock_->Monotonic() : absl::ZeroDuration());
  return std::make_unique<FakeLinkStream>(&mu_, std::move(state));
}

int FakeLinkTransport::opens() const {
  std::lock_guard<std::mutex> lock(mu_);
  return static_cast<int>(streams_.size());
}

std::vector<absl::Duration> FakeLinkTransport::open_times() const {
  std::lock_guard<std::mutex> lock(mu_);
  return open_times_;
}

std::shared_ptr<FakeLinkTransport::StreamState> FakeLinkTransport::Stream(int index) const {
  std::lock_guard<std::mutex> lock(mu_);
  KV_CHECK(!streams_.empty()) << "no stream opened";
  const size_t at = index < 0 ? streams_.size() - 1 : static_cast<size_t>(index);
  KV_CHECK(at < streams_.size()) << "no stream " << index;
  return streams_[at];
}

std::vector<v1::AgentMessage> FakeLinkTransport::writes(int index) const {
  std::shared_ptr<StreamState> state = Stream(index);
  std::lock_guard<std::mutex> lock(mu_);
  return state->writes;
}

bool FakeLinkTransport::cancelled(int index) const {
  std::shared_ptr<StreamState> state = Stream(index);
  std::lock_guard<std::mutex> lock(mu_);
  return state->cancelled;
}

bool FakeLinkTransport::done(int index) const {
  std::shared_ptr<StreamState> state = Stream(index);
  std::lock_guard<std::mutex> lock(mu_);
  return state->done;
}

void FakeLinkTransport::Deliver(v1::ControllerMessage message) {
  std::shared_ptr<StreamState> state = Stream(-1);
  std::function<void(v1::ControllerMessage)> on_message;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (state->done) return;
    on_message = state->callbacks.on_message;
  }
  on_message(std::move(message));
}

void FakeLinkTransport::Finish(absl::Status status) {
  FinishOnce(mu_, *Stream(-1), std::move(status));
}

}  // namespace kvbench::testing
