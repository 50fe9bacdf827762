#include "common/http/http_session_responder.h"

#include <utility>

#include <boost/beast/http/status.hpp>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/http/http_server_session.h"
#include "common/log/logging.h"

namespace kvbench {
namespace {

namespace http = boost::beast::http;

constexpr absl::string_view kLastChunk = "0\r\n\r\n";

absl::string_view ReasonPhrase(int status) {
  const http::status known = http::int_to_status(static_cast<unsigned>(status));
  if (known == http::status::unknown) return "Unknown";
  const auto reason = http::obsolete_reason(known);
  return absl::string_view(reason.data(), reason.size());
}

bool IsFramingHeader(absl::string_view name) {
  return absl::EqualsIgnoreCase(name, "Content-Length") ||
         absl::EqualsIgnoreCase(name, "Transfer-Encoding") ||
         absl::EqualsIgnoreCase(name, "Connection");
}

bool HasLineBreak(absl::string_view text) {
  return text.find_first_of("\r\n") != absl::string_view::npos;
}

// True if the handler's headers ask to close the connection after the response.
bool WantsClose(const HttpHeaders& headers) {
  for (const auto& [name, value] : headers) {
    if (absl::EqualsIgnoreCase(name, "Connection") &&
        absl::StrContains(absl::AsciiStrToLower(value), "close")) {
      return true;
    }
  }
  return false;
}

// The status line and the handler's headers (framing ones dropped); the caller adds framing
// headers and the blank line.
void AppendHead(std::string* out, int status, const HttpHeaders& headers) {
  if (status < 100 || status > 999) status = 500;
  absl::StrAppend(out, "HTTP/1.1 ", status, " ", ReasonPhrase(status), "\r\n");
  for (const auto& [name, value] : headers) {
    if (IsFramingHeader(name)) continue;
    if (name.empty() || HasLineBreak(name) || HasLineBreak(value)) {
      KV_LOG_EVERY_N_SEC(WARNING, 60) << "HTTP response header dropped: empty or CR/LF in it";
      continue;
    }
    absl::StrAppend(out, name, ": ", value, "\r\n");
  }
}

void WarnMisuse(const char* call) {
  KV_LOG_EVERY_N_SEC(WARNING, 60) << "HttpResponder call ignored: out of order call=" << call;
}

}  // namespace

HttpSessionResponder::HttpSessionResponder(std::shared_ptr<HttpServerGate> gate,
                                           std::weak_ptr<HttpServerSession> session,
                                           unsigned version, bool keep_alive)
    : gate_(std::move(gate)),
      session_(std::move(session)),
      version_(version),
      keep_alive_(keep_alive) {}

HttpSessionResponder::~HttpSessionResponder() {
  std::lock_guard<std::mutex> lock(mu_);
  if (state_ == State::kIdle) {
    RespondLocked(500, {}, "");
  } else if (state_ == State::kStreaming) {
    EndStreamLocked();
  }
}

void HttpSessionResponder::Respond(int status, HttpHeaders headers, std::string body) {
  std::lock_guard<std::mutex> lock(mu_);
  if (state_ != State::kIdle) return WarnMisuse("Respond");
  RespondLocked(status, headers, body);
}

void HttpSessionResponder::RespondLocked(int status, const HttpHeaders& headers,
                                         absl::string_view body) {
  state_ = State::kDone;
  if (WantsClose(headers)) keep_alive_ = false;
  Enqueue(
      [&](std::string* out) {
        AppendHead(out, status, headers);
        absl::StrAppend(out, "Content-Length: ", body.size(), "\r\n");
        if (!keep_alive_) {
          out->append("Connection: close\r\n");
        } else if (version_ < 11) {
          out->append("Connection: keep-alive\r\n");
        }
        out->append("\r\n");
        out->append(body.data(), body.size());
      },
      EndOfResponse());
}

void HttpSessionResponder::StartStream(int status, HttpHeaders headers) {
  std::lock_guard<std::mutex> lock(mu_);
  if (state_ != State::kIdle) return WarnMisuse("StartStream");
  state_ = State::kStreaming;
  // HTTP/1.0 has no chunked encoding: the body runs until the connection closes.
  chunked_ = version_ >= 11;
  if (!chunked_ || WantsClose(headers)) keep_alive_ = false;
  Enqueue(
      [&](std::string* out) {
        AppendHead(out, status, headers);
        if (chunked_) out->append("Transfer-Encoding: chunked\r\n");
        if (!keep_alive_) out->append("Connection: close\r\n");
        out->append("\r\n");
      },
      HttpWriteQueue::End::kNone);
}

void HttpSessionResponder::SendChunk(std::string data) {
  std::lock_guard<std::mutex> lock(mu_);
  if (state_ != State::kStreaming) return WarnMisuse("SendChunk");
  // An empty chunk would read as the last one.
  if (data.empty()) return;
  Enqueue(
      [&](std::string* out) {
        if (chunked_) {
          absl::StrAppend(out, absl::Hex(data.size()), "\r\n", data, "\r\n");
        } else {
          out->append(data);
        }
      },
      HttpWriteQueue::End::kNone);
}

void HttpSessionResponder::EndStream() {
  std::lock_guard<std::mutex> lock(mu_);
  if (state_ != State::kStreaming) return WarnMisuse("EndStream");
  EndStreamLocked();
}

void HttpSessionResponder::EndStreamLocked() {
  state_ = State::kDone;
  Enqueue(
      [&](std::string* out) {
        if (chunked_) out->append(kLastChunk.data(), kLastChunk.size());
      },
      EndOfResponse());
}

bool HttpSessionResponder::closed() const {
  if (!gate_->Enter()) return true;
  bool closed = true;
  if (std::shared_ptr<HttpServerSession> session = session_.lock()) closed = session->closed();
  gate_->Leave();
  return closed;
}

bool HttpSessionResponder::Enqueue(absl::FunctionRef<void(std::string*)> fill,
                                   HttpWriteQueue::End end) const {
  if (!gate_->Enter()) return false;
  bool accepted = false;
  if (std::shared_ptr<HttpServerSession> session = session_.lock()) {
    accepted = session->Enqueue(fill, end);
  }
  gate_->Leave();
  return accepted;
}

HttpWriteQueue::End HttpSessionResponder::EndOfResponse() const {
  return keep_alive_ ? HttpWriteQueue::End::kKeepAlive : HttpWriteQueue::End::kClose;
}

}  // namespace kvbench
