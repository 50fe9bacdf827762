// kv-test-child: a scripted child for the process tests. Plain C++/POSIX, no kvbench libraries.
// Flags run in order, left to right:
//   --print TEXT               TEXT and a newline to stdout (unbuffered)
//   --eprint TEXT              TEXT and a newline to stderr
//   --print-env NAME           "NAME=VALUE", or "NAME unset", to stdout
//   --print-cwd                the working directory to stdout
//   --ignore-term              SIGTERM ignored from here on (children forked later inherit it)
//   --default-term             SIGTERM back to its default action
//   --spawn-grandchild PIDFILE fork a grandchild in the same process group that writes its pid to
//                              PIDFILE (atomically) and then pauses forever; returns once written
//   --ready-file PATH          create PATH (tests wait for it instead of sleeping)
//   --wait                     pause until a signal ends the process
//   --exit N                   exit with code N
// With no --exit or --wait the child exits 0 after the last flag. A bad flag or a missing argument
// prints a message to stderr and exits 64 (EX_USAGE).

#include <fcntl.h>
#include <signal.h>
#include <sys/types.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <string>

namespace {

constexpr int kUsageExitCode = 64;
constexpr int kFailureExitCode = 70;  // EX_SOFTWARE: a system call failed

void WriteAll(int fd, const std::string& text) {
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    done += static_cast<size_t>(n);
  }
}

void PrintLine(int fd, const std::string& text) { WriteAll(fd, text + "\n"); }

[[noreturn]] void Fail(const std::string& message, int exit_code) {
  PrintLine(STDERR_FILENO, "kv-test-child: " + message);
  ::_exit(exit_code);
}

[[noreturn]] void FailSyscall(const std::string& what) {
  Fail(what + ": " + std::strerror(errno), kFailureExitCode);
}

[[noreturn]] void PauseForever() {
  for (;;) ::pause();
}

// Writes `content` to a temporary file and renames it onto `path`: readers never see it partial.
void WriteFileAtomically(const std::string& path, const std::string& content) {
  const std::string temporary = path + ".tmp." + std::to_string(::getpid());
  const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) FailSyscall("open " + temporary);
  WriteAll(fd, content);
  ::close(fd);
  if (::rename(temporary.c_str(), path.c_str()) != 0) FailSyscall("rename " + path);
}

void SpawnGrandchild(const std::string& pid_file) {
  int written[2];
  if (::pipe(written) != 0) FailSyscall("pipe");
  const pid_t pid = ::fork();
  if (pid < 0) FailSyscall("fork");
  if (pid == 0) {
    ::close(written[0]);
    WriteFileAtomically(pid_file, std::to_string(::getpid()) + "\n");
    ::close(written[1]);  // tells the parent the pid file is in place
    PauseForever();
  }
  ::close(written[1]);
  char byte;
  while (::read(written[0], &byte, 1) < 0 && errno == EINTR) {
  }
  ::close(written[0]);
}

int ParseExitCode(const std::string& text) {
  char* end = nullptr;
  errno = 0;
  const long code = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || errno != 0 || code < 0 || code > 255) {
    Fail("--exit needs a code in 0..255, got \"" + text + "\"", kUsageExitCode);
  }
  return static_cast<int>(code);
}

void PrintCwd() {
  char buffer[PATH_MAX];
  if (::getcwd(buffer, sizeof(buffer)) == nullptr) FailSyscall("getcwd");
  PrintLine(STDOUT_FILENO, buffer);
}

void PrintEnv(const std::string& name) {
  const char* value = std::getenv(name.c_str());
  PrintLine(STDOUT_FILENO, value == nullptr ? name + " unset" : name + "=" + value);
}

// Runs one flag without an argument; false if `flag` is not one.
bool RunPlainFlag(const std::string& flag) {
  if (flag == "--print-cwd") {
    PrintCwd();
  } else if (flag == "--ignore-term") {
    ::signal(SIGTERM, SIG_IGN);
  } else if (flag == "--default-term") {
    ::signal(SIGTERM, SIG_DFL);
  } else if (flag == "--wait") {
    PauseForever();
  } else {
    return false;
  }
  return true;
}

// Runs one flag for which TakesValue() holds.
void RunValueFlag(const std::string& flag, const std::string& value) {
  if (flag == "--print") {
    PrintLine(STDOUT_FILENO, value);
  } else if (flag == "--eprint") {
    PrintLine(STDERR_FILENO, value);
  } else if (flag == "--print-env") {
    PrintEnv(value);
  } else if (flag == "--spawn-grandchild") {
    SpawnGrandchild(value);
  } else if (flag == "--ready-file") {
    WriteFileAtomically(value, "");
  } else if (flag == "--exit") {
    ::_exit(ParseExitCode(value));
  }
}

bool TakesValue(const std::string& flag) {
  return flag == "--print" || flag == "--eprint" || flag == "--print-env" ||
         flag == "--spawn-grandchild" || flag == "--ready-file" || flag == "--exit";
}

}  // namespace

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    if (TakesValue(flag)) {
      if (i + 1 >= argc) Fail(flag + " needs an argument", kUsageExitCode);
      RunValueFlag(flag, argv[++i]);
    } else if (!RunPlainFlag(flag)) {
      Fail("unknown flag " + flag, kUsageExitCode);
    }
  }
  return 0;
}
