#include "tests/support/postgres_server.h"

#include <libpq-fe.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <filesystem>
#include <fstream>
#include <functional>
#include <future>
#include <mutex>
#include <optional>
#include <thread>
#include <utility>

// glibc 2.36's <sys/pidfd.h> lacks __BEGIN_DECLS, so C++ would mangle pidfd_open's name.
extern "C" {
#include <sys/pidfd.h>
}

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "common/log/logging.h"
#include "common/process/posix_process_launcher.h"
#include "common/status/status_macros.h"
#include "tests/support/unused_port.h"
#include "tests/support/wait_for.h"

namespace kvbench::testing {
namespace {

// How much of the server's log an error quotes.
constexpr size_t kLogTailLines = 30;
// The folders under the TempDir.
constexpr char kDataDir[] = "data";
constexpr char kSocketDir[] = "socket";
constexpr char kLogFile[] = "postgres.log";
constexpr char kInitdbLogFile[] = "initdb.log";
// What the server gets when the thread that started it ends: immediate shutdown.
constexpr char kDeathSignal[] = "SIGQUIT";
// The lines of postmaster.pid that hold the postmaster's pid and its status (PostgreSQL's
// LOCK_FILE_LINE_PID and LOCK_FILE_LINE_PM_STATUS, 1-based).
constexpr int kPidFilePidLine = 1;
constexpr int kPidFileStatusLine = 8;

// Launches each child from one thread of its own that lives as long as this launcher. A child's
// parent-death signal (PR_SET_PDEATHSIG) fires when the *thread* that forked it ends, so a server
// launched from a short-lived thread (a Restart() in a test's helper thread) would die with it.
class OwnThreadLauncher : public ProcessLauncher {
 public:
  OwnThreadLauncher() : thread_([this] { RunTasks(); }) {}
  ~OwnThreadLauncher() override {
    {
      std::lock_guard<std::mutex> lock(mu_);
      done_ = true;
    }
    wake_.notify_one();
    thread_.join();
  }

  absl::StatusOr<std::unique_ptr<Process>> Launch(const ProcessSpec& spec) override {
    std::packaged_task<absl::StatusOr<std::unique_ptr<Process>>()> task(
        [&] { return launcher_.Launch(spec); });
    auto result = task.get_future();
    {
      std::lock_guard<std::mutex> lock(mu_);
      tasks_.push_back([&task] { task(); });
    }
    wake_.notify_one();
    return result.get();
  }

 private:
  void RunTasks() {
    std::unique_lock<std::mutex> lock(mu_);
    for (;;) {
      wake_.wait(lock, [&] { return done_ || !tasks_.empty(); });
      if (tasks_.empty()) return;
      std::function<void()> task = std::move(tasks_.front());
      tasks_.pop_front();
      lock.unlock();
      task();
      lock.lock();
    }
  }

