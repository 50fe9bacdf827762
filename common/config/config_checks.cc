#include "common/config/config_checks.h"

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "common/net/host_port.h"

namespace kvbench {

void CheckAbsolutePath(FieldErrors* errors, const std::string& field, const std::string& path,
                       bool required) {
  if (path.empty()) {
    if (required) errors->Add(field, "is required (an absolute path)");
    return;
  }
  if (path.front() != '/') errors->Add(field, absl::StrCat("\"", path, "\" must be absolute"));
}

namespace {

// `path` (absolute, normalized) is "/" or a system folder, or lies in a system tree.
bool IsSystemFolder(const std::string& normal) {
  const std::string folder =
      normal.size() > 1 && normal.back() == '/' ? normal.substr(0, normal.size() - 1) : normal;
  static const char* const kSystem[] = {
      "/",      "/bin", "/boot", "/dev",     "/etc",     "/home",    "/lib",      "/lib32",
      "/lib64", "/opt", "/proc", "/root",    "/run",     "/sbin",    "/srv",      "/sys",
      "/tmp",   "/usr", "/var",  "/var/lib", "/var/run", "/var/tmp", "/usr/local"};
  bool system = false;
  for (const char* dir : kSystem) system |= folder == dir;
  for (const char* tree : {"/proc/", "/sys/", "/dev/", "/boot/", "/etc/"}) {
    system |= folder.rfind(tree, 0) == 0;
  }
  // /dev/shm is a tmpfs for anyone's files, as /tmp is: a folder of one's own in it is fine
  // (the preflight's "an NVMe cache on tmpfs" case), /dev/shm itself is not.
  if (folder.rfind("/dev/shm/", 0) == 0) system = false;
  return system;
}

constexpr char kOwnFolderAdvice[] =
    ": give this daemon a folder of its own (e.g. /var/lib/kvbench); it writes there and kills "
    "the processes named by its run/*.pid files";

}  // namespace

void CheckOwnFolder(FieldErrors* errors, const std::string& field, const std::string& path) {
  if (path.empty() || path.front() != '/') return;  // CheckAbsolutePath's to report
  const std::string normal = std::filesystem::path(path).lexically_normal().string();
  if (IsSystemFolder(normal)) {
    errors->Add(field, absl::StrCat("\"", path, "\" is a system folder", kOwnFolderAdvice));
    return;
  }
  // The folder the daemon would really use: symlinks followed as far as the path exists (a
  // link to /tmp passes any lexical check, and the agent would then make /tmp mode 0700).
  std::error_code error;
  const std::string resolved = std::filesystem::weakly_canonical(path, error).string();
  if (!error && IsSystemFolder(resolved)) {
    errors->Add(field, absl::StrCat("\"", path, "\" resolves to \"", resolved,
                                    "\", a system folder", kOwnFolderAdvice));
  }
}

void ResolveAgainstConfigFile(const std::string& config_path, std::string* path) {
  if (path->empty() || path->front() == '/' || path->find("://") != std::string::npos) return;
  std::error_code error;
  std::filesystem::path folder =
      std::filesystem::absolute(std::filesystem::path(config_path), error).parent_path();
  if (error) return;  // no working directory: left relative, and the validator says so
  *path = (folder / *path).lexically_normal().string();
}

void ResolveTlsPaths(const std::string& config_path, v1::TlsConfig* tls) {
  ResolveAgainstConfigFile(config_path, tls->mutable_ca_cert_path());
  ResolveAgainstConfigFile(config_path, tls->mutable_cert_path());
  ResolveAgainstConfigFile(config_path, tls->mutable_key_path());
}

void CheckHostPort(FieldErrors* errors, const std::string& field, const std::string& address,
                   bool allow_port_zero) {
  absl::StatusOr<HostPort> parsed = ParseHostPort(address);
  if (!parsed.ok()) {
    errors->Add(field, std::string(parsed.status().message()));
  } else if (parsed->port == 0 && !allow_port_zero) {
    errors->Add(field, absl::StrCat("\"", address, "\" needs a port from 1 to 65535"));
  }
}

void CheckSeconds(FieldErrors* errors, const std::string& field, double seconds, double max) {
  if (!std::isfinite(seconds) || seconds <= 0 || seconds > max) {
    errors->Add(
        field,
        absl::StrCat(seconds, " is out of range: must be greater than 0 and at most ", max, " s"));
  }
}

std::string AgentIdProblem(const std::string& id) {
  auto alnum = [](char c) { return absl::ascii_isalnum(static_cast<unsigned char>(c)); };
  const bool ok = !id.empty() && id.size() <= 63 && alnum(id[0]) &&
                  std::all_of(id.begin(), id.end(),
                              [&](char c) { return alnum(c) || c == '.' || c == '_' || c == '-'; });
  if (ok) return "";
  return absl::StrCat("\"", absl::CHexEscape(id),
                      "\" is not 1-63 letters, digits, '.', '_', '-' starting with a letter or "
                      "digit");
}

}  // namespace kvbench
