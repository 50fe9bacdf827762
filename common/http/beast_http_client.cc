#include "common/http/beast_http_client.h"

#include <algorithm>
#include <boost/asio/post.hpp>
#include <chrono>
#include <cstdint>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"
#include "common/http/beast_http_client_exchange.h"
#include "common/http/beast_http_client_loop.h"
#include "common/log/logging.h"
#include "common/status/status_macros.h"

namespace kvbench {
namespace {

using beast_http_client_internal::BeastHttpClientExchange;
using beast_http_client_internal::BeastHttpClientLoop;
using beast_http_client_internal::EndpointCache;
using beast_http_client_internal::ExchangeParams;

constexpr absl::string_view kScheme = "http://";
constexpr uint16_t kDefaultPort = 80;

struct ParsedUrl {
  std::string host;  // IPv6 without brackets
  uint16_t port = 0;
  std::string authority;  // host:port as written: the Host header and the pool's key
  std::string target;     // path and query
};

bool IsTokenChar(char c) {
  return absl::ascii_isalnum(static_cast<unsigned char>(c)) ||
         absl::string_view("!#$%&'*+-.^_`|~").find(c) != absl::string_view::npos;
}

// No controls, spaces or DEL: such a byte would break (or smuggle) the request line or a header.
bool IsVisibleText(absl::string_view text, bool allow_spaces) {
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte == 0x7f) {
      if (!(allow_spaces && c == '\t')) return false;
    }
    if (c == ' ' && !allow_spaces) return false;
  }
  return true;
}

absl::StatusOr<uint16_t> ParsePort(absl::string_view text) {
  uint32_t port = 0;
  if (text.empty() || text.size() > 5 || !absl::SimpleAtoi(text, &port) ||
      !absl::ascii_isdigit(static_cast<unsigned char>(text[0])) || port == 0 || port > 65535) {
    return absl::InvalidArgumentError(absl::StrCat("bad port \"", text, "\""));
  }
  return static_cast<uint16_t>(port);
}

// http://host[:port][/path][?query]; IPv6 hosts in brackets. No user info, no other scheme.
absl::StatusOr<ParsedUrl> ParseUrl(absl::string_view url) {
  if (url.size() <= kScheme.size() || !absl::StartsWithIgnoreCase(url, kScheme)) {
    return absl::InvalidArgumentError("not an http:// URL");
  }
  absl::string_view rest = url.substr(kScheme.size());
  rest = rest.substr(0, rest.find('#'));  // a fragment is never sent
  const size_t target_at = rest.find_first_of("/?");
  ParsedUrl parsed;
  parsed.authority = std::string(rest.substr(0, target_at));
  const absl::string_view target =
      target_at == absl::string_view::npos ? "/" : rest.substr(target_at);
  parsed.target = target[0] == '/' ? std::string(target) : absl::StrCat("/", target);
  if (!IsVisibleText(parsed.target, /*allow_spaces=*/false)) {
    return absl::InvalidArgumentError("bad characters in the path");
  }
  absl::string_view host = parsed.authority;
  absl::string_view port;
  if (absl::StartsWith(host, "[")) {
    const size_t close = host.find(']');
    if (close == absl::string_view::npos) return absl::InvalidArgumentError("unclosed [");
    port = host.substr(close + 1);
    host = host.substr(1, close - 1);
    if (!port.empty() && !absl::ConsumePrefix(&port, ":")) {
      return absl::InvalidArgumentError("bad authority");
    }
  } else if (const size_t colon = host.rfind(':'); colon != absl::string_view::npos) {
    port = host.substr(colon + 1);
    host = host.substr(0, colon);
  }
  if (host.empty() || !std::all_of(host.begin(), host.end(), [](char c) {
        return absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' ||
               c == '_' || c == ':' || c == '%';
      })) {
    return absl::InvalidArgumentError("bad host");
  }
  parsed.host = std::string(host);
  parsed.port = kDefaultPort;
  if (!port.empty()) {
    KV_ASSIGN_OR_RETURN(parsed.port, ParsePort(port));
  }
  return parsed;
}

// ParseUrl's answer for the URL last parsed on this thread: a replay sends every request to the
// same URL, and parsing it anew was a visible share of the client's cost per request.
const absl::StatusOr<ParsedUrl>& ParseUrlCached(const std::string& url) {
  thread_local std::string last_url;
  thread_local absl::StatusOr<ParsedUrl> last = absl::InvalidArgumentError("no URL yet");
  if (url != last_url || last_url.empty()) {
    last = ParseUrl(url);
    last_url = url;
  }
  return last;
}

