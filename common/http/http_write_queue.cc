#include "common/http/http_write_queue.h"

#include <utility>

namespace kvbench {

HttpWriteQueue::AppendResult HttpWriteQueue::Append(absl::FunctionRef<void(std::string*)> fill,
                                                    End end) {
  std::lock_guard<std::mutex> lock(mu_);
  AppendResult result;
  if (closed_) return result;
  fill(&pending_);
  if (end != End::kNone) end_ = end;
  result.accepted = true;
  result.flush_needed = flush_needed_;
  flush_needed_ = false;
  return result;
}

bool HttpWriteQueue::Take(Batch* batch) {
  std::lock_guard<std::mutex> lock(mu_);
  flush_needed_ = true;
  if (closed_ || (pending_.empty() && end_ == End::kNone)) return false;
  batch->bytes.swap(pending_);
  batch->end = end_;
  end_ = End::kNone;
  return true;
}

void HttpWriteQueue::Recycle(Batch* batch) {
  if (batch->bytes.capacity() > kMaxRetainedBytes) {
    std::string().swap(batch->bytes);
  } else {
    batch->bytes.clear();
  }
  batch->end = End::kNone;
}

void HttpWriteQueue::Close() {
  std::lock_guard<std::mutex> lock(mu_);
  closed_ = true;
  std::string().swap(pending_);
  end_ = End::kNone;
}

}  // namespace kvbench
