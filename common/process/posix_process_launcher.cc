#include "common/process/posix_process_launcher.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <map>
#include <string>
#include <utility>
#include <vector>

// glibc 2.36's <sys/pidfd.h> lacks __BEGIN_DECLS, so C++ would mangle pidfd_open's name.
extern "C" {
#include <sys/pidfd.h>
}

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "common/log/logging.h"
#include "common/process/posix_process.h"
#include "common/status/status_macros.h"

extern char** environ;

namespace kvbench {
namespace {

constexpr mode_t kLogFileMode = 0644;
// Signals a daemon commonly ignores or handles; the child starts with their default action.
constexpr int kSignalsReset[] = {SIGTERM, SIGINT, SIGHUP, SIGPIPE, SIGCHLD, SIGQUIT};
// The lowest descriptor a child inherits nothing at or above.
constexpr int kFirstNonStdFd = 3;

// An owned file descriptor (-1: none).
class ScopedFd {
 public:
  ScopedFd() = default;
  explicit ScopedFd(int fd) : fd_(fd) {}
  ScopedFd(ScopedFd&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  ScopedFd& operator=(ScopedFd&& other) noexcept {
    std::swap(fd_, other.fd_);
    return *this;
  }
  ~ScopedFd() {
    if (fd_ >= 0) ::close(fd_);
  }
  int get() const { return fd_; }
  bool valid() const { return fd_ >= 0; }

 private:
  int fd_ = -1;
};

// posix_spawn's attributes and file actions, destroyed together.
struct SpawnSetup {
  SpawnSetup() {
    KV_CHECK(::posix_spawnattr_init(&attributes) == 0);
    KV_CHECK(::posix_spawn_file_actions_init(&actions) == 0);
  }
  ~SpawnSetup() {
    ::posix_spawn_file_actions_destroy(&actions);
    ::posix_spawnattr_destroy(&attributes);
  }
  SpawnSetup(const SpawnSetup&) = delete;
  SpawnSetup& operator=(const SpawnSetup&) = delete;

  posix_spawnattr_t attributes;
  posix_spawn_file_actions_t actions;
};

absl::Status InternalError(const ProcessSpec& spec, absl::string_view what, int error) {
  return absl::InternalError(
      absl::StrCat("cannot start ", spec.name, ": ", what, ": ", std::strerror(error)));
}

// The spawn-attribute and file-action setters fail only on allocation failure or a bad argument.
void CheckSpawnCall(int result, const char* call) {
  KV_CHECK(result == 0) << call << ": " << std::strerror(result);
}

// The parent's environment (unless !spec.inherit_env) without spec.unset_env, overridden by
// spec.env, as NAME=VALUE.
absl::StatusOr<std::vector<std::string>> BuildEnvironment(const ProcessSpec& spec) {
  std::map<std::string, std::string> variables;
  if (spec.inherit_env) {
    for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
      const absl::string_view text(*entry);
      const size_t equals = text.find('=');
      if (equals == absl::string_view::npos) continue;
      variables.emplace(std::string(text.substr(0, equals)), std::string(text.substr(equals + 1)));
    }
  }
  for (const std::string& name : spec.unset_env) {
    if (spec.env.count(name) > 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "process ", spec.name, ": environment variable ", name, " is both set and unset"));
    }
    variables.erase(name);
  }
  for (const auto& [name, value] : spec.env) {
    if (name.empty() || name.find('=') != std::string::npos) {
      return absl::InvalidArgumentError(absl::StrCat(
          "process ", spec.name, ": invalid environment variable name \"", name, "\""));
    }
    variables[name] = value;
  }
  std::vector<std::string> environment;
  environment.reserve(variables.size());
  for (const auto& [name, value] : variables) environment.push_back(absl::StrCat(name, "=", value));
  return environment;
}

// Opens `path` for appending (created 0644), or /dev/null for "". The descriptor is close-on-exec
// and above 2, so the child's dup2s onto 0-2 never overwrite one another's source.
absl::StatusOr<ScopedFd> OpenOutput(const ProcessSpec& spec, const std::string& path) {
  const char* target = path.empty() ? "/dev/null" : path.c_str();
  ScopedFd fd(::open(target, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, kLogFileMode));
  if (!fd.valid()) return InternalError(spec, absl::StrCat("cannot open log ", target), errno);
  if (fd.get() < kFirstNonStdFd) {
    ScopedFd high(::fcntl(fd.get(), F_DUPFD_CLOEXEC, kFirstNonStdFd));
    if (!high.valid()) return InternalError(spec, absl::StrCat("cannot dup log ", target), errno);
    fd = std::move(high);
  }
  return fd;
}

absl::Status CheckWorkingDir(const ProcessSpec& spec) {
  if (spec.working_dir.empty()) return absl::OkStatus();
  struct stat info {};
  if (::stat(spec.working_dir.c_str(), &info) != 0) {
    return InternalError(spec, absl::StrCat("working_dir ", spec.working_dir), errno);
  }
  if (!S_ISDIR(info.st_mode)) {
    return InternalError(spec, absl::StrCat("working_dir ", spec.working_dir), ENOTDIR);
  }
  return absl::OkStatus();
}

