#include "controller/alerts/webhook_sender.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"

namespace kvbench::controller {
namespace {

constexpr absl::string_view kSchemeSeparator = "://";
// What stands in for the hidden parts of a URL in messages.
constexpr absl::string_view kHidden = "***";

// The URL with its user-info ("user:password@") and its query (and fragment) replaced by ***:
// either may carry a credential, and details end up in records and logs.
std::string RedactUrl(absl::string_view url) {
  // Without a scheme (an invalid URL, named in its error), the authority starts the text.
  const size_t scheme_end = url.find(kSchemeSeparator);
  const size_t authority_begin =
      scheme_end == absl::string_view::npos ? 0 : scheme_end + kSchemeSeparator.size();
  const size_t authority_end = std::min(url.find_first_of("/?#", authority_begin), url.size());
  absl::string_view authority = url.substr(authority_begin, authority_end - authority_begin);
  const size_t at = authority.rfind('@');
  std::string redacted(url.substr(0, authority_begin));
  if (at != absl::string_view::npos) {
    absl::StrAppend(&redacted, kHidden, "@");
    authority.remove_prefix(at + 1);
  }
  absl::StrAppend(&redacted, authority);
  const absl::string_view rest = url.substr(authority_end);
  const size_t query = rest.find_first_of("?#");
  absl::StrAppend(&redacted, rest.substr(0, query));
  if (query != absl::string_view::npos) absl::StrAppend(&redacted, rest.substr(query, 1), kHidden);
  return redacted;
}

// `text` on one line of printable ASCII: line breaks and tabs become spaces, other bytes '?'
// (a receiver's body may be anything; details go into one-line records and protos).
std::string OneLine(absl::string_view text) {
  std::string line(text);
  for (char& c : line) {
    if (c == '\r' || c == '\n' || c == '\t') {
      c = ' ';
    } else if (!absl::ascii_isprint(static_cast<unsigned char>(c))) {
      c = '?';
    }
  }
  return line;
}

// The start of a response body for a detail, saying how long it was when cut.
std::string BodyExcerpt(absl::string_view kept, uint64_t total_bytes) {
  if (total_bytes <= kept.size()) return OneLine(kept);
  return absl::StrCat(OneLine(kept), "... (", total_bytes, " bytes)");
}

// A receiver's response body, as much of it as a detail shows: the first kWebhookDetailBodyBytes
// bytes are kept and the rest only counted, so a receiver answering with a body of gigabytes
// costs the controller no memory (the attempt's timeout bounds how long it may send).
struct CappedBody {
  std::string kept;
  uint64_t total_bytes = 0;

