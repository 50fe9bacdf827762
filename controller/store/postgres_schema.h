#pragma once

// The PostgreSQL store's schema (postgres_database.h): the tables of SQLite's schema version 3
// (sqlite_schema.h), created at once, with PostgreSQL's types: BIGINT for every integer (SQLite's
// INTEGER is 64-bit), BYTEA for serialized protos, identity columns for AUTOINCREMENT positions
// (never reused, growing in insertion order: the store writes through one connection), and
// schedule_fires.rowid made a real column, as the statements read SQLite's implicit one
// (sql_statements.h). The version lives in kvbench_schema, as SQLite's in PRAGMA user_version.

namespace kvbench::controller::sql {

// The same numbering as SQLite's: a store at version N has the same tables on either engine.
inline constexpr int kPostgresSchemaVersion = 3;

// Serializes schema creation between controllers starting at once (pg_advisory_xact_lock key).
inline constexpr long long kPostgresSchemaLockKey = 0x6b7662656e6368;  // "kvbench"

inline constexpr char kPostgresSchemaVersionTable[] =
    "CREATE TABLE IF NOT EXISTS kvbench_schema (version BIGINT NOT NULL)";

// The leader lease of controllers sharing the database (leadership.h): one row, id 1. Beside the
// versioned tables, as kvbench_schema is: it is the engine's, not a store table.
inline constexpr char kPostgresLeaseTable[] =
    "CREATE TABLE IF NOT EXISTS kvbench_leader (id INT PRIMARY KEY CHECK (id = 1), "
    "term BIGINT NOT NULL, holder TEXT NOT NULL, address TEXT NOT NULL, "
    "expires_at TIMESTAMPTZ NOT NULL)";

inline constexpr char kPostgresSchemaV3[] = R"sql(
CREATE TABLE jobs (
  position BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  job_id TEXT NOT NULL UNIQUE,
  name TEXT NOT NULL,
  spec BYTEA NOT NULL,
  state BIGINT NOT NULL,
  priority BIGINT NOT NULL,
  submit_unix_ms BIGINT NOT NULL,
  request_id TEXT NOT NULL,
  start_unix_ms BIGINT NOT NULL DEFAULT 0,
  end_unix_ms BIGINT NOT NULL DEFAULT 0,
  error TEXT NOT NULL DEFAULT '');
CREATE INDEX jobs_by_state ON jobs(state, position);
CREATE UNIQUE INDEX jobs_by_request ON jobs(request_id) WHERE request_id <> '';
CREATE TABLE scenarios (
  job_id TEXT NOT NULL,
  scenario_id TEXT NOT NULL,
  idx BIGINT NOT NULL,
  scenario BYTEA NOT NULL,
  state BIGINT NOT NULL,
  reason TEXT NOT NULL,
  attempt BIGINT NOT NULL,
  agent_id TEXT NOT NULL,
  PRIMARY KEY (job_id, scenario_id));
CREATE TABLE events (
  position BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  agent_id TEXT NOT NULL,
  scenario_id TEXT NOT NULL,
  seq BIGINT NOT NULL,
  job_id TEXT NOT NULL,
  event BYTEA NOT NULL,
  UNIQUE (agent_id, scenario_id, seq));
CREATE INDEX events_by_job ON events(job_id, position);
CREATE INDEX events_by_agent_seq ON events(agent_id, seq);
CREATE TABLE results (
  job_id TEXT NOT NULL,
  scenario_id TEXT NOT NULL,
  result BYTEA NOT NULL,
  PRIMARY KEY (job_id, scenario_id));
CREATE TABLE agents (
  agent_id TEXT PRIMARY KEY,
  capabilities BYTEA NOT NULL,
  last_seen_unix_ms BIGINT NOT NULL);
CREATE TABLE schedules (
  name TEXT PRIMARY KEY,
  schedule BYTEA NOT NULL);
CREATE TABLE schedule_fires (
  rowid BIGINT GENERATED ALWAYS AS IDENTITY,
  name TEXT NOT NULL,
  fire_key BIGINT NOT NULL,
  fire BYTEA NOT NULL,
  PRIMARY KEY (name, fire_key));
CREATE TABLE requests (
  job_id TEXT NOT NULL,
  scenario_id TEXT NOT NULL,
  attempt BIGINT NOT NULL,
  first_index BIGINT NOT NULL,
  records BYTEA NOT NULL,
  stored_unix_ms BIGINT NOT NULL,
  PRIMARY KEY (job_id, scenario_id, attempt, first_index));
CREATE INDEX requests_by_age ON requests(stored_unix_ms);
CREATE TABLE analyses (
  job_id TEXT PRIMARY KEY,
  schedule TEXT NOT NULL,
  analysis BYTEA NOT NULL,
  analyzed_unix_ms BIGINT NOT NULL);
CREATE TABLE change_points (
  position BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  schedule TEXT NOT NULL,
  job_id TEXT NOT NULL,
  change_point BYTEA NOT NULL);
CREATE INDEX change_points_by_schedule ON change_points(schedule, position);
CREATE TABLE baselines (
  schedule TEXT PRIMARY KEY,
  baseline BYTEA NOT NULL);
CREATE TABLE alerts (
  position BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  alert_id TEXT NOT NULL UNIQUE,
  schedule TEXT NOT NULL,
  job_id TEXT NOT NULL,
  alert BYTEA NOT NULL);
CREATE TABLE deliveries (
  alert_id TEXT NOT NULL,
  webhook TEXT NOT NULL,
  state BIGINT NOT NULL,
  next_attempt_unix_ms BIGINT NOT NULL,
  delivery BYTEA NOT NULL,
  PRIMARY KEY (alert_id, webhook));
CREATE INDEX deliveries_due ON deliveries(state, next_attempt_unix_ms);
)sql";

}  // namespace kvbench::controller::sql
