#include "agent/sim/lmcache/lmcache_client.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <utility>

#include "absl/strings/str_cat.h"
#include "agent/sim/lmcache/lmcache_connector_config.h"
#include "common/log/logging.h"

namespace kvbench::sim::lmcache {
namespace {

// "300 s", "0.2 s": how the timeouts read in errors.
std::string Seconds(absl::Duration duration) {
  return absl::StrCat(absl::ToDoubleSeconds(duration), " s");
}

std::chrono::milliseconds ToMillis(absl::Duration duration) {
  return std::chrono::milliseconds(std::max<int64_t>(1, absl::ToInt64Milliseconds(duration)));
}

}  // namespace

absl::StatusOr<std::unique_ptr<LmcacheClient>> LmcacheClient::Connect(
    const std::string& host, int port, absl::Duration mq_timeout, const std::string& model_name) {
  absl::StatusOr<std::string> normalized = NormalizeLmcacheHost(host);
  if (!normalized.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("LMCache server host \"", host, "\" ", normalized.status().message()));
  }
  if (port < 1 || port > 65535) {
    return absl::InvalidArgumentError(
        absl::StrCat("LMCache server port ", port, " is not in [1, 65535]"));
  }
  if (mq_timeout <= absl::ZeroDuration()) {
    return absl::InvalidArgumentError(
        absl::StrCat("LMCache mq_timeout must be positive, got ", Seconds(mq_timeout)));
  }
  std::string address = absl::StrCat(*normalized, ":", port);
  std::unique_ptr<LmcacheClient> client(new LmcacheClient(address, mq_timeout, model_name));
  try {
    client->ResetSocket();
  } catch (const zmq::error_t& error) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot connect a ZMQ socket to ", address, ": ", error.what()));
  }
  Request hello;
  hello.type = MessageType::kHello;
  hello.model = model_name;
  absl::StatusOr<Reply> reply = client->Call(std::move(hello));
  if (!reply.ok()) {
    if (reply.status().code() == absl::StatusCode::kUnavailable) {
      return absl::UnavailableError(absl::StrCat("cannot reach the LMCache server at ", address,
                                                 " within ", Seconds(mq_timeout)));
    }
    return reply.status();
  }
  if (reply->chunk_size == 0) {
    return absl::InternalError(
        absl::StrCat("the LMCache server at ", address, " reported a chunk size of 0"));
  }
  client->chunk_size_ = static_cast<int>(reply->chunk_size);
  KV_LOG(INFO) << "connected to the LMCache server address=" << address
               << " chunk_size=" << client->chunk_size_ << " model=" << model_name;
  return client;
}

LmcacheClient::LmcacheClient(std::string address, absl::Duration mq_timeout, std::string model_name)
    : address_(std::move(address)),
      mq_timeout_(mq_timeout),
      model_name_(std::move(model_name)),
      context_(1) {}

LmcacheClient::~LmcacheClient() { socket_.reset(); }

void LmcacheClient::ResetSocket() {
  socket_.reset();
  auto socket = std::make_unique<zmq::socket_t>(context_, zmq::socket_type::dealer);
  socket->set(zmq::sockopt::linger, 0);
  socket->set(zmq::sockopt::sndtimeo, static_cast<int>(ToMillis(mq_timeout_).count()));
  socket->connect(address_);
  socket_ = std::move(socket);
}

absl::StatusOr<Reply> LmcacheClient::Call(Request request) {
  request.request_id = next_request_id_++;
  const std::string name = MessageTypeName(request.type);
  const std::string bytes = EncodeRequest(request);
  auto timed_out = [&] {
    ResetSocket();  // drops the queued request and any late reply with the old socket
    return absl::UnavailableError(absl::StrCat("the LMCache server at ", address_,
                                               " did not answer ", name, " within ",
                                               Seconds(mq_timeout_)));
  };
  try {
    if (!socket_->send(zmq::buffer(bytes), zmq::send_flags::none)) return timed_out();
    zmq::pollitem_t item{static_cast<void*>(*socket_), 0, ZMQ_POLLIN, 0};
    int ready = 0;
    while (true) {
      try {
        ready = zmq::poll(&item, 1, ToMillis(mq_timeout_));
        break;
      } catch (const zmq::error_t& error) {
        if (error.num() != EINTR) throw;
      }
    }
    if (ready == 0) return timed_out();
    zmq::message_t message;
    if (!socket_->recv(message, zmq::recv_flags::none)) return timed_out();
    absl::StatusOr<Reply> reply =
        DecodeReply(absl::string_view(static_cast<const char*>(message.data()), message.size()));
    if (!reply.ok()) {
      ResetSocket();
      return absl::InternalError(
          absl::StrCat("LMCache server at ", address_, ": ", reply.status().message()));
    }
    if (reply->request_id != request.request_id || reply->type != request.type) {
      ResetSocket();
      return absl::InternalError(absl::StrCat("LMCache server at ", address_, " answered ",
                                              MessageTypeName(reply->type), " #", reply->request_id,
                                              " to ", name, " #", request.request_id));
    }
    if (!reply->status.ok()) {
      return absl::Status(reply->status.code(),
                          absl::StrCat("LMCache server at ", address_, " refused ", name, ": ",
                                       reply->status.message()));
    }
    return reply;
  } catch (const zmq::error_t& error) {
    ResetSocket();
    return absl::UnavailableError(absl::StrCat("ZMQ error talking to the LMCache server at ",
                                               address_, " (", name, "): ", error.what()));
  }
}

absl::StatusOr<ExternalLookup> LmcacheClient::Lookup(const std::vector<uint64_t>& chunk_hashes) {
  // Sent even when empty: the server counts every lookup, as LMCache does.
  Request request;
  request.type = MessageType::kLookup;
  request.model = model_name_;
  request.hashes = chunk_hashes;
  absl::StatusOr<Reply> reply = Call(std::move(request));
  if (!reply.ok()) return reply.status();
  ExternalLookup lookup;
  lookup.hit_chunks = static_cast<int>(reply->hit_chunks);
  lookup.l2_chunks = static_cast<int>(reply->l2_chunks);
  return lookup;
}

absl::StatusOr<ExternalLoad> LmcacheClient::Load(const std::vector<uint64_t>& chunk_hashes) {
  if (chunk_hashes.empty()) return ExternalLoad{};
  Request request;
  request.type = MessageType::kLoad;
  request.model = model_name_;
  request.hashes = chunk_hashes;
  absl::StatusOr<Reply> reply = Call(std::move(request));
  if (!reply.ok()) return reply.status();
  ExternalLoad load;
  load.l1_chunks = static_cast<int>(reply->l1_chunks);
  load.l2_chunks = static_cast<int>(reply->l2_chunks);
  return load;
}

absl::Status LmcacheClient::Store(const std::vector<uint64_t>& chunk_hashes,
                                  int64_t bytes_per_chunk) {
  if (chunk_hashes.empty()) return absl::OkStatus();
  Request request;
  request.type = MessageType::kStore;
  request.model = model_name_;
  request.bytes_per_chunk = bytes_per_chunk;
  request.hashes = chunk_hashes;
  return Call(std::move(request)).status();
}

}  // namespace kvbench::sim::lmcache
