#include "agent/sim/lmcache/lmcache_protocol.h"

#include <algorithm>
#include <limits>
#include <type_traits>

#include "absl/strings/str_cat.h"

namespace kvbench::sim::lmcache {
namespace {

// Appends little-endian integers and length-prefixed fields to a byte string.
class Writer {
 public:
  explicit Writer(size_t reserve) { out_.reserve(reserve); }

  template <typename T>
  void Put(T value) {
    using U = std::make_unsigned_t<T>;
    U bits = static_cast<U>(value);
    for (size_t i = 0; i < sizeof(T); ++i) {
      out_.push_back(static_cast<char>(bits & 0xFF));
      bits = static_cast<U>(bits >> 8);
    }
  }
  void PutString(absl::string_view text) {
    // Longer strings are cut: model names are far shorter than 64 KiB.
    size_t length = std::min<size_t>(text.size(), std::numeric_limits<uint16_t>::max());
    Put<uint16_t>(static_cast<uint16_t>(length));
    out_.append(text.data(), length);
  }
  void PutHashes(const std::vector<uint64_t>& hashes) {
    Put<uint32_t>(static_cast<uint32_t>(hashes.size()));
    for (uint64_t hash : hashes) Put<uint64_t>(hash);
  }
  std::string Take() { return std::move(out_); }

 private:
  std::string out_;
};

// Reads what Writer wrote, failing (not crashing) on short or malformed input.
class Reader {
 public:
  explicit Reader(absl::string_view bytes) : bytes_(bytes) {}

  template <typename T>
  bool Get(T* value) {
    if (bytes_.size() - pos_ < sizeof(T)) return Fail();
    using U = std::make_unsigned_t<T>;
    U bits = 0;
    for (size_t i = 0; i < sizeof(T); ++i) {
      bits |=
          static_cast<U>(static_cast<U>(static_cast<unsigned char>(bytes_[pos_ + i])) << (8 * i));
    }
    pos_ += sizeof(T);
    *value = static_cast<T>(bits);
    return true;
  }
  bool GetString(std::string* text) {
    uint16_t length = 0;
    if (!Get(&length) || bytes_.size() - pos_ < length) return Fail();
    text->assign(bytes_.data() + pos_, length);
    pos_ += length;
    return true;
  }
  bool GetHashes(std::vector<uint64_t>* hashes) {
    uint32_t count = 0;
    if (!Get(&count)) return false;
    if (count > kMaxHashesPerRequest || (bytes_.size() - pos_) / 8 < count) return Fail();
    hashes->resize(count);
    for (uint64_t& hash : *hashes) Get(&hash);
    return true;
  }
  bool ok() const { return ok_; }
  bool AtEnd() const { return pos_ == bytes_.size(); }

 private:
  bool Fail() {
    ok_ = false;
    return false;
  }

