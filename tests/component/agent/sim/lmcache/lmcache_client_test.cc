// LmcacheClient against an in-process ZmqService on loopback: the handshake, shared cache across
// clients, errors, timeouts, and several clients at once.

#include "agent/sim/lmcache/lmcache_client.h"

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <memory>
#include <string>
#include <thread>
#include <vector>
#include <zmq.hpp>

#include "absl/strings/str_cat.h"
#include "agent/sim/lmcache/chunk_store.h"
#include "agent/sim/lmcache/lmcache_metrics.h"
#include "agent/sim/lmcache/request_handler.h"
#include "agent/sim/lmcache/zmq_service.h"
#include "tests/component/agent/sim/lmcache/chunk_geometry.h"
#include "tests/component/agent/sim/lmcache/metrics_text.h"
#include "tests/support/unused_port.h"

namespace kvbench::sim::lmcache {
namespace {

using ::kvbench::sim::lmcache::testing::Series;

using ::kvbench::sim::lmcache::testing::kLlamaChunkBytes;
// Long enough never to expire in a passing test.
constexpr absl::Duration kTimeout = absl::Seconds(10);

// A kvsim-lmcache core served over ZMQ on a free loopback port.
struct TestServer {
  explicit TestServer(int workers = 2, int chunk_size = 256) : metrics(LmcacheMetrics::Options{}) {
    ChunkStoreOptions options;
    options.chunk_size = chunk_size;
    options.l1_capacity_bytes = 10000 * kLlamaChunkBytes;
    store = std::make_unique<ChunkStore>(options, nullptr, &metrics);
    handler = std::make_unique<RequestHandler>(store.get());
    absl::StatusOr<std::unique_ptr<ZmqService>> created =
        ZmqService::Create("tcp://127.0.0.1:*", workers, handler.get());
    REQUIRE(created.ok());
    service = std::move(*created);
    service->Start();
  }

  std::unique_ptr<LmcacheClient> Connect(const std::string& model = "m") {
    absl::StatusOr<std::unique_ptr<LmcacheClient>> client =
        LmcacheClient::Connect("tcp://127.0.0.1", service->port(), kTimeout, model);
    INFO(client.status().ToString());
    REQUIRE(client.ok());
    return std::move(*client);
  }

