#include "common/grpc/grpc_credentials.h"

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <sys/stat.h>

#include <fstream>
#include <memory>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/status/status_macros.h"

namespace kvbench {
namespace {

// The whole text of `path`, named by `field` in errors.
absl::StatusOr<std::string> ReadFile(const std::string& path, const char* field) {
  if (path.empty()) return absl::InvalidArgumentError(absl::StrCat(field, " is empty"));
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat(field, ": cannot read ", path));
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return absl::NotFoundError(absl::StrCat(field, ": cannot read ", path));
  return text.str();
}

// OK when the private key at `path` can be read by its owner only, as ssh demands of its keys
// (a key others can read is no longer private). FAILED_PRECONDITION naming the field, the path
// and its mode otherwise.
absl::Status CheckOwnerOnly(const std::string& path, const char* field) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) return absl::OkStatus();  // ReadFile names it
  if ((info.st_mode & (S_IRWXG | S_IRWXO)) == 0) return absl::OkStatus();
  return absl::FailedPreconditionError(absl::StrFormat(
      "%s: %s is readable by others (mode %04o): a private key must be its owner's alone "
      "(chmod 600 %s)",
      field, path, info.st_mode & 07777, path));
}

struct BioFree {
  void operator()(BIO* bio) const { BIO_free(bio); }
};
struct X509Free {
  void operator()(X509* cert) const { X509_free(cert); }
};
struct PkeyFree {
  void operator()(EVP_PKEY* key) const { EVP_PKEY_free(key); }
};
using BioPtr = std::unique_ptr<BIO, BioFree>;
using X509Ptr = std::unique_ptr<X509, X509Free>;
using PkeyPtr = std::unique_ptr<EVP_PKEY, PkeyFree>;

BioPtr MemoryBio(const std::string& text) {
  return BioPtr(BIO_new_mem_buf(text.data(), static_cast<int>(text.size())));
}

// The first certificate of `pem`, or null when it holds none. Parsing errors stay out of
// OpenSSL's thread-local error queue, where gRPC's own TLS code would find them later.
X509Ptr FirstCertificate(const std::string& pem) {
  BioPtr bio = MemoryBio(pem);
  X509Ptr cert(PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr));
  ERR_clear_error();
  return cert;
}

// The PEM certificate(s) of `path`: FAILED_PRECONDITION naming the field when there is none.
absl::StatusOr<std::string> ReadCertificates(const std::string& path, const char* field) {
  KV_ASSIGN_OR_RETURN(std::string pem, ReadFile(path, field));
  if (FirstCertificate(pem) == nullptr) {
    return absl::FailedPreconditionError(
        absl::StrCat(field, ": ", path, " holds no PEM certificate"));
  }
  return pem;
}

// OpenSSL's password callback for encrypted keys: there is none, rather than a prompt on the
// terminal (OpenSSL's default) that would hang a daemon.
int NoPassword(char* /*buffer*/, int /*size*/, int /*writing*/, void* /*data*/) { return 0; }

// The PEM private key of `key_path` after checking that it belongs to the first certificate of
// `cert_pem`: a mismatched pair would fail every handshake with no useful message.
absl::StatusOr<std::string> ReadKeyFor(const std::string& key_path, const std::string& cert_pem,
                                       const std::string& cert_path) {
  KV_RETURN_IF_ERROR(CheckOwnerOnly(key_path, "tls.key_path"));
  KV_ASSIGN_OR_RETURN(std::string pem, ReadFile(key_path, "tls.key_path"));
  BioPtr bio = MemoryBio(pem);
  PkeyPtr key(PEM_read_bio_PrivateKey(bio.get(), nullptr, &NoPassword, nullptr));
  ERR_clear_error();
  if (key == nullptr) {
    return absl::FailedPreconditionError(
        absl::StrCat("tls.key_path: ", key_path, " holds no unencrypted PEM private key"));
  }
  X509Ptr cert = FirstCertificate(cert_pem);
  const bool matches = cert != nullptr && X509_check_private_key(cert.get(), key.get()) == 1;
  ERR_clear_error();
  if (!matches) {
    return absl::FailedPreconditionError(
        absl::StrCat("tls.key_path: ", key_path, " is not the key of tls.cert_path ", cert_path));
  }
  return pem;
}

}  // namespace

absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> MakeServerCredentials(
    const v1::TlsConfig& tls, bool insecure) {
  if (insecure) return grpc::InsecureServerCredentials();
  grpc::SslServerCredentialsOptions options(GRPC_SSL_REQUEST_CLIENT_CERTIFICATE_AND_VERIFY);
  KV_ASSIGN_OR_RETURN(options.pem_root_certs,
                      ReadCertificates(tls.ca_cert_path(), "tls.ca_cert_path"));
  grpc::SslServerCredentialsOptions::PemKeyCertPair pair;
  KV_ASSIGN_OR_RETURN(pair.cert_chain, ReadCertificates(tls.cert_path(), "tls.cert_path"));
  KV_ASSIGN_OR_RETURN(pair.private_key,
                      ReadKeyFor(tls.key_path(), pair.cert_chain, tls.cert_path()));
  options.pem_key_cert_pairs.push_back(std::move(pair));
  return grpc::SslServerCredentials(options);
}

absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>> MakeAgentChannelCredentials(
    const v1::TlsConfig& tls, bool insecure) {
  if (insecure) return grpc::InsecureChannelCredentials();
  grpc::SslCredentialsOptions options;
  KV_ASSIGN_OR_RETURN(options.pem_root_certs,
                      ReadCertificates(tls.ca_cert_path(), "tls.ca_cert_path"));
  KV_ASSIGN_OR_RETURN(options.pem_cert_chain, ReadCertificates(tls.cert_path(), "tls.cert_path"));
  KV_ASSIGN_OR_RETURN(options.pem_private_key,
                      ReadKeyFor(tls.key_path(), options.pem_cert_chain, tls.cert_path()));
  return grpc::SslCredentials(options);
}

absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>> MakeClientChannelCredentials(
    const std::string& ca_cert_path, bool insecure) {
  if (insecure) return grpc::InsecureChannelCredentials();
  grpc::SslCredentialsOptions options;
  if (!ca_cert_path.empty()) {
    KV_ASSIGN_OR_RETURN(options.pem_root_certs, ReadCertificates(ca_cert_path, "ca_cert_path"));
  }
  return grpc::SslCredentials(options);
}

bool HasVerifiedClientCertificate(const grpc::ServerContextBase& context) {
  std::shared_ptr<const grpc::AuthContext> auth = context.auth_context();
  return auth != nullptr && auth->IsPeerAuthenticated() &&
         !auth->FindPropertyValues(GRPC_X509_PEM_CERT_PROPERTY_NAME).empty();
}

std::vector<std::string> ClientCertificateNames(const grpc::ServerContextBase& context) {
  std::vector<std::string> names;
  if (!HasVerifiedClientCertificate(context)) return names;
  std::shared_ptr<const grpc::AuthContext> auth = context.auth_context();
  for (const char* property : {GRPC_X509_CN_PROPERTY_NAME, GRPC_X509_SAN_PROPERTY_NAME}) {
    for (const grpc::string_ref& value : auth->FindPropertyValues(property)) {
      names.emplace_back(value.data(), value.size());
    }
  }
  return names;
}

}  // namespace kvbench
