#include "agent/link/event_spool.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>
#include <tuple>

#include "absl/strings/str_cat.h"
#include "agent/link/oversize_event.h"
#include "common/checksum/crc32.h"
#include "common/files/atomic_file.h"
#include "common/grpc/agent_link_limits.h"
#include "common/log/logging.h"
#include "common/status/status_macros.h"

namespace kvbench::agent {
namespace {

constexpr char kEventRecord = 'E';
constexpr char kAckRecord = 'A';
constexpr char kHighWaterRecord = 'H';
constexpr size_t kHeaderBytes = 8;
// A record longer than this is corruption, not an event. Events are written no larger than
// kMaxEventBytes (ReplaceOversizeEvent); a larger one an older agent spooled is read, then
// replaced by its scenario's failure before it is sent.
constexpr uint32_t kMaxRecordBytes = 64u << 20;
// Seqs and acks beyond kMaxAgentEventSeq (common/grpc/agent_link_limits.h) are corruption (or a
// confused controller): one event per nanosecond for a century is below 2^62, and next seqs must
// never overflow (found by the event_spool fuzz target: a high-water record of 2^63-1 made the next
// Append wrap to -2^63).

void PutU32(std::string* out, uint32_t value) {
  for (int i = 0; i < 4; ++i) out->push_back(static_cast<char>((value >> (8 * i)) & 0xFF));
}
uint32_t GetU32(const char* p) {
  uint32_t value = 0;
  for (int i = 0; i < 4; ++i) value |= static_cast<uint32_t>(static_cast<uint8_t>(p[i])) << (8 * i);
  return value;
}
std::string EncodeI64(int64_t value) {
  std::string out;
  const auto u = static_cast<uint64_t>(value);
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>((u >> (8 * i)) & 0xFF));
  return out;
}
int64_t DecodeI64(const std::string& body) {
  uint64_t u = 0;
  for (int i = 0; i < 8; ++i) u |= static_cast<uint64_t>(static_cast<uint8_t>(body[i])) << (8 * i);
  return static_cast<int64_t>(u);
}

std::string Record(char type, const std::string& body) {
  std::string payload(1, type);
  payload += body;
  std::string record;
  PutU32(&record, static_cast<uint32_t>(payload.size()));
  PutU32(&record, Crc32(payload));
  record += payload;
  return record;
}

absl::Status WriteAll(int fd, const std::string& data, const std::string& path) {
  size_t done = 0;
  while (done < data.size()) {
    const ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return absl::UnavailableError(absl::StrCat("write ", path, ": ", std::strerror(errno)));
    }
    done += static_cast<size_t>(n);
  }
  if (::fdatasync(fd) != 0) {
    return absl::UnavailableError(absl::StrCat("fdatasync ", path, ": ", std::strerror(errno)));
  }
  return absl::OkStatus();
}

struct ParsedRecord {
  char type = 0;
  size_t bytes = 0;   // header included
  v1::Event event;    // type 'E'
  int64_t value = 0;  // types 'A' and 'H'
};

// The record at `offset`, or nullopt when it is torn or corrupt (or an event out of seq order).
std::optional<ParsedRecord> ParseRecord(const std::string& data, size_t offset,
                                        int64_t last_event_seq) {
  const size_t left = data.size() - offset;
  if (left < kHeaderBytes) return std::nullopt;
  const uint32_t size = GetU32(data.data() + offset);
  if (size < 1 || size > kMaxRecordBytes || left - kHeaderBytes < size) return std::nullopt;
  const char* payload = data.data() + offset + kHeaderBytes;
  if (GetU32(data.data() + offset + 4) != Crc32(absl::string_view(payload, size)))
    return std::nullopt;
  ParsedRecord record;
  record.type = payload[0];
  record.bytes = kHeaderBytes + size;
  const std::string body(payload + 1, size - 1);
  if (record.type == kEventRecord) {
    if (!record.event.ParseFromString(body) || record.event.seq() <= last_event_seq ||
        record.event.seq() > kMaxAgentEventSeq) {
      return std::nullopt;
    }
    return record;
  }
  if ((record.type == kAckRecord || record.type == kHighWaterRecord) && body.size() == 8) {
    record.value = DecodeI64(body);
    if (record.value < 0 || record.value > kMaxAgentEventSeq) return std::nullopt;
    return record;
  }
  return std::nullopt;
}

}  // namespace

