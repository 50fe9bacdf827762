#include "agent/sim/lmcache/request_handler.h"

#include <utility>

#include "common/log/logging.h"

namespace kvbench::sim::lmcache {

RequestHandler::RequestHandler(ChunkStore* store, std::function<void()> before_each)
    : store_(store), before_each_(std::move(before_each)) {}

std::string RequestHandler::Handle(absl::string_view request_bytes) {
  absl::StatusOr<Request> request = DecodeRequest(request_bytes);
  if (request.ok()) return EncodeReply(HandleRequest(*request));
  KV_LOG_EVERY_N_SEC(WARNING, 30) << "bad request error=\"" << request.status().message() << "\"";
  Reply reply;
  reply.status = request.status();
  absl::StatusOr<RequestHeader> header = PeekRequestHeader(request_bytes);
  if (header.ok()) {
    reply.request_id = header->request_id;
    // Echo a known type so the client can match the error to its request.
    if (header->type >= 1 && header->type <= 4) reply.type = static_cast<MessageType>(header->type);
  }
  return EncodeReply(reply);
}

Reply RequestHandler::HandleRequest(const Request& request) {
  if (before_each_) before_each_();
  Reply reply;
  reply.type = request.type;
  reply.request_id = request.request_id;
  switch (request.type) {
    case MessageType::kHello:
      KV_LOG(INFO) << "Registered KV cache client model=" << request.model;
      reply.chunk_size = static_cast<uint32_t>(store_->options().chunk_size);
      break;
    case MessageType::kLookup: {
      LookupResult result = store_->Lookup(request.model, request.hashes);
      reply.hit_chunks = static_cast<uint32_t>(result.hit_chunks);
      reply.l2_chunks = static_cast<uint32_t>(result.l2_chunks);
      break;
    }
    case MessageType::kLoad: {
      LoadResult result = store_->Load(request.model, request.hashes);
      reply.l1_chunks = static_cast<uint32_t>(result.l1_chunks);
      reply.l2_chunks = static_cast<uint32_t>(result.l2_chunks);
      break;
    }
    case MessageType::kStore: {
      absl::StatusOr<StoreResult> result =
          store_->Store(request.model, request.hashes, request.bytes_per_chunk);
      if (!result.ok()) {
        reply.status = result.status();
        break;
      }
      reply.new_chunks = static_cast<uint32_t>(result->new_chunks);
      reply.refreshed_chunks = static_cast<uint32_t>(result->refreshed_chunks);
      break;
    }
  }
  return reply;
}

}  // namespace kvbench::sim::lmcache