  PosixProcessLauncher launcher_;
  std::mutex mu_;
  std::condition_variable wake_;
  std::deque<std::function<void()>> tasks_;
  bool done_ = false;
  std::thread thread_;  // last: it starts with the members above in place
};

// Who runs initdb and postgres: this process's user, or under root (which postgres refuses) an
// unprivileged one.
struct ServerUser {
  bool switch_user = false;
  uid_t uid = 0;
  gid_t gid = 0;
  std::string name;
};

ServerUser FindServerUser() {
  if (::geteuid() != 0) return ServerUser{false, ::geteuid(), ::getegid(), "the current user"};
  for (const char* name : {"postgres", "nobody"}) {
    if (const passwd* entry = ::getpwnam(name)) {
      return ServerUser{true, entry->pw_uid, entry->pw_gid, name};
    }
  }
  return ServerUser{false, 0, 0, "root"};  // initdb will refuse, saying so
}

// `setpriv [--reuid --regid --init-groups] --pdeathsig SIGQUIT --`: util-linux's setpriv execs
// without forking, so the pid launched is the postmaster's, and it sets the death signal after
// changing the user (a change of user clears it).
std::vector<std::string> RunAsPrefix(const ServerUser& user) {
  std::vector<std::string> prefix = {"setpriv"};
  if (user.switch_user) {
    prefix.insert(prefix.end(), {absl::StrCat("--reuid=", user.uid),
                                 absl::StrCat("--regid=", user.gid), "--init-groups"});
  }
  prefix.insert(prefix.end(), {"--pdeathsig", kDeathSignal, "--"});
  return prefix;
}

// options.bin_dir, else the bin folder of the highest version under kPostgresInstallRoot that
// has both initdb and postgres.
absl::StatusOr<std::string> FindBinDir(const std::string& bin_dir) {
  namespace fs = std::filesystem;
  auto has_server = [](const fs::path& dir) {
    return ::access((dir / "initdb").c_str(), X_OK) == 0 &&
           ::access((dir / "postgres").c_str(), X_OK) == 0;
  };
  if (!bin_dir.empty()) {
    if (has_server(bin_dir)) return bin_dir;
  } else {
    std::string best;
    double best_version = -1;
    std::error_code error;
    for (const fs::directory_entry& entry : fs::directory_iterator(kPostgresInstallRoot, error)) {
      double version = 0;
      const fs::path bin = entry.path() / "bin";
      if (absl::SimpleAtod(entry.path().filename().string(), &version) && version > best_version &&
          has_server(bin)) {
        best = bin.string();
        best_version = version;
      }
    }
    if (!best.empty()) return best;
  }
  return absl::NotFoundError(
      absl::StrCat("no PostgreSQL server (initdb and postgres) in ",
                   bin_dir.empty() ? absl::StrCat(kPostgresInstallRoot, "/*/bin") : bin_dir,
                   ": install postgresql (deploy/setup.sh)"));
}

absl::Status MakeDir(const std::string& path, mode_t mode, const ServerUser& user) {
  if (::mkdir(path.c_str(), mode) != 0 && errno != EEXIST) {
    return absl::InternalError(absl::StrCat("mkdir ", path, ": ", std::strerror(errno)));
  }
  if (user.switch_user && ::chown(path.c_str(), user.uid, user.gid) != 0) {
    return absl::InternalError(
        absl::StrCat("chown ", path, " to ", user.name, ": ", std::strerror(errno)));
  }
  return absl::OkStatus();
}

// The TempDir searchable by the server user (mkdtemp makes it 0700), the data folder (initdb
// wants it 0700) and the socket folder theirs.
absl::Status PrepareDirs(const TempDir& dir, const ServerUser& user) {
  if (user.switch_user && ::chmod(dir.path().c_str(), 0711) != 0) {
    return absl::InternalError(absl::StrCat("chmod ", dir.path(), ": ", std::strerror(errno)));
  }
  KV_RETURN_IF_ERROR(MakeDir(dir.File(kDataDir), 0700, user));
  return MakeDir(dir.File(kSocketDir), 0755, user);
}

// Pidfds (to poll for POLLIN: exited) of the processes whose parent is `parent`, from /proc.
std::vector<pollfd> OpenChildPidfds(int parent) {
  std::vector<pollfd> children;
  std::error_code error;
  for (const std::filesystem::directory_entry& entry :
       std::filesystem::directory_iterator("/proc", error)) {
    int pid = 0;
    if (!absl::SimpleAtoi(entry.path().filename().string(), &pid)) continue;
    std::ifstream in(entry.path() / "stat");
    std::string stat;
    std::getline(in, stat);
    // "pid (comm) state ppid ...": comm may hold spaces and parentheses.
    const size_t close_paren = stat.rfind(')');
    std::vector<absl::string_view> fields =
        absl::StrSplit(absl::string_view(stat).substr(close_paren + 1), ' ', absl::SkipEmpty());
    int ppid = 0;
    if (close_paren == std::string::npos || fields.size() < 2 ||
        !absl::SimpleAtoi(fields[1], &ppid) || ppid != parent) {
      continue;
    }
    const int fd = ::pidfd_open(pid, 0);
    if (fd >= 0) children.push_back(pollfd{fd, POLLIN, 0});
  }
  return children;
}

// Whether every process of `pidfds` has exited (a zombie that no one reaps counts).
bool AllExited(std::vector<pollfd>& pidfds) {
  if (pidfds.empty()) return true;
  const int ready = ::poll(pidfds.data(), pidfds.size(), 0);
  return ready == static_cast<int>(pidfds.size());
}

std::string OnOff(bool on) { return on ? "on" : "off"; }

// Whether the postmaster's pid file is `pid`'s and says "ready" (as pg_ctl waits). Readiness is
// then confirmed with PQping, but pinging alone would fork a backend and log a FATAL "the
// database system is starting up" per rejected ping, hundreds a second through crash recovery.
// The pid must match: the file a killed server leaves behind says "ready" too.
bool PostmasterSaysReady(const std::string& pid_file, int pid) {
  std::ifstream in(pid_file);
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    if (number == kPidFilePidLine && line != absl::StrCat(pid)) return false;
    if (number == kPidFileStatusLine) return absl::StripAsciiWhitespace(line) == "ready";
  }
  return false;
}

using PgConnection = std::unique_ptr<PGconn, decltype(&PQfinish)>;
using PgResult = std::unique_ptr<PGresult, decltype(&PQclear)>;

}  // namespace