void ConfigureAttributes(posix_spawnattr_t* attributes) {
  sigset_t empty;
  sigemptyset(&empty);
  sigset_t reset;
  sigemptyset(&reset);
  for (int signal : kSignalsReset) sigaddset(&reset, signal);
  CheckSpawnCall(::posix_spawnattr_setpgroup(attributes, 0), "posix_spawnattr_setpgroup");
  CheckSpawnCall(::posix_spawnattr_setsigmask(attributes, &empty), "posix_spawnattr_setsigmask");
  CheckSpawnCall(::posix_spawnattr_setsigdefault(attributes, &reset),
                 "posix_spawnattr_setsigdefault");
  CheckSpawnCall(
      ::posix_spawnattr_setflags(
          attributes, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF),
      "posix_spawnattr_setflags");
}

// stdin from /dev/null, stdout and stderr onto the opened logs, nothing else inherited, then the
// working directory (after the logs, so relative log paths name the parent's directory).
void ConfigureFileActions(const ProcessSpec& spec, int stdout_fd, int stderr_fd,
                          posix_spawn_file_actions_t* actions) {
  CheckSpawnCall(
      ::posix_spawn_file_actions_addopen(actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0),
      "posix_spawn_file_actions_addopen");
  CheckSpawnCall(::posix_spawn_file_actions_adddup2(actions, stdout_fd, STDOUT_FILENO),
                 "posix_spawn_file_actions_adddup2");
  CheckSpawnCall(::posix_spawn_file_actions_adddup2(actions, stderr_fd, STDERR_FILENO),
                 "posix_spawn_file_actions_adddup2");
  CheckSpawnCall(::posix_spawn_file_actions_addclosefrom_np(actions, kFirstNonStdFd),
                 "posix_spawn_file_actions_addclosefrom_np");
  if (!spec.working_dir.empty()) {
    CheckSpawnCall(::posix_spawn_file_actions_addchdir_np(actions, spec.working_dir.c_str()),
                   "posix_spawn_file_actions_addchdir_np");
  }
}

// argv-style view of `strings`, null-terminated; valid while `strings` is.
std::vector<char*> CStrings(const std::vector<std::string>& strings) {
  std::vector<char*> pointers;
  pointers.reserve(strings.size() + 1);
  for (const std::string& text : strings) pointers.push_back(const_cast<char*>(text.c_str()));
  pointers.push_back(nullptr);
  return pointers;
}

absl::StatusOr<pid_t> Spawn(const ProcessSpec& spec, const SpawnSetup& setup,
                            const std::vector<std::string>& environment) {
  const std::string& program = spec.argv[0];
  std::vector<char*> argv = CStrings(spec.argv);
  std::vector<char*> envp = CStrings(environment);
  pid_t pid = 0;
  const int error = program.find('/') == std::string::npos
                        ? ::posix_spawnp(&pid, program.c_str(), &setup.actions, &setup.attributes,
                                         argv.data(), envp.data())
                        : ::posix_spawn(&pid, program.c_str(), &setup.actions, &setup.attributes,
                                        argv.data(), envp.data());
  if (error == 0) return pid;
  if (error == ENOENT || error == EACCES || error == ENOEXEC || error == ENOTDIR) {
    return absl::NotFoundError(absl::StrCat("cannot start ", spec.name, ": program ", program, ": ",
                                            std::strerror(error)));
  }
  return InternalError(spec, absl::StrCat("posix_spawn ", program), error);
}

// A pidfd for the just-spawned `pid`; on failure the child is killed and reaped.
absl::StatusOr<int> OpenPidfd(const ProcessSpec& spec, pid_t pid) {
  const int pidfd = ::pidfd_open(pid, 0);
  if (pidfd >= 0) return pidfd;
  const int error = errno;
  ::kill(-pid, SIGKILL);
  while (::waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
  }
  return InternalError(spec, "pidfd_open", error);
}

}  // namespace

absl::StatusOr<std::unique_ptr<Process>> PosixProcessLauncher::Launch(const ProcessSpec& spec) {
  if (spec.argv.empty()) {
    return absl::InvalidArgumentError(absl::StrCat("process ", spec.name, ": empty argv"));
  }
  KV_ASSIGN_OR_RETURN(std::vector<std::string> environment, BuildEnvironment(spec));
  KV_RETURN_IF_ERROR(CheckWorkingDir(spec));
  KV_ASSIGN_OR_RETURN(ScopedFd stdout_fd, OpenOutput(spec, spec.stdout_path));
  ScopedFd stderr_fd;
  if (!spec.stderr_path.empty()) {
    KV_ASSIGN_OR_RETURN(stderr_fd, OpenOutput(spec, spec.stderr_path));
  }
  SpawnSetup setup;
  ConfigureAttributes(&setup.attributes);
  ConfigureFileActions(spec, stdout_fd.get(), stderr_fd.valid() ? stderr_fd.get() : stdout_fd.get(),
                       &setup.actions);
  KV_ASSIGN_OR_RETURN(pid_t pid, Spawn(spec, setup, environment));
  KV_ASSIGN_OR_RETURN(int pidfd, OpenPidfd(spec, pid));
  KV_LOG(INFO) << "process started name=" << spec.name << " pid=" << pid
               << " argv0=" << spec.argv[0];
  const std::string& log_path = spec.stderr_path.empty() ? spec.stdout_path : spec.stderr_path;
  return std::unique_ptr<Process>(std::make_unique<PosixProcess>(spec.name, pid, pidfd, log_path));
}

}  // namespace kvbench