  bool Add(absl::string_view chunk) {
    total_bytes += chunk.size();
    if (kept.size() < kWebhookDetailBodyBytes) {
      const absl::string_view start = chunk.substr(0, kWebhookDetailBodyBytes - kept.size());
      kept.append(start.data(), start.size());
    }
    return true;
  }
};

std::string ResponseDetail(const HttpResponse& response, const CappedBody& body,
                           absl::string_view redacted_url) {
  std::string detail = absl::StrCat("HTTP ", response.status, " from ", redacted_url);
  if (response.status >= 300 && response.status <= 399) {
    const std::optional<std::string> location = response.Header("Location");
    absl::StrAppend(&detail, " (redirects are not followed: point the webhook at ",
                    location.has_value() ? OneLine(RedactUrl(*location)) : "the new URL", ")");
  }
  if (body.total_bytes > 0) {
    absl::StrAppend(&detail, ": ", BodyExcerpt(body.kept, body.total_bytes));
  }
  return detail;
}

std::string FailureDetail(const absl::Status& status, absl::string_view url,
                          absl::string_view redacted_url) {
  // Client messages name the URL in full; the detail must not carry what RedactUrl hides.
  std::string message(status.message());
  if (url != redacted_url) message = absl::StrReplaceAll(message, {{url, redacted_url}});
  return OneLine(absl::StrCat(absl::StatusCodeToString(status.code()), ": ", message));
}

DeliveryAttempt PermanentFailure(std::string detail) {
  DeliveryAttempt attempt;
  attempt.outcome = DeliveryOutcome::kPermanentFailure;
  attempt.detail = std::move(detail);
  return attempt;
}

// OK for "host", "host:port", "[v6]" or "[v6]:port" (after any user-info); else what is wrong.
absl::Status CheckAuthority(absl::string_view authority, absl::string_view redacted_url) {
  const size_t at = authority.rfind('@');
  if (at != absl::string_view::npos) authority.remove_prefix(at + 1);
  size_t host_end = authority.size();
  if (absl::StartsWith(authority, "[")) {
    host_end = authority.find(']');
    if (host_end == absl::string_view::npos) {
      return absl::InvalidArgumentError(
          absl::StrCat("webhook URL \"", redacted_url, "\": unclosed '[' in the host"));
    }
    ++host_end;
    if (host_end < authority.size() && authority[host_end] != ':') {
      return absl::InvalidArgumentError(
          absl::StrCat("webhook URL \"", redacted_url, "\": unexpected text after ']'"));
    }
  } else {
    host_end = std::min(authority.find(':'), authority.size());
  }
  if (host_end == 0 || absl::string_view(authority.substr(0, host_end)) == "[]") {
    return absl::InvalidArgumentError(absl::StrCat("webhook URL \"", redacted_url, "\": no host"));
  }
  if (host_end < authority.size()) {
    const absl::string_view port = authority.substr(host_end + 1);
    int port_number = 0;
    if (port.empty() || !std::all_of(port.begin(), port.end(), absl::ascii_isdigit) ||
        !absl::SimpleAtoi(port, &port_number) || port_number < 1 || port_number > 65535) {
      return absl::InvalidArgumentError(absl::StrCat("webhook URL \"", redacted_url, "\": port \"",
                                                     port, "\" is not a number in 1-65535"));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status ValidateWebhookUrl(absl::string_view url) {
  if (url.empty()) return absl::InvalidArgumentError("webhook URL: empty");
  const std::string redacted = RedactUrl(url);
  for (size_t i = 0; i < url.size(); ++i) {
    const auto byte = static_cast<unsigned char>(url[i]);
    if (byte < 0x21 || byte > 0x7E) {
      return absl::InvalidArgumentError(
          absl::StrCat("webhook URL \"", absl::CHexEscape(redacted), "\": character ", i + 1,
                       " is whitespace, a control character or not ASCII (percent-encode it)"));
    }
  }
  const size_t scheme_end = url.find(kSchemeSeparator);
  const absl::string_view scheme =
      scheme_end == absl::string_view::npos ? absl::string_view() : url.substr(0, scheme_end);
  if (!absl::EqualsIgnoreCase(scheme, "http") && !absl::EqualsIgnoreCase(scheme, "https")) {
    return absl::InvalidArgumentError(
        absl::StrCat("webhook URL \"", redacted, "\": must start with http:// or https://"));
  }
  const size_t authority_begin = scheme_end + kSchemeSeparator.size();
  const size_t authority_end = std::min(url.find_first_of("/?#", authority_begin), url.size());
  return CheckAuthority(url.substr(authority_begin, authority_end - authority_begin), redacted);
}

WebhookSender::WebhookSender(HttpClient* http_client, const Clock* clock)
    : http_client_(http_client), clock_(clock) {}

DeliveryAttempt WebhookSender::Send(const WebhookTarget& target, absl::string_view delivery_id,
                                    absl::string_view json_body) const {
  if (absl::Status url_ok = ValidateWebhookUrl(target.url); !url_ok.ok()) {
    return PermanentFailure(std::string(url_ok.message()));
  }
  if (absl::Status id_ok = ValidateWebhookId(delivery_id); !id_ok.ok()) {
    return PermanentFailure(std::string(id_ok.message()));
  }
  const std::string redacted_url = RedactUrl(target.url);

  DeliveryAttempt attempt;
  attempt.attempted_at = clock_->Now();
  HttpRequest request;
  request.method = "POST";
  request.url = target.url;
  request.headers = WebhookHeaders(target.key, delivery_id, attempt.attempted_at, json_body);
  request.body = std::string(json_body);
  request.timeout = target.timeout;
  // The connection is part of the attempt: a short attempt gets a connect limit as short.
  if (target.timeout > absl::ZeroDuration()) {
    request.connect_timeout = std::min(kDefaultHttpConnectTimeout, target.timeout);
  }

  CappedBody body;
  const absl::StatusOr<HttpResponse> response = http_client_->SendStreaming(
      request, [&body](absl::string_view chunk) { return body.Add(chunk); });
  attempt.outcome = ClassifyWebhookResponse(response);
  attempt.retry_after = WebhookRetryAfter(response).value_or(absl::ZeroDuration());
  if (response.ok()) {
    attempt.http_status = response->status;
    attempt.detail = ResponseDetail(*response, body, redacted_url);
  } else {
    attempt.detail = FailureDetail(response.status(), target.url, redacted_url);
  }
  return attempt;
}

}  // namespace kvbench::controller
