#pragma once

// One level of the controller scale bench: N simulated agents against one fresh kv-controller
// (and, on PostgreSQL, its standby), phase after phase.

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "tests/bench/controller_scale_controller.h"
#include "tests/bench/controller_scale_fleet.h"
#include "tests/bench/controller_scale_follower.h"

namespace kvbench::bench {

// Request rows a level sends at most unless told otherwise: the load tool and the controller each
// hold a level's burst, ~450 bytes a row as parsed protos, at once.
inline constexpr int64_t kMaxRequestRowsPerLevel = 2000000;

// What each agent sends in the level's phases.
struct ScaleLoad {
  int heartbeats = 100;       // back to back in the heartbeat phase
  int events = 10;            // durable Progress events in the ingest phase
  int request_rows = 2000;    // request rows in the request phase (0: no such phase)
  int rows_per_event = 2000;  // rows per RequestRecords event
  // request_rows is cut to kMaxRequestRowsPerLevel / N at large N (200 at N = 10,000).
  bool cap_request_rows = true;
};

// One figure of a level's column: "metric", "unit", "value".
struct ScaleRow {
  std::string metric;
  std::string unit;
  std::string value;
};

// The headline figures of a level, for the summary across stores and levels.
struct ScaleFigures {
  double rss_per_agent_kib = 0;
  double first_assignment_ms = 0;
  double events_per_s = 0;      // durable Progress events ingested
  double rows_per_s = 0;        // request rows ingested (0 without the request phase)
  double follower_rss_mib = 0;  // the standby's VmRSS at the end (0 without a follower)
};

// Runs the phases of one level in order (memory idle, registration, memory with N attached, ack
// rounds, heartbeats, scheduling of one SIM job, event ingest, request-row ingest, memory at the
// end, the follower's memory and stop, the controller's stop) and records each phase's figures.
class ScaleLevel {
 public:
  // `follower` may be null (SQLite has none). All are borrowed for the level's run.
  ScaleLevel(const ScaleLoad& load, ScaleController& controller, ScaleFleet& fleet,
             ScaleFollower* follower);

  // The first phase that fails ends the run: its error names the phase, the fleet's first failed
  // stream and the controller's log tail.
  absl::Status Run();

  const std::vector<ScaleRow>& column() const { return column_; }
  const ScaleFigures& figures() const { return figures_; }

 private:
  void Add(std::string metric, std::string unit, std::string value);
  absl::Status PhaseFailed(const std::string& phase);
  absl::Status Memory(const std::string& when, int64_t* rss_kib);
  absl::Status FollowerMemory(const std::string& when);
  absl::Status Registration();
  absl::StatusOr<double> AckRound(const std::string& phase, int heartbeats, int64_t seq);
  absl::Status AckRounds();
  void AddCpuRows(double controller_cpu, double self_cpu, double seconds, double messages,
                  const std::string& message);
  absl::Status Heartbeats();
  absl::Status Scheduling();
  absl::Status Ingest();
  absl::Status Requests();

  const ScaleLoad load_;
  ScaleController& controller_;
  ScaleFleet& fleet_;
  ScaleFollower* const follower_;
  std::vector<ScaleRow> column_;
  ScaleFigures figures_;
  double duplicate_round_s_ = 0;
};

}  // namespace kvbench::bench