absl::StatusOr<std::unique_ptr<PostgresServer>> PostgresServer::Start(
    PostgresServerOptions options) {
  KV_ASSIGN_OR_RETURN(std::string bin_dir, FindBinDir(options.bin_dir));
  const ServerUser user = FindServerUser();
  std::unique_ptr<PostgresServer> server(
      new PostgresServer(std::move(options), std::move(bin_dir), RunAsPrefix(user)));
  KV_RETURN_IF_ERROR(PrepareDirs(server->dir_, user));
  absl::Status initialized = server->InitDataDir();
  if (!initialized.ok() && user.switch_user) {
    return absl::Status(initialized.code(),
                        absl::StrCat(initialized.message(), "\n(initdb ran as user ", user.name,
                                     ": every folder above ", server->dir_.path(),
                                     " must be searchable by it; see TMPDIR)"));
  }
  KV_RETURN_IF_ERROR(initialized);
  server->port_ = UnusedLoopbackPort();
  if (server->port_ == 0) return absl::UnavailableError("no free port number for postgres");
  KV_RETURN_IF_ERROR(server->Launch());
  return server;
}

PostgresServer::PostgresServer(PostgresServerOptions options, std::string bin_dir,
                               std::vector<std::string> run_as)
    : options_(std::move(options)),
      bin_dir_(std::move(bin_dir)),
      run_as_(std::move(run_as)),
      launcher_(std::make_unique<OwnThreadLauncher>()) {}

PostgresServer::~PostgresServer() {
  absl::Status stopped = Stop();
  if (!stopped.ok()) KV_LOG(WARNING) << "postgres did not stop cleanly: " << stopped.message();
}

std::string PostgresServer::Dsn(const std::string& dbname) const {
  return absl::StrCat("host=", socket_dir(), " port=", port_, " user=", kPostgresUser,
                      " dbname=", dbname);
}

absl::StatusOr<std::string> PostgresServer::CreateDatabase() {
  const std::string name = absl::StrCat("kvbench_test_", ++databases_created_);
  PgConnection connection(PQconnectdb(Dsn().c_str()), &PQfinish);
  if (PQstatus(connection.get()) != CONNECTION_OK) {
    return absl::UnavailableError(absl::StrCat("cannot connect to postgres at ", Dsn(), ": ",
                                               PQerrorMessage(connection.get())));
  }
  PgResult result(PQexec(connection.get(), absl::StrCat("CREATE DATABASE ", name).c_str()),
                  &PQclear);
  if (PQresultStatus(result.get()) != PGRES_COMMAND_OK) {
    return absl::InternalError(
        absl::StrCat("CREATE DATABASE ", name, ": ", PQerrorMessage(connection.get())));
  }
  return Dsn(name);
}

absl::Status PostgresServer::Stop() {
  if (postmaster_ == nullptr) return absl::OkStatus();
  // The postmaster alone: SIGINT to its backends would only cancel their queries.
  if (!postmaster_->TryWait().has_value() && ::kill(postmaster_->pid(), SIGINT) != 0 &&
      errno != ESRCH) {
    return absl::InternalError(absl::StrCat("cannot send SIGINT to postgres (pid ",
                                            postmaster_->pid(), "): ", std::strerror(errno)));
  }
  absl::StatusOr<ExitStatus> exited = postmaster_->Wait(kPostgresStopTimeout);
  if (!exited.ok()) {
    Kill();
    return absl::DeadlineExceededError(absl::StrCat("postgres ignored a fast shutdown for ",
                                                    absl::FormatDuration(kPostgresStopTimeout),
                                                    " and was killed; log:\n", LogTail()));
  }
  postmaster_.reset();
  return absl::OkStatus();
}

absl::Status PostgresServer::Restart() {
  KV_RETURN_IF_ERROR(Stop());
  return Launch();
}

void PostgresServer::Kill() {
  if (postmaster_ == nullptr) return;
  // Stopped, the postmaster forks no child while its children are listed. They are killed too:
  // each calls setsid(), so the group signal misses them, and a backend left running after its
  // postmaster keeps the shared memory attached, which a restart refuses.
  absl::Status killed = postmaster_->Signal(SIGSTOP);
  std::vector<pollfd> children = OpenChildPidfds(postmaster_->pid());
  for (const pollfd& child : children) ::pidfd_send_signal(child.fd, SIGKILL, nullptr, 0);
  if (killed.ok()) killed = postmaster_->Signal(SIGKILL);
  // Stop() waits for the postmaster's group to be gone (its SIGTERM finds no one left).
  if (killed.ok()) killed = postmaster_->Stop(kPostgresStopTimeout).status();
  const bool children_gone = WaitFor([&] { return AllExited(children); }, kPostgresStopTimeout);
  for (const pollfd& child : children) ::close(child.fd);
  KV_CHECK(killed.ok() && children_gone)
      << "cannot kill postgres: " << killed << " children_gone=" << children_gone;
  postmaster_.reset();
}