  absl::string_view bytes_;
  size_t pos_ = 0;
  bool ok_ = true;
};

bool KnownType(uint8_t type) { return type >= 1 && type <= 4; }

absl::Status Malformed(absl::string_view what, absl::string_view detail) {
  return absl::InvalidArgumentError(absl::StrCat("malformed LMCache ", what, ": ", detail));
}

absl::Status CheckVersionAndType(absl::string_view what, uint8_t version, uint8_t type) {
  if (version != kProtocolVersion) {
    return Malformed(what,
                     absl::StrCat("protocol version ", version, ", expected ", kProtocolVersion));
  }
  if (!KnownType(type)) return Malformed(what, absl::StrCat("unknown message type ", type));
  return absl::OkStatus();
}

}  // namespace

std::string MessageTypeName(MessageType type) {
  switch (type) {
    case MessageType::kHello:
      return "HELLO";
    case MessageType::kLookup:
      return "LOOKUP";
    case MessageType::kLoad:
      return "LOAD";
    case MessageType::kStore:
      return "STORE";
  }
  return absl::StrCat("type ", static_cast<int>(type));
}

std::string EncodeRequest(const Request& request) {
  Writer writer(kHeaderBytes + 2 + request.model.size() + 12 + 8 * request.hashes.size());
  writer.Put<uint8_t>(kProtocolVersion);
  writer.Put<uint8_t>(static_cast<uint8_t>(request.type));
  writer.Put<uint16_t>(0);
  writer.Put<uint32_t>(request.request_id);
  writer.PutString(request.model);
  if (request.type == MessageType::kStore) writer.Put<int64_t>(request.bytes_per_chunk);
  if (request.type != MessageType::kHello) writer.PutHashes(request.hashes);
  return writer.Take();
}

absl::StatusOr<RequestHeader> PeekRequestHeader(absl::string_view bytes) {
  Reader reader(bytes);
  RequestHeader header;
  uint16_t reserved = 0;
  if (!reader.Get(&header.version) || !reader.Get(&header.type) || !reader.Get(&reserved) ||
      !reader.Get(&header.request_id)) {
    return Malformed("request", absl::StrCat(bytes.size(), " bytes is shorter than the header"));
  }
  return header;
}

absl::StatusOr<Request> DecodeRequest(absl::string_view bytes) {
  absl::StatusOr<RequestHeader> header = PeekRequestHeader(bytes);
  if (!header.ok()) return header.status();
  if (absl::Status status = CheckVersionAndType("request", header->version, header->type);
      !status.ok()) {
    return status;
  }
  Request request;
  request.type = static_cast<MessageType>(header->type);
  request.request_id = header->request_id;
  Reader reader(bytes.substr(kHeaderBytes));
  reader.GetString(&request.model);
  if (request.type == MessageType::kStore) reader.Get(&request.bytes_per_chunk);
  if (request.type != MessageType::kHello) reader.GetHashes(&request.hashes);
  std::string name = MessageTypeName(request.type);
  if (!reader.ok()) return Malformed("request", absl::StrCat(name, " body is truncated"));
  if (!reader.AtEnd()) return Malformed("request", absl::StrCat(name, " has trailing bytes"));
  return request;
}

std::string EncodeReply(const Reply& reply) {
  Writer writer(kHeaderBytes + 8 + reply.status.message().size());
  writer.Put<uint8_t>(kProtocolVersion);
  writer.Put<uint8_t>(static_cast<uint8_t>(reply.type));
  writer.Put<uint16_t>(static_cast<uint16_t>(reply.status.code()));
  writer.Put<uint32_t>(reply.request_id);
  if (!reply.status.ok()) {
    writer.PutString(reply.status.message());
    return writer.Take();
  }
  switch (reply.type) {
    case MessageType::kHello:
      writer.Put<uint32_t>(reply.chunk_size);
      break;
    case MessageType::kLookup:
      writer.Put<uint32_t>(reply.hit_chunks);
      writer.Put<uint32_t>(reply.l2_chunks);
      break;
    case MessageType::kLoad:
      writer.Put<uint32_t>(reply.l1_chunks);
      writer.Put<uint32_t>(reply.l2_chunks);
      break;
    case MessageType::kStore:
      writer.Put<uint32_t>(reply.new_chunks);
      writer.Put<uint32_t>(reply.refreshed_chunks);
      break;
  }
  return writer.Take();
}

absl::StatusOr<Reply> DecodeReply(absl::string_view bytes) {
  Reader reader(bytes);
  uint8_t version = 0;
  uint8_t type = 0;
  uint16_t code = 0;
  Reply reply;
  if (!reader.Get(&version) || !reader.Get(&type) || !reader.Get(&code) ||
      !reader.Get(&reply.request_id)) {
    return Malformed("reply", absl::StrCat(bytes.size(), " bytes is shorter than the header"));
  }
  if (absl::Status status = CheckVersionAndType("reply", version, type); !status.ok()) {
    return status;
  }
  reply.type = static_cast<MessageType>(type);
  if (code != 0) {
    std::string message;
    reader.GetString(&message);
    if (!reader.ok()) return Malformed("reply", "error message is truncated");
    if (code > static_cast<uint16_t>(absl::StatusCode::kUnauthenticated)) {
      code = static_cast<uint16_t>(absl::StatusCode::kUnknown);
    }
    reply.status = absl::Status(static_cast<absl::StatusCode>(code), message);
  } else {
    switch (reply.type) {
      case MessageType::kHello:
        reader.Get(&reply.chunk_size);
        break;
      case MessageType::kLookup:
        reader.Get(&reply.hit_chunks);
        reader.Get(&reply.l2_chunks);
        break;
      case MessageType::kLoad:
        reader.Get(&reply.l1_chunks);
        reader.Get(&reply.l2_chunks);
        break;
      case MessageType::kStore:
        reader.Get(&reply.new_chunks);
        reader.Get(&reply.refreshed_chunks);
        break;
    }
    if (!reader.ok()) {
      return Malformed("reply", absl::StrCat(MessageTypeName(reply.type), " body is truncated"));
    }
  }
  if (!reader.AtEnd()) {
    return Malformed("reply", absl::StrCat(MessageTypeName(reply.type), " has trailing bytes"));
  }
  return reply;
}

}  // namespace kvbench::sim::lmcache
