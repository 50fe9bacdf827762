#pragma once

// The wire protocol between kvsim-vllm's connector (LmcacheClient) and kvsim-lmcache (ZmqService).
// It is kvbench's own: real LMCache speaks msgpack over ZMQ with GPU memory handles, which a
// simulator has no use for. It carries only what the cache simulation needs: chunk names
// (uint64 hashes of the prompt's hash chain), their KV size, and the tier they were found in.
//
// Transport. The server binds a ZMQ ROUTER at tcp://--host:--port; every client (one per
// kvsim-vllm engine thread, several replicas per server) connects a DEALER. A request is one frame
// on the DEALER (the ROUTER sees [identity][request]) and its reply one frame back. A client has
// at most one request in flight; the reply echoes the request id, and a client that gives up
// waiting closes its socket, so a late reply can never be taken for the next one.
//
// Encoding: little-endian fixed-width integers, no padding, no alignment.
//   request = u8 version (1) | u8 type | u16 reserved (0) | u32 request_id | body
//   reply   = u8 version (1) | u8 type | u16 code | u32 request_id | body
//             code: the absl::StatusCode of the outcome; when it is not 0 (OK) the body is
//             `str message` instead of the body below.
//   str     = u16 length | that many bytes
//   hashes  = u32 count | count x u64
//
//   type        request body                                reply body (OK)
//   1 HELLO     str model                                   u32 chunk_size
//   2 LOOKUP    str model | hashes                          u32 hit_chunks | u32 l2_chunks
//   3 LOAD      str model | hashes                          u32 l1_chunks | u32 l2_chunks
//   4 STORE     str model | i64 bytes_per_chunk | hashes    u32 new_chunks | u32 refreshed_chunks
//
// Semantics (ChunkStore implements them):
//   HELLO   the connection handshake; answers the server's --chunk-size (tokens per chunk).
//   LOOKUP  hit_chunks = how many leading hashes are cached (L1 or L2), a contiguous prefix;
//           l2_chunks = how many of those are only in L2 (must be read from disk on LOAD).
//   LOAD    loads a prefix found by LOOKUP: L1 chunks are read from the pool, L2-only chunks are
//           really read back from their files and promoted into L1. l1_chunks + l2_chunks is the
//           prefix that could be loaded; it is shorter than the request when a chunk went away
//           (evicted) since the LOOKUP, and the engine recomputes the rest.
//   STORE   stores chunks of bytes_per_chunk bytes of KV each. A chunk already in L1 is refreshed
//           in the LRU order (refreshed_chunks), never duplicated; the others are new_chunks.
// A malformed request gets code INVALID_ARGUMENT (3) with a message.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace kvbench::sim::lmcache {

inline constexpr uint8_t kProtocolVersion = 1;
// Fixed header of requests and replies: version, type, reserved/code, request id.
inline constexpr size_t kHeaderBytes = 8;
// Bounds that keep a corrupt count from allocating gigabytes: 4 Mi chunks is 1 Gi tokens at 256
// tokens per chunk, far beyond any prompt.
inline constexpr uint32_t kMaxHashesPerRequest = 4u << 20;

enum class MessageType : uint8_t { kHello = 1, kLookup = 2, kLoad = 3, kStore = 4 };

// "HELLO", "LOOKUP", "LOAD", "STORE", or "type N" for anything else.
std::string MessageTypeName(MessageType type);

struct Request {
  MessageType type = MessageType::kHello;
  uint32_t request_id = 0;
  std::string model;
  int64_t bytes_per_chunk = 0;   // STORE only
  std::vector<uint64_t> hashes;  // LOOKUP, LOAD, STORE
};

struct Reply {
  MessageType type = MessageType::kHello;
  uint32_t request_id = 0;
  absl::Status status;            // not OK: only the code and the message travel
  uint32_t chunk_size = 0;        // HELLO
  uint32_t hit_chunks = 0;        // LOOKUP
  uint32_t l1_chunks = 0;         // LOAD
  uint32_t l2_chunks = 0;         // LOOKUP, LOAD
  uint32_t new_chunks = 0;        // STORE
  uint32_t refreshed_chunks = 0;  // STORE
};

// The fixed header of a request, readable even when its body is not.
struct RequestHeader {
  uint8_t version = 0;
  uint8_t type = 0;
  uint32_t request_id = 0;
};

std::string EncodeRequest(const Request& request);
// INVALID_ARGUMENT naming what is wrong (version, type, truncated or trailing bytes, counts).
absl::StatusOr<Request> DecodeRequest(absl::string_view bytes);
// INVALID_ARGUMENT when `bytes` is shorter than the header.
absl::StatusOr<RequestHeader> PeekRequestHeader(absl::string_view bytes);

std::string EncodeReply(const Reply& reply);
absl::StatusOr<Reply> DecodeReply(absl::string_view bytes);

}  // namespace kvbench::sim::lmcache
