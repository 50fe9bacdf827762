#include "agent/preflight/mount_table.h"

#include <map>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"

namespace kvbench::agent::preflight {
namespace {

// statfs(2) f_type values (linux/magic.h).
const std::map<int64_t, const char*>& KnownTypes() {
  static const auto* types = new std::map<int64_t, const char*>{
      {0x01021994, "tmpfs"}, {0x858458f6, "ramfs"},  {0x794c7630, "overlay"},
      {0x61756673, "aufs"},  {0xEF53, "ext4"},       {0x58465342, "xfs"},
      {0x9123683e, "btrfs"}, {0x2fc12fc1, "zfs"},    {0xf2f52010, "f2fs"},
      {0x6969, "nfs"},       {0xff534d42, "cifs"},   {0xfe534d42, "smb2"},
      {0x01021997, "9p"},    {0x65735546, "fuse"},   {0x6a656a63, "virtiofs"},
      {0x00c36400, "ceph"},  {0x0bd00bd0, "lustre"}, {0x73717368, "squashfs"},
      {0x9fa0, "proc"},      {0x62656572, "sysfs"},  {0x1cd1, "devpts"},
  };
  return *types;
}

// Mount points escape ' ', '\t', '\n' and '\\' as \ooo.
std::string Unescape(absl::string_view text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\\' && i + 3 < text.size()) {
      const absl::string_view digits = text.substr(i + 1, 3);
      if (digits.find_first_not_of("01234567") == absl::string_view::npos) {
        out.push_back(static_cast<char>(((digits[0] - '0') << 6) | ((digits[1] - '0') << 3) |
                                        (digits[2] - '0')));
        i += 3;
        continue;
      }
    }
    out.push_back(text[i]);
  }
  return out;
}

std::optional<MountEntry> ParseLine(absl::string_view line) {
  const std::vector<absl::string_view> fields = absl::StrSplit(line, ' ', absl::SkipEmpty());
  // id parent major:minor root mount-point options [optional...] - fstype source super-options
  if (fields.size() < 10) return std::nullopt;
  size_t separator = 6;
  while (separator < fields.size() && fields[separator] != "-") ++separator;
  if (separator + 2 >= fields.size()) return std::nullopt;
  MountEntry entry;
  entry.device_number = std::string(fields[2]);
  entry.mount_point = Unescape(fields[4]);
  entry.fs_type = std::string(fields[separator + 1]);
  entry.source = Unescape(fields[separator + 2]);
  return entry;
}

bool Contains(const std::string& mount_point, const std::string& path) {
  if (mount_point == "/") return absl::StartsWith(path, "/");
  return path == mount_point || absl::StartsWith(path, mount_point + "/");
}

}  // namespace

std::optional<MountEntry> FindMount(const std::string& mountinfo, const std::string& path) {
  std::optional<MountEntry> best;
  for (absl::string_view line : absl::StrSplit(mountinfo, '\n', absl::SkipEmpty())) {
    std::optional<MountEntry> entry = ParseLine(line);
    if (!entry.has_value() || !Contains(entry->mount_point, path)) continue;
    if (!best.has_value() || entry->mount_point.size() >= best->mount_point.size()) {
      best = std::move(entry);
    }
  }
  return best;
}

std::string FileSystemName(int64_t type) {
  auto it = KnownTypes().find(type);
  if (it != KnownTypes().end()) return it->second;
  return absl::StrFormat("0x%x", type);
}

bool IsMemoryOrOverlay(int64_t type) {
  const std::string name = FileSystemName(type);
  return name == "tmpfs" || name == "ramfs" || name == "overlay" || name == "aufs";
}

bool IsRemoteOrFuse(int64_t type) {
  const std::string name = FileSystemName(type);
  for (const char* remote : {"nfs", "cifs", "smb2", "9p", "fuse", "virtiofs", "ceph", "lustre"}) {
    if (name == remote) return true;
  }
  return false;
}

std::string DeviceName(const std::string& source) {
  if (!absl::StartsWith(source, "/dev/")) return "";
  return source.substr(source.rfind('/') + 1);
}

}  // namespace kvbench::agent::preflight
