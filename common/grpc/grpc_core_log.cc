#include "common/grpc/grpc_core_log.h"

#include <grpc/support/log.h>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/strip.h"
#include "common/log/logging.h"

namespace kvbench {
namespace {

// One refusal line per cause at most this often; the rest are counted into the next line.
constexpr int64_t kRefusalLinePeriodUs = 10'000'000;

std::array<std::atomic<int64_t>, kTlsRefusalKinds> g_refused{};
std::array<std::atomic<int64_t>, kTlsRefusalKinds> g_unlogged{};
// When each cause was last logged (steady µs); "long ago" at start, so the first one is.
std::array<std::atomic<int64_t>, kTlsRefusalKinds>& LastLineUs() {
  static std::array<std::atomic<int64_t>, kTlsRefusalKinds>* last = [] {
    auto* array = new std::array<std::atomic<int64_t>, kTlsRefusalKinds>();
    for (std::atomic<int64_t>& value : *array) value.store(INT64_MIN / 2);
    return array;
  }();
  return *last;
}
std::atomic<int> g_role{static_cast<int>(GrpcRole::kClient)};

// The OpenSSL reasons (lower case; OpenSSL 3 prints them so, older ones in upper case with
// underscores) that name each cause. Seen on Debian 12's gRPC 1.51 + OpenSSL 3.0 by
// tests/e2e/rogue_agents.sh, which pins the lines this reads.
struct Reason {
  const char* text;
  TlsRefusal refusal;
};
constexpr Reason kReasons[] = {
    {"certificate verify failed", TlsRefusal::kUntrustedCertificate},
    {"certificate_verify_failed", TlsRefusal::kUntrustedCertificate},
    {"peer did not return a certificate", TlsRefusal::kNoCertificate},
    {"peer_did_not_return_a_certificate", TlsRefusal::kNoCertificate},
    {"wrong version number", TlsRefusal::kNotTls},
    {"wrong_version_number", TlsRefusal::kNotTls},
    {"http request", TlsRefusal::kNotTls},
    {"http_request", TlsRefusal::kNotTls},
    {"packet length too long", TlsRefusal::kNotTls},
    {"alert unknown ca", TlsRefusal::kClientDistrustsServer},
    {"alert_unknown_ca", TlsRefusal::kClientDistrustsServer},
    {"alert bad certificate", TlsRefusal::kClientDistrustsServer},
    {"alert_bad_certificate", TlsRefusal::kClientDistrustsServer},
    {"alert certificate unknown", TlsRefusal::kClientDistrustsServer},
    {"alert_certificate_unknown", TlsRefusal::kClientDistrustsServer},
    {"handshake read failed", TlsRefusal::kClosedDuringHandshake},
};

// What gRPC says failed, without its error's attributes: from "Handshaking failed: UNKNOWN:Ssl
// handshake failed: SSL_ERROR_SSL: error:0A000086:SSL routines::certificate verify failed
// {tsi_code:10, ...}" the part before " {", at most 200 characters.
absl::string_view GrpcDetail(absl::string_view message) {
  absl::string_view detail = message;
  absl::ConsumePrefix(&detail, "Handshaking failed: ");
  detail = detail.substr(0, std::min(detail.find(" {"), size_t{200}));
  return absl::StripAsciiWhitespace(detail);
}

LogLevel LevelOf(int gpr_severity) {
  switch (gpr_severity) {
    case GPR_LOG_SEVERITY_DEBUG:
    case GPR_LOG_SEVERITY_INFO:
      return LogLevel::kDebug;  // gRPC's chatter; its errors stay errors
    default:
      return LogLevel::kError;
  }
}

void Handle(GrpcRole role, const char* file, int line, int gpr_severity, const char* message) {
  const absl::string_view text(message == nullptr ? "" : message);
  const TlsRefusal refusal =
      role == GrpcRole::kServer ? ClassifyGrpcCoreLine(text) : TlsRefusal::kNone;
  if (refusal == TlsRefusal::kNone) {
    const LogLevel level = LevelOf(gpr_severity);
    if (level >= MinLogLevel()) {
      log_internal::LogMessage(file, line, level).stream() << "grpc: " << text;
    }
    return;
  }
  const int index = static_cast<int>(refusal);
  const int64_t total = g_refused[index].fetch_add(1) + 1;
  if (MinLogLevel() <= LogLevel::kDebug) {
    log_internal::LogMessage(file, line, LogLevel::kDebug).stream() << "grpc: " << text;
  }
  if (!log_internal::ShouldLogEvery(&LastLineUs()[index], kRefusalLinePeriodUs)) {
    g_unlogged[index].fetch_add(1);
    return;
  }
  const int64_t unlogged = g_unlogged[index].exchange(0);
  KV_LOG(WARNING) << "refused a TLS connection: " << TlsRefusalMeaning(refusal)
                  << " cause=" << TlsRefusalName(refusal) << " grpc=\"" << GrpcDetail(text)
                  << "\" refused=" << total << " since_last_line=" << unlogged + 1;
}

void GprHook(gpr_log_func_args* args) {
  Handle(static_cast<GrpcRole>(g_role.load()), args->file, args->line,
         static_cast<int>(args->severity), args->message);
}

}  // namespace

TlsRefusal ClassifyGrpcCoreLine(absl::string_view message) {
  if (!absl::StartsWith(message, "Handshaking failed")) return TlsRefusal::kNone;
  const std::string lower = absl::AsciiStrToLower(message);
  for (const Reason& reason : kReasons) {
    if (absl::StrContains(lower, reason.text)) return reason.refusal;
  }
  return TlsRefusal::kOther;
}

absl::string_view TlsRefusalName(TlsRefusal refusal) {
  switch (refusal) {
    case TlsRefusal::kNone:
      return "none";
    case TlsRefusal::kUntrustedCertificate:
      return "untrusted_certificate";
    case TlsRefusal::kNoCertificate:
      return "no_certificate";
    case TlsRefusal::kNotTls:
      return "not_tls";
    case TlsRefusal::kClientDistrustsServer:
      return "client_distrusts_server";
    case TlsRefusal::kClosedDuringHandshake:
      return "closed_during_handshake";
    case TlsRefusal::kOther:
      return "other";
  }
  return "other";
}

absl::string_view TlsRefusalMeaning(TlsRefusal refusal) {
  switch (refusal) {
    case TlsRefusal::kUntrustedCertificate:
      return "the client's certificate is not signed by a CA this server trusts (an agent "
             "certificate of another PKI, or an expired or revoked one)";
    case TlsRefusal::kNoCertificate:
      return "the client presented no certificate where one is required";
    case TlsRefusal::kNotTls:
      return "the client does not speak TLS (a plaintext client, e.g. an agent or kvctl with "
             "\"insecure\": true, or another protocol) on the TLS port";
    case TlsRefusal::kClientDistrustsServer:
      return "the client does not trust this server's certificate (its ca_cert_path is not the "
             "CA that signed ours, or it dialled a name our certificate does not carry)";
    case TlsRefusal::kClosedDuringHandshake:
      return "the client closed the connection during the TLS handshake (a gRPC client that does "
             "not trust this server's certificate does so: its ca_cert_path is not the CA that "
             "signed ours)";
    case TlsRefusal::kOther:
      return "the TLS handshake failed (protocol versions or ciphers the client and this server "
             "do not share, or a connection cut mid-handshake)";
    case TlsRefusal::kNone:
      break;
  }
  return "not a TLS refusal";
}

void RouteGrpcCoreLogs(GrpcRole role) {
  static std::once_flag once;
  g_role.store(static_cast<int>(role));
  std::call_once(once, [role] {
    gpr_set_log_function(&GprHook);
    // gRPC 1.51 logs a server's failed handshakes at debug; our hook keeps its debug lines at
    // our debug level, so asking for them costs a formatted string per line and no noise.
    if (role == GrpcRole::kServer) gpr_set_log_verbosity(GPR_LOG_SEVERITY_DEBUG);
  });
}

std::array<int64_t, kTlsRefusalKinds> TlsRefusalCounts() {
  std::array<int64_t, kTlsRefusalKinds> counts{};
  for (int i = 0; i < kTlsRefusalKinds; ++i) counts[i] = g_refused[i].load();
  return counts;
}

}  // namespace kvbench
