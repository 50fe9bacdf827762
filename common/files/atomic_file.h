#pragma once

// The one way kvbench writes a file whole: into `path`.tmp, flushed to disk, then renamed over
// `path`. A reader (another process, or this one after a crash) finds the old content or the new,
// never a torn or empty file; a write that fails leaves the old file as it was.

#include <sys/types.h>

#include <string>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace kvbench {

// The temp file's name beside `path`; sweeps and tests may look for it.
inline constexpr char kAtomicTempSuffix[] = ".tmp";
// Mode of a new file when the caller names none (before the umask).
inline constexpr mode_t kAtomicFileMode = 0644;

struct AtomicWriteOptions {
  mode_t mode = kAtomicFileMode;
  // fsync the file before the rename, so a power loss cannot leave the new name on empty or
  // partial content. Off only where nothing reads the file after a crash (a simulator's scratch
  // objects), where the flush would cost real disk time on the path being measured.
  bool sync_file = true;
  // fsync the folder after the rename, so the new name itself survives a power loss: for files
  // recovery reads (pid files, the event spool, a scenario's result). Off, a crash may bring the
  // old file back, which is harmless for files written again on the next run.
  bool sync_folder = false;
};

// Writes `content` to `path` atomically (see above). FAILED_PRECONDITION naming `path`, the step
// that failed and the system's reason; the temp file is removed and the old file kept.
absl::Status WriteFileAtomically(const std::string& path, absl::string_view content,
                                 const AtomicWriteOptions& options = {});

// For content a caller writes itself (a mapped file, a large object in pieces): `fill` gets the
// empty temp file open for reading and writing, and its path. An error from `fill` abandons the
// write as above and comes back with its code, prefixed with `path`.
using FillTempFile = absl::FunctionRef<absl::Status(int fd, const std::string& temp_path)>;
absl::Status WriteFileAtomicallyWith(const std::string& path, FillTempFile fill,
                                     const AtomicWriteOptions& options = {});

}  // namespace kvbench
