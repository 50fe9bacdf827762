#pragma once

// Which of several controllers on one shared store leads: a lease row with a fencing term, kept
// by the store's engine (PostgreSQL: postgres_database.h). The leader renews it well within its
// length; a standby takes it over once it expired, with the term one higher. Every write the
// leader makes carries its term and is refused once the term moved on, so a leader that was
// paused past its lease (SIGSTOP, a stalled VM) and wakes cannot write: it learns it lost with
// the first call, and steps down. Time is the database server's (now()), so the controllers'
// clocks need not agree.

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace kvbench::controller {

// Who holds (or last held) the lease.
struct LeaderRecord {
  int64_t term = 0;     // 0: no controller ever led
  std::string holder;   // "kv-controller pid 4242 on node-a"
  std::string address;  // where its gRPC services listen, for clients and logs
  absl::Time expires;   // by the database's clock
  bool expired = true;  // by the database's clock, when read
};

class Leadership {
 public:
  virtual ~Leadership() = default;

  // Takes the lease for `lease` when no one holds an unexpired one (with the term one higher
  // than the last): true, and from then on every write is fenced by that term. False when
  // another holds it; `current` (when not null) says who, either way.
  virtual absl::StatusOr<bool> TryLead(const std::string& holder, const std::string& address,
                                       absl::Duration lease, LeaderRecord* current) = 0;
  // Extends the lease held to now + `lease`, naming `address` as the leader's (empty: as it
  // was). FAILED_PRECONDITION, naming who leads now, when the term moved on (this one must step
  // down); UNAVAILABLE when the database cannot be reached (the lease may still be ours: try
  // again before it runs out).
  virtual absl::Status Renew(absl::Duration lease, const std::string& address = "") = 0;
  // Ends the lease now (a clean stop hands over at once); writes are refused from then on.
  virtual absl::Status StepDown() = 0;
  // The term held, 0 when not leading.
  virtual int64_t term() const = 0;
};

}  // namespace kvbench::controller
