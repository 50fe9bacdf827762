#include "common/grpc/stream_write_queue.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <string>
#include <vector>

namespace kvbench {
namespace {

// A fake reactor: records what StartWrite was given, and how many writes are in flight.
struct FakeStream {
  std::vector<std::string> started;
  int in_flight = 0;
  int max_in_flight = 0;
  std::vector<std::string> finished;

  StreamWriteQueue<std::string>::StartWrite StartWrite() {
    return [this](const std::string* message) {
      started.push_back(*message);
      ++in_flight;
      max_in_flight = std::max(max_in_flight, in_flight);
    };
  }
  // gRPC reports the write done; the queue hears of it.
  void Complete(StreamWriteQueue<std::string>& queue, bool ok) {
    --in_flight;
    queue.OnWriteDone(ok);
  }
};

TEST_CASE("StreamWriteQueue writes in order, one at a time", "[grpc][stream_write_queue]") {
  FakeStream stream;
  StreamWriteQueue<std::string> queue(stream.StartWrite());
  REQUIRE(queue.Write("a"));
  REQUIRE(queue.Write("b"));
  REQUIRE(queue.Write("c"));
  CHECK(stream.started == std::vector<std::string>{"a"});  // the rest wait for OnWriteDone
  CHECK(queue.writing());
  stream.Complete(queue, true);
  CHECK(stream.started == std::vector<std::string>{"a", "b"});
  REQUIRE(queue.Write("d"));
  stream.Complete(queue, true);
  stream.Complete(queue, true);
  stream.Complete(queue, true);
  CHECK(stream.started == std::vector<std::string>{"a", "b", "c", "d"});
  CHECK(stream.max_in_flight == 1);
  CHECK_FALSE(queue.writing());
  // Idle again: the next write starts at once.
  REQUIRE(queue.Write("e"));
  CHECK(stream.started.back() == "e");
}

TEST_CASE("StreamWriteQueue drops everything after a failed write", "[grpc][stream_write_queue]") {
  FakeStream stream;
  StreamWriteQueue<std::string> queue(stream.StartWrite());
  queue.Write("a");
  queue.Write("b");
  stream.Complete(queue, false);
  CHECK(queue.closed());
  CHECK(queue.empty());
  CHECK_FALSE(queue.Write("c"));
  CHECK(stream.started == std::vector<std::string>{"a"});
}

TEST_CASE("StreamWriteQueue finishes after the write in flight, exactly once",
          "[grpc][stream_write_queue]") {
  FakeStream stream;
  StreamWriteQueue<std::string> queue(stream.StartWrite());
  queue.Write("a");
  queue.Write("b");
  queue.Close([&] { stream.finished.push_back("first"); });
  queue.Close([&] { stream.finished.push_back("second"); });
  CHECK(stream.finished.empty());  // "a" is still in flight
  CHECK_FALSE(queue.Write("c"));
  stream.Complete(queue, true);
  CHECK(stream.finished == std::vector<std::string>{"first"});
  CHECK(stream.started == std::vector<std::string>{"a"});  // "b" was dropped by Close
}

TEST_CASE("StreamWriteQueue finishes at once when idle, and after a failed write",
          "[grpc][stream_write_queue]") {
  SECTION("idle") {
    FakeStream stream;
    StreamWriteQueue<std::string> queue(stream.StartWrite());
    queue.Close([&] { stream.finished.push_back("now"); });
    CHECK(stream.finished == std::vector<std::string>{"now"});
  }
  SECTION("the write in flight fails") {
    FakeStream stream;
    StreamWriteQueue<std::string> queue(stream.StartWrite());
    queue.Write("a");
    queue.Close([&] { stream.finished.push_back("closed"); });
    stream.Complete(queue, false);
    CHECK(stream.finished == std::vector<std::string>{"closed"});
    // A later Close (the reactor's "write failed") finishes nothing twice.
    queue.Close([&] { stream.finished.push_back("again"); });
    CHECK(stream.finished.size() == 1);
  }
}

}  // namespace
}  // namespace kvbench
