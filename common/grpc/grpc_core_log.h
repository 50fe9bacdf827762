#pragma once

// gRPC core (1.51) writes its own lines through gpr_log, in its own format and straight to
// stderr. A TLS handshake it refuses (a client certificate of another CA, plaintext against the
// TLS port, a client that does not trust our certificate) reaches no kvbench code at all: gRPC
// closes the connection before any service sees it, and prints only OpenSSL's reason. Such
// refusals must be named on the server's side too, so this routes gRPC core's lines
// into kvbench's logger and turns each refused handshake into a kvbench line saying what it most
// likely means, rate limited per cause (a scanner must not flood the log), and counted for
// /metrics. gRPC's lines carry no peer address, so neither can ours.
//
//   RouteGrpcCoreLogs(GrpcRole::kServer);   // once, in main, before any channel or server
//   W ... refused a TLS connection: the client's certificate is not signed by a CA this
//     controller trusts (an agent of another PKI, or a stale certificate)
//     cause=untrusted_certificate openssl="CERTIFICATE_VERIFY_FAILED" refused=3 since_last_line=2

#include <array>
#include <cstdint>

#include "absl/strings/string_view.h"

namespace kvbench {

// Why a server refused a TLS handshake, from the OpenSSL reason gRPC logs.
enum class TlsRefusal {
  kNone = 0,               // not a handshake failure
  kUntrustedCertificate,   // the client's certificate does not chain to our CA
  kNoCertificate,          // a client certificate was required and none came
  kNotTls,                 // the client spoke plaintext (or another protocol) to the TLS port
  kClientDistrustsServer,  // the client sent an alert: it does not trust our certificate
  kClosedDuringHandshake,  // the client closed the connection mid-handshake (a gRPC client that
                           // does not trust our certificate does so, without an alert)
  kOther,                  // another handshake failure (protocol versions, ciphers, ...)
};
inline constexpr int kTlsRefusalKinds = 7;

// The cause of a gRPC core line, or kNone. Only the server's one line per failed handshake counts
// (chttp2_server's "Handshaking failed: ..."), so each refusal is counted once.
TlsRefusal ClassifyGrpcCoreLine(absl::string_view message);
// "untrusted_certificate", "no_certificate", "not_tls", "client_distrusts_server",
// "closed_during_handshake", "other".
absl::string_view TlsRefusalName(TlsRefusal refusal);
// What it most likely means, for an operator.
absl::string_view TlsRefusalMeaning(TlsRefusal refusal);

// Which side of TLS this process is: only a server's handshake failures are refusals (a client's
// are reported by the code that dialled, e.g. the agent's TlsFailureHint).
enum class GrpcRole { kServer, kClient };

// Routes gRPC core's lines into kvbench's logger (its errors as errors, its info and debug lines
// at debug level, with gRPC's file and line), for the whole process; a server's refused
// handshakes become the line above. A server asks gRPC for its debug lines too: the handshake
// failures are among them (gRPC 1.51 logs them at debug). Idempotent.
void RouteGrpcCoreLogs(GrpcRole role);

// Handshakes refused since the process started, by cause (index: TlsRefusal).
std::array<int64_t, kTlsRefusalKinds> TlsRefusalCounts();

}  // namespace kvbench
