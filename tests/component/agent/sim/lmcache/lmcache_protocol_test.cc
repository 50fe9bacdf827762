// The kvsim-lmcache wire protocol: every message round-trips; malformed bytes fail cleanly.

#include "agent/sim/lmcache/lmcache_protocol.h"

#include <catch2/catch.hpp>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace kvbench::sim::lmcache {
namespace {

Request MakeRequest(MessageType type) {
  Request request;
  request.type = type;
  request.request_id = 0xDEADBEEF;
  request.model = "meta-llama/Llama-3.1-8B-Instruct";
  if (type != MessageType::kHello) {
    request.hashes = {0, 1, std::numeric_limits<uint64_t>::max(), 0x0123456789ABCDEFull};
  }
  if (type == MessageType::kStore) request.bytes_per_chunk = int64_t{256} * 131072;
  return request;
}

TEST_CASE("Lmcache protocol: every request type round-trips") {
  for (MessageType type :
       {MessageType::kHello, MessageType::kLookup, MessageType::kLoad, MessageType::kStore}) {
    INFO(MessageTypeName(type));
    Request request = MakeRequest(type);
    absl::StatusOr<Request> decoded = DecodeRequest(EncodeRequest(request));
    REQUIRE(decoded.ok());
    CHECK(decoded->type == type);
    CHECK(decoded->request_id == request.request_id);
    CHECK(decoded->model == request.model);
    CHECK(decoded->hashes == request.hashes);
    CHECK(decoded->bytes_per_chunk == request.bytes_per_chunk);
  }
}

TEST_CASE("Lmcache protocol: a LOOKUP is compact little-endian") {
  Request request;
  request.type = MessageType::kLookup;
  request.request_id = 7;
  request.model = "m";
  request.hashes = {0x0102030405060708ull};
  const std::string bytes = EncodeRequest(request);
  // header 8 + model 2+1 + count 4 + one hash 8
  REQUIRE(bytes.size() == 23);
  CHECK(bytes[0] == 1);      // version
  CHECK(bytes[1] == 2);      // LOOKUP
  CHECK(bytes[4] == 7);      // request id, low byte first
  CHECK(bytes[15] == 0x08);  // the hash, low byte first
  CHECK(bytes[22] == 0x01);
}

TEST_CASE("Lmcache protocol: replies round-trip, errors carry code and message") {
  Reply lookup;
  lookup.type = MessageType::kLookup;
  lookup.request_id = 42;
  lookup.hit_chunks = 12;
  lookup.l2_chunks = 5;
  absl::StatusOr<Reply> decoded = DecodeReply(EncodeReply(lookup));
  REQUIRE(decoded.ok());
  CHECK(decoded->status.ok());
  CHECK(decoded->request_id == 42);
  CHECK(decoded->hit_chunks == 12);
  CHECK(decoded->l2_chunks == 5);

  Reply hello;
  hello.type = MessageType::kHello;
  hello.chunk_size = 256;
  decoded = DecodeReply(EncodeReply(hello));
  REQUIRE(decoded.ok());
  CHECK(decoded->chunk_size == 256);

  Reply load;
  load.type = MessageType::kLoad;
  load.l1_chunks = 3;
  load.l2_chunks = 4;
  decoded = DecodeReply(EncodeReply(load));
  REQUIRE(decoded.ok());
  CHECK(decoded->l1_chunks == 3);
  CHECK(decoded->l2_chunks == 4);

  Reply store;
  store.type = MessageType::kStore;
  store.new_chunks = 9;
  store.refreshed_chunks = 2;
  decoded = DecodeReply(EncodeReply(store));
  REQUIRE(decoded.ok());
  CHECK(decoded->new_chunks == 9);
  CHECK(decoded->refreshed_chunks == 2);

  Reply error;
  error.type = MessageType::kStore;
  error.request_id = 3;
  error.status = absl::InvalidArgumentError("bytes_per_chunk must be positive");
  decoded = DecodeReply(EncodeReply(error));
  REQUIRE(decoded.ok());
  CHECK(decoded->request_id == 3);
  CHECK(decoded->status.code() == absl::StatusCode::kInvalidArgument);
  CHECK(decoded->status.message() == "bytes_per_chunk must be positive");
}

TEST_CASE("Lmcache protocol: malformed requests are INVALID_ARGUMENT naming the problem") {
  const std::string good = EncodeRequest(MakeRequest(MessageType::kStore));
  struct Case {
    std::string name;
    std::string bytes;
    std::string message;
  };
  std::string bad_version = good;
  bad_version[0] = 9;
  std::string bad_type = good;
  bad_type[1] = 77;
  std::string huge_count = EncodeRequest(MakeRequest(MessageType::kLookup));
  // The count sits after the header and the model string.
  size_t count_at = kHeaderBytes + 2 + MakeRequest(MessageType::kLookup).model.size();
  huge_count[count_at + 3] = static_cast<char>(0x7F);
  const std::vector<Case> cases = {
      {"empty", "", "shorter than the header"},
      {"short header", good.substr(0, 5), "shorter than the header"},
      {"version", bad_version, "protocol version 9"},
      {"type", bad_type, "unknown message type 77"},
      {"truncated", good.substr(0, good.size() - 3), "STORE body is truncated"},
      {"trailing", good + "x", "STORE has trailing bytes"},
      {"count beyond the bytes", huge_count, "LOOKUP body is truncated"},
  };
  for (const Case& c : cases) {
    INFO(c.name);
    absl::StatusOr<Request> decoded = DecodeRequest(c.bytes);
    REQUIRE_FALSE(decoded.ok());
    CHECK(decoded.status().code() == absl::StatusCode::kInvalidArgument);
    CHECK_THAT(std::string(decoded.status().message()), Catch::Contains(c.message));
  }
  CHECK_FALSE(DecodeReply("abc").ok());
}

TEST_CASE("Lmcache protocol: the header of a bad request is still readable") {
  std::string bytes = EncodeRequest(MakeRequest(MessageType::kLoad));
  bytes.pop_back();
  absl::StatusOr<RequestHeader> header = PeekRequestHeader(bytes);
  REQUIRE(header.ok());
  CHECK(header->type == 3);
  CHECK(header->request_id == 0xDEADBEEF);
}

}  // namespace
}  // namespace kvbench::sim::lmcache