// Validates `request` and serializes its head into `params`.
absl::Status Prepare(const AsyncHttpRequest& request, ExchangeParams* params) {
  if (request.method != "GET" && request.method != "POST") {
    return absl::InvalidArgumentError("unsupported method (GET or POST)");
  }
  if (request.method == "GET" && !request.body.empty()) {
    return absl::InvalidArgumentError("GET with a body");
  }
  if (request.timeout < absl::ZeroDuration() || request.connect_timeout < absl::ZeroDuration()) {
    return absl::InvalidArgumentError("negative timeout");
  }
  const absl::StatusOr<ParsedUrl>& url = ParseUrlCached(request.url);
  if (!url.ok()) return url.status();
  std::string& head = params->head;
  // One allocation for the whole head (the headers' own bytes plus what framing adds).
  size_t head_bytes = 128 + url->target.size() + url->authority.size();
  for (const auto& [name, value] : request.headers) head_bytes += name.size() + value.size() + 4;
  head.reserve(head_bytes);
  absl::StrAppend(&head, request.method, " ", url->target, " HTTP/1.1\r\n");
  bool has_host = false;
  for (const auto& [name, value] : request.headers) {
    if (name.empty() || !std::all_of(name.begin(), name.end(), IsTokenChar) ||
        !IsVisibleText(value, /*allow_spaces=*/true)) {
      return absl::InvalidArgumentError(absl::StrCat("bad header \"", name, "\""));
    }
    if (absl::EqualsIgnoreCase(name, "Transfer-Encoding")) {
      return absl::InvalidArgumentError("Transfer-Encoding is not supported");
    }
    if (absl::EqualsIgnoreCase(name, "Content-Length")) continue;  // ours is the body's size
    has_host = has_host || absl::EqualsIgnoreCase(name, "Host");
    if (absl::EqualsIgnoreCase(name, "Connection") &&
        absl::StrContains(absl::AsciiStrToLower(value), "close")) {
      params->close_after = true;
    }
    absl::StrAppend(&head, name, ": ", value, "\r\n");
  }
  if (!has_host) absl::StrAppend(&head, "Host: ", url->authority, "\r\n");
  if (request.method == "POST" && request.chunked_body) {
    head.append("Transfer-Encoding: chunked\r\n");
    if (!request.body.empty()) {
      params->chunk_prefix = absl::StrCat(absl::Hex(request.body.size()), "\r\n");
      params->chunk_suffix = "\r\n0\r\n\r\n";
    } else {
      params->chunk_suffix = "0\r\n\r\n";
    }
  } else if (request.method == "POST") {
    absl::StrAppend(&head, "Content-Length: ", request.body.size(), "\r\n");
  }
  head.append("\r\n");
  params->host = url->host;
  params->port = url->port;
  params->key = url->authority;
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::unique_ptr<BeastHttpClient>> BeastHttpClient::Create(Options options) {
  if (options.io_threads < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("BeastHttpClient io_threads must be at least 1, got ", options.io_threads));
  }
  return std::unique_ptr<BeastHttpClient>(new BeastHttpClient(options.io_threads));
}

BeastHttpClient::BeastHttpClient(int io_threads) : endpoints_(std::make_unique<EndpointCache>()) {
  for (int i = 0; i < io_threads; ++i) {
    loops_.push_back(std::make_unique<BeastHttpClientLoop>(this, endpoints_.get()));
  }
  threads_.reserve(loops_.size());
  for (const auto& loop : loops_) {
    threads_.emplace_back([raw = loop.get()] { raw->Run(); });
  }
}

BeastHttpClient::~BeastHttpClient() { Shutdown(); }

void BeastHttpClient::Start(const AsyncHttpRequest& request, AsyncHttpObserver* observer) {
  ExchangeParams params;
  params.observer = observer;
  params.in_flight = &in_flight_;
  params.method = request.method;
  params.url = request.url;
  params.body = request.body;
  params.timeout = request.timeout;
  params.connect_timeout = request.connect_timeout;
  if (absl::Status prepared = Prepare(request, &params); !prepared.ok()) {
    params.refused = absl::Status(
        prepared.code(), absl::StrCat(request.method, " ", request.url, ": ", prepared.message()));
  }
  const auto refuse = [&] {
    observer->OnComplete(absl::CancelledError(absl::StrCat(request.method, " ", request.url,
                                                           ": the client is shut down")),
                         std::chrono::steady_clock::now());
  };

  BeastHttpClientLoop* loop = BeastHttpClientLoop::Current();
  if (loop != nullptr && loop->owner() == this) {
    // On one of our threads (an observer chaining its next request): run it here, now.
    if (shut_down_.load()) return refuse();
    in_flight_.fetch_add(1);
    const bool refused = !params.refused.ok();
    auto exchange = std::make_shared<BeastHttpClientExchange>(loop, std::move(params));
    if (!refused) return exchange->Begin();
    // Refused: complete on the next turn, not inside the observer that is calling.
    boost::asio::post(loop->io(), [exchange = std::move(exchange)] { exchange->Begin(); });
    return;
  }
  std::unique_lock<std::mutex> lock(mu_);
  if (shut_down_.load()) {
    lock.unlock();
    return refuse();
  }
  loop = loops_[next_loop_++ % loops_.size()].get();
  in_flight_.fetch_add(1);
  auto exchange = std::make_shared<BeastHttpClientExchange>(loop, std::move(params));
  boost::asio::post(loop->io(), [exchange = std::move(exchange)] { exchange->Begin(); });
}

bool BeastHttpClient::Post(std::function<void()> task) {
  std::lock_guard<std::mutex> lock(mu_);
  if (shut_down_.load()) return false;  // posts before this are queued ahead of Stop
  BeastHttpClientLoop* loop = loops_[next_loop_++ % loops_.size()].get();
  boost::asio::post(loop->io(), std::move(task));
  return true;
}

void BeastHttpClient::Shutdown() {
  std::lock_guard<std::mutex> shutdown_lock(shutdown_mu_);
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (shut_down_.load()) return;
    shut_down_.store(true);
  }
  for (const std::thread& thread : threads_) {
    KV_CHECK(thread.get_id() != std::this_thread::get_id())
        << "AsyncHttpClient::Shutdown from an observer";
  }
  // Every post made before shut_down_ was set is queued ahead of Stop, which refuses it.
  for (const auto& loop : loops_) {
    boost::asio::post(loop->io(), [raw = loop.get()] { raw->Stop(); });
  }
  for (std::thread& thread : threads_) thread.join();
  threads_.clear();
}

}  // namespace kvbench