absl::StatusOr<std::unique_ptr<EventSpool>> EventSpool::Open(const std::string& dir) {
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  if (error) {
    return absl::FailedPreconditionError(
        absl::StrCat("cannot create spool dir ", dir, ": ", error.message()));
  }
  const std::string path = absl::StrCat(dir, "/", kLogFileName);
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) {
    return absl::FailedPreconditionError(
        absl::StrCat("cannot open spool ", path, ": ", std::strerror(errno)));
  }
  std::unique_ptr<EventSpool> spool(new EventSpool(dir, fd));
  KV_RETURN_IF_ERROR(spool->Load());
  KV_LOG(INFO) << "event spool opened path=" << path << " last_seq=" << spool->last_seq_
               << " acked_seq=" << spool->acked_seq_ << " unacked=" << spool->unacked_.size();
  return spool;
}

EventSpool::EventSpool(std::string dir, int fd)
    : dir_(std::move(dir)), log_path_(absl::StrCat(dir_, "/", kLogFileName)), fd_(fd) {}

EventSpool::~EventSpool() {
  if (fd_ >= 0) ::close(fd_);
}

absl::Status EventSpool::Load() {
  std::ifstream in(log_path_, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  const std::string data = buffer.str();
  size_t offset = 0;
  std::vector<std::pair<v1::Event, int64_t>> events;  // event, record bytes
  while (offset < data.size()) {
    const int64_t last_event_seq = events.empty() ? 0 : events.back().first.seq();
    std::optional<ParsedRecord> record = ParseRecord(data, offset, last_event_seq);
    if (!record) {
      KV_LOG(WARNING) << "event spool: dropping a torn or corrupt record path=" << log_path_
                      << " offset=" << offset << " dropped_bytes=" << data.size() - offset;
      if (::ftruncate(fd_, static_cast<off_t>(offset)) != 0) {
        return absl::FailedPreconditionError(
            absl::StrCat("cannot truncate spool ", log_path_, ": ", std::strerror(errno)));
      }
      break;
    }
    if (record->type == kEventRecord) {
      last_seq_ = std::max(last_seq_, record->event.seq());
      events.emplace_back(std::move(record->event), static_cast<int64_t>(record->bytes));
    } else if (record->type == kAckRecord) {
      acked_seq_ = std::max(acked_seq_, record->value);
      last_seq_ = std::max(last_seq_, record->value);
    } else {
      last_seq_ = std::max(last_seq_, record->value);
    }
    offset += record->bytes;
  }
  log_bytes_ = static_cast<int64_t>(offset);
  for (auto& [event, bytes] : events) {
    if (event.seq() <= acked_seq_) continue;
    ReplaceOversizeEvent(&event);  // spooled by an older agent, before the limit
    unacked_bytes_ += bytes;
    unacked_.push_back(std::move(event));
  }
  return absl::OkStatus();
}

absl::Status EventSpool::WriteRecordLocked(char type, const std::string& body) {
  const std::string record = Record(type, body);
  absl::Status written = WriteAll(fd_, record, log_path_);
  if (!written.ok()) {
    // Leave no partial record behind for the next append to follow.
    if (::ftruncate(fd_, static_cast<off_t>(log_bytes_)) != 0) {
      KV_LOG(ERROR) << "event spool: cannot truncate after a failed write path=" << log_path_;
    }
    return written;
  }
  log_bytes_ += static_cast<int64_t>(record.size());
  return absl::OkStatus();
}

absl::StatusOr<int64_t> EventSpool::Append(v1::Event* event) {
  std::lock_guard<std::mutex> lock(mu_);
  if (last_seq_ >= kMaxAgentEventSeq) {
    return absl::ResourceExhaustedError(absl::StrCat("event spool ", log_path_, " is at seq ",
                                                     last_seq_, ", the last it may write"));
  }
  event->set_seq(last_seq_ + 1);
  // Nothing the controller would refuse for its size is spooled: it would be resent forever.
  ReplaceOversizeEvent(event);
  const int64_t before = log_bytes_;
  KV_RETURN_IF_ERROR(WriteRecordLocked(kEventRecord, event->SerializeAsString()));
  last_seq_ = event->seq();
  unacked_bytes_ += log_bytes_ - before;
  unacked_.push_back(*event);
  return last_seq_;
}

absl::Status EventSpool::Acknowledge(int64_t acked_seq) {
  std::lock_guard<std::mutex> lock(mu_);
  if (acked_seq <= acked_seq_) return absl::OkStatus();
  if (acked_seq > kMaxAgentEventSeq) {
    return absl::InvalidArgumentError(
        absl::StrCat("acknowledged seq ", acked_seq, " is beyond any seq this spool can write"));
  }
  if (acked_seq > last_seq_) {
    KV_LOG(WARNING) << "event spool: the controller acknowledged seqs this spool never wrote"
                    << " acked_seq=" << acked_seq << " last_seq=" << last_seq_;
  }
  KV_RETURN_IF_ERROR(WriteRecordLocked(kAckRecord, EncodeI64(acked_seq)));
  acked_seq_ = acked_seq;
  last_seq_ = std::max(last_seq_, acked_seq);
  size_t dropped = 0;
  while (dropped < unacked_.size() && unacked_[dropped].seq() <= acked_seq) ++dropped;
  if (dropped > 0) {
    unacked_.erase(unacked_.begin(), unacked_.begin() + static_cast<std::ptrdiff_t>(dropped));
    // Bytes per event are not kept; recount only what is left (rarely many).
    unacked_bytes_ = 0;
    for (const v1::Event& event : unacked_) {
      unacked_bytes_ += static_cast<int64_t>(kHeaderBytes + 1 + event.ByteSizeLong());
    }
  }
  if (unacked_.empty() || (log_bytes_ > kCompactBytes && unacked_bytes_ * 2 < log_bytes_)) {
    absl::Status compacted = CompactLocked();
    // The ack record is durable already: a failed rewrite only costs disk space.
    if (!compacted.ok()) KV_LOG(WARNING) << "event spool: compaction failed: " << compacted;
  }
  return absl::OkStatus();
}

absl::Status EventSpool::CompactLocked() {
  std::string data = Record(kHighWaterRecord, EncodeI64(last_seq_));
  data += Record(kAckRecord, EncodeI64(acked_seq_));
  for (const v1::Event& event : unacked_) data += Record(kEventRecord, event.SerializeAsString());
  // The folder too: the spool is what a restarted agent resends from.
  AtomicWriteOptions durable;
  durable.sync_folder = true;
  KV_RETURN_IF_ERROR(WriteFileAtomically(log_path_, data, durable));
  const int fd = ::open(log_path_.c_str(), O_RDWR | O_APPEND | O_CLOEXEC);
  if (fd < 0) {
    // Should not happen right after the rename; keep appending to the old inode's descriptor
    // would lose events, so this is a broken invariant of the file system.
    KV_LOG(FATAL) << "event spool: cannot reopen " << log_path_ << ": " << std::strerror(errno);
  }
  ::close(fd_);
  fd_ = fd;
  log_bytes_ = static_cast<int64_t>(data.size());
  unacked_bytes_ = log_bytes_;
  return absl::OkStatus();
}

std::vector<v1::Event> EventSpool::Unacknowledged() const {
  std::lock_guard<std::mutex> lock(mu_);
  return unacked_;
}

std::vector<v1::Event> EventSpool::UnacknowledgedAfter(int64_t after_seq) const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<v1::Event> events;
  for (const v1::Event& event : unacked_) {
    if (event.seq() > after_seq) events.push_back(event);
  }
  return events;
}

std::vector<v1::ScenarioAttempt> EventSpool::AttemptsWithUnacknowledgedEvents() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::set<std::tuple<std::string, std::string, int>> seen;
  std::vector<v1::ScenarioAttempt> attempts;
  for (const v1::Event& event : unacked_) {
    if (event.scenario_id().empty() ||
        !seen.emplace(event.job_id(), event.scenario_id(), event.attempt()).second) {
      continue;
    }
    v1::ScenarioAttempt& attempt = attempts.emplace_back();
    attempt.set_job_id(event.job_id());
    attempt.set_scenario_id(event.scenario_id());
    attempt.set_attempt(event.attempt());
  }
  return attempts;
}

int64_t EventSpool::last_seq() const {
  std::lock_guard<std::mutex> lock(mu_);
  return last_seq_;
}

int64_t EventSpool::acked_seq() const {
  std::lock_guard<std::mutex> lock(mu_);
  return acked_seq_;
}

int64_t EventSpool::log_bytes() const {
  std::lock_guard<std::mutex> lock(mu_);
  return log_bytes_;
}

}  // namespace kvbench::agent
