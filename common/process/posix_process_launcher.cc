#include "common/process/posix_process_launcher.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
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
#include "absl/strings/str_split.h"
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

absl::Status InternalError(const ProcessSpec& spec, absl::string_view what, int error) {
  return absl::InternalError(
      absl::StrCat("cannot start ", spec.name, ": ", what, ": ", std::strerror(error)));
}

// NOT_FOUND naming the process and the program that cannot be run.
absl::Status ProgramNotFound(const ProcessSpec& spec, const std::string& program, int error) {
  return absl::NotFoundError(
      absl::StrCat("cannot start ", spec.name, ": program ", program, ": ", std::strerror(error)));
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

// Opens `target` with `flags` | O_CLOEXEC (created 0644 with O_CREAT), as a descriptor above 2, so
// the child's dup2s onto 0-2 never overwrite one another's source.
absl::StatusOr<ScopedFd> OpenForChild(const ProcessSpec& spec, const char* target, int flags) {
  ScopedFd fd(::open(target, flags | O_CLOEXEC, kLogFileMode));
  if (!fd.valid()) return InternalError(spec, absl::StrCat("cannot open ", target), errno);
  if (fd.get() < kFirstNonStdFd) {
    ScopedFd high(::fcntl(fd.get(), F_DUPFD_CLOEXEC, kFirstNonStdFd));
    if (!high.valid()) return InternalError(spec, absl::StrCat("cannot dup ", target), errno);
    fd = std::move(high);
  }
  return fd;
}

// A log opened for appending, or /dev/null for "".
absl::StatusOr<ScopedFd> OpenOutput(const ProcessSpec& spec, const std::string& path) {
  return OpenForChild(spec, path.empty() ? "/dev/null" : path.c_str(),
                      O_WRONLY | O_CREAT | O_APPEND);
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

// argv-style view of `strings`, null-terminated; valid while `strings` is.
std::vector<char*> CStrings(const std::vector<std::string>& strings) {
  std::vector<char*> pointers;
  pointers.reserve(strings.size() + 1);
  for (const std::string& text : strings) pointers.push_back(const_cast<char*>(text.c_str()));
  pointers.push_back(nullptr);
  return pointers;
}

// The program's path: argv[0] itself when it holds a '/', else the first executable regular file
// of that name on the parent's PATH (as posix_spawnp and execvp search). Resolved before fork, so
// the child only makes system calls.
absl::StatusOr<std::string> ResolveProgram(const ProcessSpec& spec) {
  const std::string& program = spec.argv[0];
  auto not_found = [&](int error) { return ProgramNotFound(spec, program, error); };
  if (program.empty()) return not_found(ENOENT);
  if (program.find('/') != std::string::npos) return program;
  const char* path = std::getenv("PATH");
  for (absl::string_view dir : absl::StrSplit(path != nullptr ? path : "/usr/bin:/bin", ':')) {
    const std::string candidate = absl::StrCat(dir.empty() ? "." : dir, "/", program);
    struct stat info {};
    if (::stat(candidate.c_str(), &info) == 0 && S_ISREG(info.st_mode) &&
        ::access(candidate.c_str(), X_OK) == 0) {
      return candidate;
    }
  }
  return not_found(ENOENT);
}

// Everything the child needs, prepared by the parent: between fork and exec the child makes only
// async-signal-safe system calls (the parent has other threads, whose locks it may have copied).
struct ChildPlan {
  const char* program;
  char* const* argv;
  char* const* envp;
  int stdin_fd;
  int stdout_fd;
  int stderr_fd;
  const char* working_dir;  // nullptr: the parent's
  pid_t parent;
  int error_fd;  // close-on-exec write end: the child writes errno there when exec fails
};

[[noreturn]] void ChildFail(const ChildPlan& plan) {
  const int error = errno;
  ssize_t ignored = ::write(plan.error_fd, &error, sizeof(error));
  (void)ignored;
  ::_exit(127);
}

[[noreturn]] void RunChild(const ChildPlan& plan) {
  // Dies with the thread that launched it (an agent or kvctl run killed with -9 takes
  // its engines, cache servers, Caddy and runner along). SIGTERM, so each ends as it would when
  // stopped (the runner writes its records); what ignores it is swept by pid file at next start.
  if (::prctl(PR_SET_PDEATHSIG, SIGTERM) != 0) ChildFail(plan);
  if (::getppid() != plan.parent) ::_exit(128 + SIGTERM);  // the parent died before prctl
  if (::setpgid(0, 0) != 0) ChildFail(plan);
  struct sigaction default_action {};
  default_action.sa_handler = SIG_DFL;
  for (int signal : kSignalsReset) ::sigaction(signal, &default_action, nullptr);
  sigset_t empty;
  ::sigemptyset(&empty);
  ::sigprocmask(SIG_SETMASK, &empty, nullptr);
  if (::dup2(plan.stdin_fd, STDIN_FILENO) < 0 || ::dup2(plan.stdout_fd, STDOUT_FILENO) < 0 ||
      ::dup2(plan.stderr_fd, STDERR_FILENO) < 0) {
    ChildFail(plan);
  }
  // Nothing else is inherited: every descriptor above 2 closes at exec (the error pipe included).
  if (::close_range(kFirstNonStdFd, ~0U, CLOSE_RANGE_CLOEXEC) != 0) ChildFail(plan);
  if (plan.working_dir != nullptr && ::chdir(plan.working_dir) != 0) ChildFail(plan);
  ::execve(plan.program, plan.argv, plan.envp);
  ChildFail(plan);
}

absl::StatusOr<pid_t> Spawn(const ProcessSpec& spec, const std::string& program,
                            const std::vector<std::string>& environment, int stdin_fd,
                            int stdout_fd, int stderr_fd) {
  std::vector<char*> argv = CStrings(spec.argv);
  std::vector<char*> envp = CStrings(environment);
  int pipe_fds[2];
  if (::pipe2(pipe_fds, O_CLOEXEC) != 0) return InternalError(spec, "pipe2", errno);
  ScopedFd read_end(pipe_fds[0]);
  ScopedFd write_end(pipe_fds[1]);
  const ChildPlan plan{program.c_str(),
                       argv.data(),
                       envp.data(),
                       stdin_fd,
                       stdout_fd,
                       stderr_fd,
                       spec.working_dir.empty() ? nullptr : spec.working_dir.c_str(),
                       ::getpid(),
                       write_end.get()};
  const pid_t pid = ::fork();
  if (pid < 0) return InternalError(spec, "fork", errno);
  if (pid == 0) RunChild(plan);
  write_end = ScopedFd();
  // The child leads its own group from here on whichever runs first (the parent's setpgid
  // closes the race with a signal sent to -pid right after Launch returns).
  ::setpgid(pid, pid);
  int error = 0;
  ssize_t n = 0;
  do {
    n = ::read(read_end.get(), &error, sizeof(error));
  } while (n < 0 && errno == EINTR);
  if (n <= 0) return pid;  // exec succeeded: the pipe closed with nothing written
  while (::waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
  }
  if (error == ENOENT || error == EACCES || error == ENOEXEC || error == ENOTDIR) {
    return ProgramNotFound(spec, program, error);
  }
  return InternalError(spec, absl::StrCat("exec ", program), error);
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
  KV_ASSIGN_OR_RETURN(std::string program, ResolveProgram(spec));
  KV_ASSIGN_OR_RETURN(ScopedFd stdin_fd, OpenForChild(spec, "/dev/null", O_RDONLY));
  KV_ASSIGN_OR_RETURN(pid_t pid, Spawn(spec, program, environment, stdin_fd.get(), stdout_fd.get(),
                                       stderr_fd.valid() ? stderr_fd.get() : stdout_fd.get()));
  KV_ASSIGN_OR_RETURN(int pidfd, OpenPidfd(spec, pid));
  KV_LOG(INFO) << "process started name=" << spec.name << " pid=" << pid
               << " argv0=" << spec.argv[0];
  const std::string& log_path = spec.stderr_path.empty() ? spec.stdout_path : spec.stderr_path;
  return std::unique_ptr<Process>(std::make_unique<PosixProcess>(spec.name, pid, pidfd, log_path));
}

}  // namespace kvbench
