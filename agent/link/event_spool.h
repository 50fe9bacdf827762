#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "kvbench/v1/agent_link.pb.h"
#include "kvbench/v1/event.pb.h"

namespace kvbench::agent {

// The agent's on-disk event spool (the work dir's spool/, DESIGN.md "The agent ↔ controller
// link"): every event a scenario emits is numbered and made durable here before it is sent, and
// stays until the controller acknowledges its seq. Seqs are strictly increasing over the agent's
// lifetime, across restarts.
//
// On disk: one append-only log, spool/events.log, of records
//   [u32 payload length][u32 CRC-32 of payload][payload]
// whose payload is one type byte and then either a serialized v1::Event ('E'), or the acked seq
// ('A', 8 bytes little-endian), or the high-water seq of a compacted log ('H', same encoding).
// Every append is fsync'ed. When everything is acknowledged, or the log has grown past
// kCompactBytes with most of it acknowledged, it is rewritten (temp file, fsync, rename, fsync of
// the folder) as one 'H' record and the unacknowledged events, so disk use stays bounded.
// A torn or corrupt record (a crash mid-write) ends the log: it and anything after it are dropped
// with a WARNING and the file is truncated to the last good record.
//
// Thread-safe.
class EventSpool {
 public:
  // The log's file name inside the spool folder.
  static constexpr char kLogFileName[] = "events.log";
  // A log larger than this, with at least half of it acknowledged, is compacted on Acknowledge.
  static constexpr int64_t kCompactBytes = 4 << 20;

  // Creates `dir` if needed and loads its log. FAILED_PRECONDITION naming the path when the
  // folder or the file cannot be created, read or truncated.
  static absl::StatusOr<std::unique_ptr<EventSpool>> Open(const std::string& dir);
  ~EventSpool();
  EventSpool(const EventSpool&) = delete;
  EventSpool& operator=(const EventSpool&) = delete;

  // Sets event->seq (last_seq() + 1) and makes it durable (fsync) before returning it.
  // UNAVAILABLE when the write fails (the event is then not spooled and the seq not used);
  // RESOURCE_EXHAUSTED past seq 2^62 (never reached: a seq per nanosecond for a century is less).
  absl::StatusOr<int64_t> Append(v1::Event* event);
  // Drops events with seq <= acked_seq, durably. An acked_seq above last_seq() (the controller
  // remembers more than this spool, e.g. after the work dir was wiped) raises last_seq() to it,
  // so new events are never mistaken for ones the controller already has. INVALID_ARGUMENT (and
  // nothing changes) for an acked_seq above 2^62, which no spool writes: the seqs after it would
  // overflow. Records on disk with such seqs are treated as corrupt.
  absl::Status Acknowledge(int64_t acked_seq);
  // In seq order.
  std::vector<v1::Event> Unacknowledged() const;
  // Unacknowledged events with seq > after_seq, in seq order.
  std::vector<v1::Event> UnacknowledgedAfter(int64_t after_seq) const;
  // The scenario attempts the unacknowledged events are about, each once, in seq order of their
  // first event.
  std::vector<v1::ScenarioAttempt> AttemptsWithUnacknowledgedEvents() const;
  int64_t last_seq() const;
  int64_t acked_seq() const;
  // Bytes of the log file now.
  int64_t log_bytes() const;

 private:
  EventSpool(std::string dir, int fd);
  absl::Status Load();
  absl::Status WriteRecordLocked(char type, const std::string& body);
  absl::Status CompactLocked();

  const std::string dir_;
  const std::string log_path_;
  mutable std::mutex mu_;
  int fd_;                          // guarded by mu_
  int64_t last_seq_ = 0;            // guarded by mu_
  int64_t acked_seq_ = 0;           // guarded by mu_
  int64_t log_bytes_ = 0;           // guarded by mu_
  int64_t unacked_bytes_ = 0;       // guarded by mu_: record bytes of the events in unacked_
  std::vector<v1::Event> unacked_;  // guarded by mu_; in seq order
};

}  // namespace kvbench::agent
