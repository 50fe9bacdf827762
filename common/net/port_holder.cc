#include "common/net/port_holder.h"

#include <dirent.h>
#include <unistd.h>

#include <cctype>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"

namespace kvbench {
namespace {

constexpr char kListenState[] = "0A";  // TCP_LISTEN in /proc/net/tcp{,6}

// Socket inodes listening on `port`, from one /proc/net/tcp-style table.
void ListeningInodes(const std::string& table, int port, std::set<std::string>* inodes) {
  std::ifstream in(table);
  std::string line;
  std::getline(in, line);  // header
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string slot, local, remote, state, queues, timer, retransmits, uid, timeout, inode;
    if (!(fields >> slot >> local >> remote >> state >> queues >> timer >> retransmits >> uid >>
          timeout >> inode)) {
      continue;
    }
    const size_t colon = local.rfind(':');
    if (colon == std::string::npos || state != kListenState) continue;
    if (std::strtol(local.c_str() + colon + 1, nullptr, 16) == port) inodes->insert(inode);
  }
}

std::vector<std::string> Entries(const std::string& folder) {
  std::vector<std::string> names;
  if (DIR* dir = ::opendir(folder.c_str())) {
    while (const dirent* entry = ::readdir(dir)) {
      if (entry->d_name[0] != '.') names.emplace_back(entry->d_name);
    }
    ::closedir(dir);
  }
  return names;
}

std::string Comm(const std::string& pid) {
  std::ifstream in(absl::StrCat("/proc/", pid, "/comm"));
  std::string comm;
  std::getline(in, comm);
  return std::string(absl::StripAsciiWhitespace(comm));
}

}  // namespace

std::string DescribeTcpListener(int port) {
  std::set<std::string> inodes;
  ListeningInodes("/proc/net/tcp", port, &inodes);
  ListeningInodes("/proc/net/tcp6", port, &inodes);
  if (inodes.empty()) return "";
  std::set<std::string> sockets;
  for (const std::string& inode : inodes) sockets.insert(absl::StrCat("socket:[", inode, "]"));
  std::vector<std::string> holders;
  for (const std::string& pid : Entries("/proc")) {
    if (!std::isdigit(static_cast<unsigned char>(pid[0]))) continue;
    const std::string fd_dir = absl::StrCat("/proc/", pid, "/fd");
    for (const std::string& fd : Entries(fd_dir)) {
      char target[128];
      const ssize_t n = ::readlink(absl::StrCat(fd_dir, "/", fd).c_str(), target, sizeof(target));
      if (n > 0 && sockets.count(std::string(target, n)) > 0) {
        holders.push_back(absl::StrCat("pid ", pid, " (", Comm(pid), ")"));
        break;
      }
    }
  }
  return absl::StrJoin(holders, ", ");
}

}  // namespace kvbench