int PostgresServer::pid() const { return postmaster_ != nullptr ? postmaster_->pid() : 0; }

std::string PostgresServer::socket_dir() const { return dir_.File(kSocketDir); }

std::string PostgresServer::data_dir() const { return dir_.File(kDataDir); }

std::string PostgresServer::log() const { return dir_.ReadFile(kLogFile); }

absl::Status PostgresServer::InitDataDir() {
  ProcessSpec spec;
  spec.name = "initdb";
  spec.argv = run_as_;
  spec.argv.insert(spec.argv.end(), {bin_dir_ + "/initdb", "-D", data_dir(), "-U", kPostgresUser,
                                     "--auth=trust", "-E", "UTF8", "--no-locale"});
  // Even with options_.fsync (seconds on a busy disk): what a test crashes is the server's
  // processes, and the kernel's page cache outlives them.
  spec.argv.push_back("--no-sync");
  // initdb resolves its own path from the working directory, which the server user must reach.
  spec.working_dir = dir_.path();
  spec.stdout_path = dir_.File(kInitdbLogFile);
  KV_ASSIGN_OR_RETURN(std::unique_ptr<Process> initdb, launcher_->Launch(spec));
  absl::StatusOr<ExitStatus> exited = initdb->Wait(kPostgresInitdbTimeout);
  if (!exited.ok() || !exited->success()) {
    return absl::InternalError(absl::StrCat(
        "initdb ", exited.ok() ? exited->ToString() : std::string(exited.status().message()), ": ",
        absl::StrJoin(spec.argv, " "), "\n", dir_.ReadFile(kInitdbLogFile)));
  }
  return absl::OkStatus();
}

absl::Status PostgresServer::Launch() {
  const std::string sync = OnOff(options_.fsync);
  ProcessSpec spec;
  spec.name = "postgres";
  spec.argv = run_as_;
  spec.argv.insert(spec.argv.end(),
                   {bin_dir_ + "/postgres", "-D", data_dir(), "-k", socket_dir(), "-p",
                    absl::StrCat(port_), "-c", "listen_addresses=", "-c", "fsync=" + sync, "-c",
                    "synchronous_commit=" + sync, "-c", "full_page_writes=" + sync});
  spec.working_dir = dir_.path();
  spec.stdout_path = dir_.File(kLogFile);
  KV_ASSIGN_OR_RETURN(postmaster_, launcher_->Launch(spec));
  return AwaitReady();
}

absl::Status PostgresServer::AwaitReady() {
  const std::string dsn = Dsn();
  const std::string pid_file = data_dir() + "/postmaster.pid";
  std::optional<ExitStatus> exited;
  const bool ready = WaitFor(
      [&] {
        if (PostmasterSaysReady(pid_file, postmaster_->pid()) && PQping(dsn.c_str()) == PQPING_OK) {
          return true;
        }
        exited = postmaster_->TryWait();
        return exited.has_value();
      },
      options_.ready_timeout);
  if (ready && !exited.has_value()) return absl::OkStatus();
  std::string why = exited.has_value() ? absl::StrCat("exited (", exited->ToString(), ")")
                                       : absl::StrCat("was not ready after ",
                                                      absl::FormatDuration(options_.ready_timeout));
  Kill();
  return absl::UnavailableError(absl::StrCat("postgres ", why, " (", dsn, "); log:\n", LogTail()));
}

std::string PostgresServer::LogTail() const {
  const std::string text = log();
  std::vector<absl::string_view> lines = absl::StrSplit(text, '\n');
  if (lines.size() > kLogTailLines) lines.erase(lines.begin(), lines.end() - kLogTailLines);
  return absl::StrJoin(lines, "\n");
}

PostgresServer& SharedPostgresServer() {
  static const std::unique_ptr<PostgresServer> server = [] {
    absl::StatusOr<std::unique_ptr<PostgresServer>> started = PostgresServer::Start();
    KV_CHECK(started.ok()) << "the shared PostgreSQL server of this test binary did not start: "
                           << started.status();
    return *std::move(started);
  }();
  return *server;
}

}  // namespace kvbench::testing
