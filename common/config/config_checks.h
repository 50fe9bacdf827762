#pragma once

#include <string>

#include "common/json/proto_json.h"
#include "kvbench/v1/config.pb.h"

namespace kvbench {

// Field checks shared by the daemon config validators; each adds a FieldError naming `field`.

// Non-empty absolute path.
void CheckAbsolutePath(FieldErrors* errors, const std::string& field, const std::string& path,
                       bool required);
// host:port (port 0 allowed only when `allow_port_zero`).
void CheckHostPort(FieldErrors* errors, const std::string& field, const std::string& address,
                   bool allow_port_zero);
// A path of a config file relative to that file's folder: `path` made absolute against
// `config_path`'s folder (itself made absolute against the working directory). Empty paths,
// absolute paths and URLs (scheme://) are left as they are.
void ResolveAgainstConfigFile(const std::string& config_path, std::string* path);
// ResolveAgainstConfigFile of a TLS block's three paths.
void ResolveTlsPaths(const std::string& config_path, v1::TlsConfig* tls);
// A folder a daemon owns (work_dir, data_dir, cache dirs) may not be "/" or a system folder
// ("/etc", "/tmp", "/var", anything under /proc, /sys, /dev but /dev/shm, /boot, /etc), as
// written or once its symlinks are resolved (as far as the path exists): a work_dir of "/" would
// make the agent kill the processes named by the system's /run/*.pid at start.
void CheckOwnFolder(FieldErrors* errors, const std::string& field, const std::string& path);

// (0, max] seconds.
// An agent id names folders (scenario ids of fanned-out jobs carry it) and certificates: 1-63
// letters, digits, '.', '_', '-', starting with a letter or digit. "" when `id` is one, else why
// not.
std::string AgentIdProblem(const std::string& id);

void CheckSeconds(FieldErrors* errors, const std::string& field, double seconds, double max);

}  // namespace kvbench
