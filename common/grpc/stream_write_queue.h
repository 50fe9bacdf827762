#pragma once

#include <deque>
#include <functional>
#include <utility>

namespace kvbench {

// The "one write in flight" rule of gRPC's callback streams (a reactor may not call StartWrite
// again before OnWriteDone), written once for every reactor: messages queue in order, the next
// write starts from OnWriteDone, and after a failed write or Close nothing more is written.
//
// No gRPC here: `start_write` is the reactor's StartWrite (a fake in the tests). The message it is
// given lives, untouched, in the queue until the next OnWriteDone, as grpcpp's StartWrite requires
// (grpcpp/support/server_callback.h and client_callback.h, gRPC 1.51 in Debian 12). Not
// thread-safe: the owner serialises every call (its mutex or its loop thread), including the one
// that reports OnWriteDone.
template <typename Message>
class StreamWriteQueue {
 public:
  using StartWrite = std::function<void(const Message*)>;

  explicit StreamWriteQueue(StartWrite start_write) : start_write_(std::move(start_write)) {}

  StreamWriteQueue(const StreamWriteQueue&) = delete;
  StreamWriteQueue& operator=(const StreamWriteQueue&) = delete;

  // Queues `message`; writes it at once when nothing is in flight. False (and drops it) once
  // closed.
  bool Write(Message message) {
    if (closed_) return false;
    queue_.push_back(std::move(message));
    if (!writing_) StartNext();
    return true;
  }

  // The reactor's OnWriteDone. A failed write closes the queue (the stream is broken). Runs the
  // action Close deferred, else starts the next queued write.
  void OnWriteDone(bool ok) {
    writing_ = false;
    if (!ok) Drop();
    if (after_close_) {
      std::function<void()> action = std::move(after_close_);
      after_close_ = nullptr;
      action();
      return;
    }
    if (!closed_ && !queue_.empty()) StartNext();
  }

  // Drops what is queued and refuses later writes. `then` (e.g. the reactor's Finish) runs now when
  // no write is in flight, else once it completes; only the first `then` given ever runs, so a
  // reactor finishes exactly once however many paths ask it to.
  void Close(std::function<void()> then = nullptr) {
    Drop();
    if (!then || then_given_) return;
    then_given_ = true;
    if (writing_) {
      after_close_ = std::move(then);
    } else {
      then();
    }
  }

  bool writing() const { return writing_; }
  bool closed() const { return closed_; }
  bool empty() const { return queue_.empty(); }

 private:
  void StartNext() {
    in_flight_ = std::move(queue_.front());
    queue_.pop_front();
    writing_ = true;
    start_write_(&in_flight_);
  }

  void Drop() {
    closed_ = true;
    queue_.clear();
  }

  const StartWrite start_write_;
  std::deque<Message> queue_;
  Message in_flight_{};
  bool writing_ = false;
  bool closed_ = false;
  bool then_given_ = false;
  std::function<void()> after_close_;
};

}  // namespace kvbench