  LmcacheMetrics metrics;
  std::unique_ptr<ChunkStore> store;
  std::unique_ptr<RequestHandler> handler;
  std::unique_ptr<ZmqService> service;
};

TEST_CASE("Lmcache client: the handshake learns the chunk size, then store, lookup, load") {
  TestServer server(/*workers=*/1, /*chunk_size=*/128);
  std::unique_ptr<LmcacheClient> client = server.Connect("bare-host-model");
  CHECK(client->chunk_size() == 128);
  CHECK(client->address() == absl::StrCat("tcp://127.0.0.1:", server.service->port()));

  REQUIRE(client->Store({11, 12, 13}, kLlamaChunkBytes).ok());
  absl::StatusOr<ExternalLookup> lookup = client->Lookup({11, 12, 13, 14});
  REQUIRE(lookup.ok());
  CHECK(lookup->hit_chunks == 3);
  CHECK(lookup->l2_chunks == 0);
  absl::StatusOr<ExternalLoad> load = client->Load({11, 12, 13});
  REQUIRE(load.ok());
  CHECK(load->l1_chunks == 3);
  CHECK(load->l2_chunks == 0);
  CHECK(client->Load({})->l1_chunks == 0);
  CHECK(client->Store({}, kLlamaChunkBytes).ok());
  const std::string text = server.metrics.Render();
  CHECK(Series(text, "lmcache_mp_lookup_requested_tokens_total{model_name=\"bare-host-model\"}") ==
        4 * 128);
  CHECK(Series(text, "lmcache_mp_l1_write_chunks_total") == 3);
}

TEST_CASE("Lmcache client: a bare host is normalized to tcp://") {
  TestServer server;
  absl::StatusOr<std::unique_ptr<LmcacheClient>> client =
      LmcacheClient::Connect("127.0.0.1", server.service->port(), kTimeout, "m");
  REQUIRE(client.ok());
  CHECK((*client)->address() == absl::StrCat("tcp://127.0.0.1:", server.service->port()));
}

TEST_CASE("Lmcache client: two clients share one server") {
  TestServer server;
  std::unique_ptr<LmcacheClient> replica_a = server.Connect();
  std::unique_ptr<LmcacheClient> replica_b = server.Connect();
  REQUIRE(replica_a->Store({1, 2, 3, 4}, kLlamaChunkBytes).ok());
  absl::StatusOr<ExternalLookup> lookup = replica_b->Lookup({1, 2, 3, 4, 5});
  REQUIRE(lookup.ok());
  CHECK(lookup->hit_chunks == 4);
  absl::StatusOr<ExternalLoad> load = replica_b->Load({1, 2, 3, 4});
  REQUIRE(load.ok());
  CHECK(load->l1_chunks == 4);
  // B's store of the same prefix plus one more chunk adds one.
  REQUIRE(replica_b->Store({1, 2, 3, 4, 5}, kLlamaChunkBytes).ok());
  CHECK(server.store->l1_chunk_count() == 5);
  CHECK(replica_a->Lookup({1, 2, 3, 4, 5})->hit_chunks == 5);
}

TEST_CASE("Lmcache client: connecting to a port nobody serves fails within mq_timeout") {
  const int port = kvbench::testing::UnusedLoopbackPort();
  absl::StatusOr<std::unique_ptr<LmcacheClient>> client =
      LmcacheClient::Connect("tcp://127.0.0.1", port, absl::Milliseconds(200), "m");
  REQUIRE_FALSE(client.ok());
  CHECK(client.status().code() == absl::StatusCode::kUnavailable);
  CHECK(std::string(client.status().message()) ==
        absl::StrCat("cannot reach the LMCache server at tcp://127.0.0.1:", port, " within 0.2 s"));
}

TEST_CASE("Lmcache client: a server that comes up within mq_timeout is reached") {
  // As vLLM's connector waits for `lmcache server`: the HELLO is queued until the port answers.
  const int port = kvbench::testing::UnusedLoopbackPort();
  absl::StatusOr<std::unique_ptr<LmcacheClient>> client;
  std::thread connecting(
      [&] { client = LmcacheClient::Connect("tcp://127.0.0.1", port, kTimeout, "m"); });
  LmcacheMetrics metrics(LmcacheMetrics::Options{});
  ChunkStoreOptions options;
  options.l1_capacity_bytes = 10 * kLlamaChunkBytes;
  ChunkStore store(options, nullptr, &metrics);
  RequestHandler handler(&store);
  absl::StatusOr<std::unique_ptr<ZmqService>> service =
      ZmqService::Create(absl::StrCat("tcp://127.0.0.1:", port), 1, &handler);
  REQUIRE(service.ok());
  (*service)->Start();
  connecting.join();
  INFO(client.status().ToString());
  REQUIRE(client.ok());
  CHECK((*client)->chunk_size() == 256);
}

TEST_CASE("Lmcache server: a port in use is UNAVAILABLE naming the endpoint") {
  TestServer server;
  LmcacheMetrics metrics(LmcacheMetrics::Options{});
  ChunkStore store(ChunkStoreOptions{}, nullptr, &metrics);
  RequestHandler handler(&store);
  absl::StatusOr<std::unique_ptr<ZmqService>> second =
      ZmqService::Create(server.service->endpoint(), 1, &handler);
  REQUIRE_FALSE(second.ok());
  CHECK(second.status().code() == absl::StatusCode::kUnavailable);
  CHECK_THAT(std::string(second.status().message()), Catch::Contains(server.service->endpoint()));
}

TEST_CASE("Lmcache client: bad arguments are INVALID_ARGUMENT") {
  CHECK(LmcacheClient::Connect("grpc://h", 5555, kTimeout, "m").status().code() ==
        absl::StatusCode::kInvalidArgument);
  CHECK(LmcacheClient::Connect("tcp://127.0.0.1", 0, kTimeout, "m").status().code() ==
        absl::StatusCode::kInvalidArgument);
  CHECK(
      LmcacheClient::Connect("tcp://127.0.0.1", 5555, absl::ZeroDuration(), "m").status().code() ==
      absl::StatusCode::kInvalidArgument);
}

TEST_CASE("Lmcache client: a request the server refuses keeps the connection usable") {
  TestServer server;
  std::unique_ptr<LmcacheClient> client = server.Connect();
  absl::Status status = client->Store({1}, 0);
  CHECK(status.code() == absl::StatusCode::kInvalidArgument);
  CHECK_THAT(std::string(status.message()), Catch::Contains("bytes_per_chunk"));
  CHECK(client->Store({1}, kLlamaChunkBytes).ok());
  CHECK(client->Lookup({1})->hit_chunks == 1);
}

TEST_CASE("Lmcache client: a server that stops answering gives UNAVAILABLE") {
  auto server = std::make_unique<TestServer>();
  const int port = server->service->port();
  absl::StatusOr<std::unique_ptr<LmcacheClient>> connected =
      LmcacheClient::Connect("tcp://127.0.0.1", port, absl::Milliseconds(300), "m");
  REQUIRE(connected.ok());
  std::unique_ptr<LmcacheClient> client = std::move(*connected);
  server.reset();
  absl::StatusOr<ExternalLookup> lookup = client->Lookup({1});
  REQUIRE_FALSE(lookup.ok());
  CHECK(lookup.status().code() == absl::StatusCode::kUnavailable);
  CHECK_THAT(std::string(lookup.status().message()), Catch::Contains("did not answer LOOKUP"));
}

TEST_CASE("Lmcache server: REQ clients and malformed requests get replies") {
  TestServer server;
  zmq::context_t context(1);
  zmq::socket_t req(context, zmq::socket_type::req);
  req.set(zmq::sockopt::linger, 0);
  req.set(zmq::sockopt::rcvtimeo, 10000);
  req.connect(server.service->endpoint());
  Request hello;
  hello.type = MessageType::kHello;
  hello.request_id = 5;
  const std::string bytes = EncodeRequest(hello);
  REQUIRE(req.send(zmq::buffer(bytes), zmq::send_flags::none));
  zmq::message_t message;
  REQUIRE(req.recv(message, zmq::recv_flags::none));
  absl::StatusOr<Reply> reply = DecodeReply(message.to_string());
  REQUIRE(reply.ok());
  CHECK(reply->request_id == 5);
  CHECK(reply->chunk_size == 256);

  std::string garbage = bytes;
  garbage[1] = 42;
  REQUIRE(req.send(zmq::buffer(garbage), zmq::send_flags::none));
  REQUIRE(req.recv(message, zmq::recv_flags::none));
  reply = DecodeReply(message.to_string());
  REQUIRE(reply.ok());
  CHECK(reply->request_id == 5);
  CHECK(reply->status.code() == absl::StatusCode::kInvalidArgument);
  CHECK_THAT(std::string(reply->status.message()), Catch::Contains("unknown message type 42"));
}

TEST_CASE("Lmcache server: many clients at once on several workers") {
  TestServer server(/*workers=*/4);
  constexpr int kClients = 6;
  constexpr int kRounds = 100;
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int c = 0; c < kClients; ++c) {
    threads.emplace_back([&, c] {
      absl::StatusOr<std::unique_ptr<LmcacheClient>> client =
          LmcacheClient::Connect("tcp://127.0.0.1", server.service->port(), kTimeout, "m");
      if (!client.ok()) {
        ++failures;
        return;
      }
      for (int round = 0; round < kRounds; ++round) {
        const uint64_t base = static_cast<uint64_t>(c) * 1000000 + round * 10;
        std::vector<uint64_t> hashes = {base, base + 1, base + 2};
        if (!(*client)->Store(hashes, kLlamaChunkBytes).ok()) ++failures;
        absl::StatusOr<ExternalLookup> lookup = (*client)->Lookup(hashes);
        if (!lookup.ok() || lookup->hit_chunks != 3) ++failures;
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  CHECK(failures.load() == 0);
  CHECK(server.store->l1_chunk_count() == kClients * kRounds * 3);
  CHECK(Series(server.metrics.Render(), "lmcache_mp_lookups_requests_total") == kClients * kRounds);
}

}  // namespace
}  // namespace kvbench::sim::lmcache
