#pragma once

// The SQLite store's schema (sqlite_database.h): versions 1 to 3 and their upgrades. The
// statements the tables prepare are shared with PostgreSQL (sql_statements.h). Protos are stored
// serialized in BLOB columns; the columns beside them are what queries filter and order by.

namespace kvbench::controller::sql {

// `position` columns are AUTOINCREMENT so they grow strictly and are never reused, even after
// rows are deleted; they order jobs (page tokens) and events (watchers resume after one).
inline constexpr char kSchemaV1[] = R"sql(
CREATE TABLE jobs (
  position INTEGER PRIMARY KEY AUTOINCREMENT,
  job_id TEXT NOT NULL UNIQUE,
  name TEXT NOT NULL,
  spec BLOB NOT NULL,
  state INTEGER NOT NULL,
  priority INTEGER NOT NULL,
  submit_unix_ms INTEGER NOT NULL,
  request_id TEXT NOT NULL,
  start_unix_ms INTEGER NOT NULL DEFAULT 0,
  end_unix_ms INTEGER NOT NULL DEFAULT 0,
  error TEXT NOT NULL DEFAULT '');
CREATE INDEX jobs_by_state ON jobs(state, position);
CREATE UNIQUE INDEX jobs_by_request ON jobs(request_id) WHERE request_id != '';
CREATE TABLE scenarios (
  job_id TEXT NOT NULL,
  scenario_id TEXT NOT NULL,
  idx INTEGER NOT NULL,
  scenario BLOB NOT NULL,
  state INTEGER NOT NULL,
  reason TEXT NOT NULL,
  attempt INTEGER NOT NULL,
  agent_id TEXT NOT NULL,
  PRIMARY KEY (job_id, scenario_id));
CREATE TABLE events (
  position INTEGER PRIMARY KEY AUTOINCREMENT,
  agent_id TEXT NOT NULL,
  scenario_id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  job_id TEXT NOT NULL,
  event BLOB NOT NULL,
  UNIQUE (agent_id, scenario_id, seq));
CREATE INDEX events_by_job ON events(job_id, position);
CREATE INDEX events_by_agent_seq ON events(agent_id, seq);
CREATE TABLE results (
  job_id TEXT NOT NULL,
  scenario_id TEXT NOT NULL,
  result BLOB NOT NULL,
  PRIMARY KEY (job_id, scenario_id));
CREATE TABLE agents (
  agent_id TEXT PRIMARY KEY,
  capabilities BLOB NOT NULL,
  last_seen_unix_ms INTEGER NOT NULL);
PRAGMA user_version = 1;
)sql";

// Version 2: schedules and their fires (one row per scheduled time: the key that
// keeps a controller restarted across a fire time from firing it twice), and the per-request
// records agents send with each scenario (chunks as they came; pruned by age).
inline constexpr char kSchemaV2Upgrade[] = R"sql(
CREATE TABLE schedules (
  name TEXT PRIMARY KEY,
  schedule BLOB NOT NULL);
CREATE TABLE schedule_fires (
  name TEXT NOT NULL,
  fire_key INTEGER NOT NULL,
  fire BLOB NOT NULL,
  PRIMARY KEY (name, fire_key));
CREATE TABLE requests (
  job_id TEXT NOT NULL,
  scenario_id TEXT NOT NULL,
  attempt INTEGER NOT NULL,
  first_index INTEGER NOT NULL,
  records BLOB NOT NULL,
  stored_unix_ms INTEGER NOT NULL,
  PRIMARY KEY (job_id, scenario_id, attempt, first_index));
CREATE INDEX requests_by_age ON requests(stored_unix_ms);
PRAGMA user_version = 2;
)sql";

// Version 3: each scheduled run's analysis (once per job), the change points and
// alerts it raised, pinned baselines, and the delivery state of every alert per webhook.
inline constexpr char kSchemaV3Upgrade[] = R"sql(
CREATE TABLE analyses (
  job_id TEXT PRIMARY KEY,
  schedule TEXT NOT NULL,
  analysis BLOB NOT NULL,
  analyzed_unix_ms INTEGER NOT NULL);
CREATE TABLE change_points (
  position INTEGER PRIMARY KEY AUTOINCREMENT,
  schedule TEXT NOT NULL,
  job_id TEXT NOT NULL,
  change_point BLOB NOT NULL);
CREATE INDEX change_points_by_schedule ON change_points(schedule, position);
CREATE TABLE baselines (
  schedule TEXT PRIMARY KEY,
  baseline BLOB NOT NULL);
CREATE TABLE alerts (
  position INTEGER PRIMARY KEY AUTOINCREMENT,
  alert_id TEXT NOT NULL UNIQUE,
  schedule TEXT NOT NULL,
  job_id TEXT NOT NULL,
  alert BLOB NOT NULL);
CREATE TABLE deliveries (
  alert_id TEXT NOT NULL,
  webhook TEXT NOT NULL,
  state INTEGER NOT NULL,
  next_attempt_unix_ms INTEGER NOT NULL,
  delivery BLOB NOT NULL,
  PRIMARY KEY (alert_id, webhook));
CREATE INDEX deliveries_due ON deliveries(state, next_attempt_unix_ms);
PRAGMA user_version = 3;
)sql";

inline constexpr char kBegin[] = "BEGIN IMMEDIATE";
inline constexpr char kCommit[] = "COMMIT";
inline constexpr char kRollback[] = "ROLLBACK";

}  // namespace kvbench::controller::sql
