#pragma once

#include <mutex>
#include <string>

#include "absl/functional/function_ref.h"

namespace kvbench {

// The bytes one connection has yet to write, double-buffered: responders on any thread append
// to the pending buffer; the connection's strand swaps it out whole and writes it with one
// async_write while newer bytes gather. Chunks sent faster than the socket drains coalesce into
// one write, and in a steady state nothing is allocated (both buffers keep their capacity).
class HttpWriteQueue {
 public:
  // What follows the appended bytes.
  enum class End {
    kNone,       // more of the same response
    kKeepAlive,  // the response is complete: read the next request
    kClose,      // the response is complete: close the connection
  };

  // Bytes taken for one write, and what follows them.
  struct Batch {
    std::string bytes;
    End end = End::kNone;
  };

  struct AppendResult {
    bool accepted = false;     // false once closed: nothing was appended
    bool flush_needed = false;  // the caller must schedule a flush (nobody has since the last Take)
  };

  // Buffers past this capacity are released after their write instead of kept for reuse.
  static constexpr size_t kMaxRetainedBytes = 256 * 1024;

  // Any thread. `fill` appends to the pending bytes, under the queue's lock. `end` other than
  // kNone marks the end of the response.
  AppendResult Append(absl::FunctionRef<void(std::string*)> fill, End end);

  // Strand. Swaps the pending bytes into `batch` (cleared by Recycle, so its capacity is reused);
  // false if there are none and no end was marked.
  bool Take(Batch* batch);

  // Strand, after `batch` was written: empties it for the next Take.
  static void Recycle(Batch* batch);

  // Drops the pending bytes; every later Append is refused. Idempotent.
  void Close();

 private:
  std::mutex mu_;
  std::string pending_;      // guarded by mu_
  End end_ = End::kNone;     // guarded by mu_
  bool flush_needed_ = true;  // guarded by mu_: true while no flush is scheduled
  bool closed_ = false;      // guarded by mu_
};

}  // namespace kvbench
