#pragma once

// The SQL of the SQLite store (sqlite_database.h and its tables): schema versions 1 to 3 and every
// statement it prepares. Protos are stored serialized in BLOB columns; the columns beside them are
// what queries filter and order by.

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

inline constexpr char kInsertJob[] =
    "INSERT INTO jobs (job_id, name, spec, state, priority, submit_unix_ms, request_id) "
    "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)";
inline constexpr char kInsertScenario[] =
    "INSERT INTO scenarios (job_id, scenario_id, idx, scenario, state, reason, attempt, agent_id)"
    " VALUES (?1, ?2, ?3, ?4, ?5, '', 0, '')";
inline constexpr char kJobColumns[] =
    "SELECT position, job_id, spec, state, priority, submit_unix_ms, request_id, start_unix_ms, "
    "end_unix_ms, error FROM jobs ";
inline constexpr char kSelectJobWhere[] = "WHERE job_id = ?1";
// ?2 < 0 matches every state; ?3 = '' every name; ?4 is the row limit.
inline constexpr char kListJobsWhere[] =
    "WHERE position > ?1 AND (?2 < 0 OR state = ?2) AND (?3 = '' OR name = ?3) "
    "ORDER BY position LIMIT ?4";
inline constexpr char kSelectScenarios[] =
    "SELECT scenario, state, reason, attempt, agent_id FROM scenarios WHERE job_id = ?1 "
    "ORDER BY idx, scenario_id";
inline constexpr char kUpdateJobState[] = "UPDATE jobs SET state = ?2 WHERE job_id = ?1";
inline constexpr char kUpdateJob[] =
    "UPDATE jobs SET state = ?2, start_unix_ms = ?3, end_unix_ms = ?4, error = ?5 "
    "WHERE job_id = ?1";
inline constexpr char kSelectJobByRequest[] = "SELECT job_id FROM jobs WHERE request_id = ?1";
inline constexpr char kMaxEventSeq[] =
    "SELECT COALESCE(MAX(seq), 0) FROM events WHERE agent_id = ?1";
inline constexpr char kUpdateScenario[] =
    "UPDATE scenarios SET state = ?3, reason = ?4, attempt = ?5, agent_id = ?6 "
    "WHERE job_id = ?1 AND scenario_id = ?2";
inline constexpr char kInsertEvent[] =
    "INSERT INTO events (agent_id, scenario_id, seq, job_id, event) VALUES (?1, ?2, ?3, ?4, ?5) "
    "ON CONFLICT (agent_id, scenario_id, seq) DO NOTHING";
inline constexpr char kSelectEvents[] =
    "SELECT position, event FROM events WHERE job_id = ?1 AND position > ?2 "
    "ORDER BY position LIMIT ?3";
inline constexpr char kUpsertResult[] =
    "INSERT INTO results (job_id, scenario_id, result) VALUES (?1, ?2, ?3) "
    "ON CONFLICT (job_id, scenario_id) DO UPDATE SET result = excluded.result";
inline constexpr char kSelectResults[] =
    "SELECT scenario_id, result FROM results WHERE job_id = ?1 ORDER BY scenario_id";
inline constexpr char kUpsertAgent[] =
    "INSERT INTO agents (agent_id, capabilities, last_seen_unix_ms) VALUES (?1, ?2, ?3) "
    "ON CONFLICT (agent_id) DO UPDATE SET capabilities = excluded.capabilities, "
    "last_seen_unix_ms = excluded.last_seen_unix_ms";
inline constexpr char kSelectAgents[] =
    "SELECT capabilities, last_seen_unix_ms FROM agents ORDER BY agent_id";

inline constexpr char kInsertSchedule[] = "INSERT INTO schedules (name, schedule) VALUES (?1, ?2)";
inline constexpr char kUpdateSchedule[] = "UPDATE schedules SET schedule = ?2 WHERE name = ?1";
inline constexpr char kSelectSchedules[] = "SELECT schedule FROM schedules ORDER BY name";
inline constexpr char kDeleteSchedule[] = "DELETE FROM schedules WHERE name = ?1";
inline constexpr char kDeleteScheduleFires[] = "DELETE FROM schedule_fires WHERE name = ?1";
inline constexpr char kInsertScheduleFire[] =
    "INSERT INTO schedule_fires (name, fire_key, fire) VALUES (?1, ?2, ?3) "
    "ON CONFLICT (name, fire_key) DO NOTHING";
inline constexpr char kSelectScheduleFires[] =
    "SELECT fire FROM schedule_fires WHERE name = ?1 ORDER BY rowid DESC LIMIT ?2";
inline constexpr char kInsertRequests[] =
    "INSERT INTO requests (job_id, scenario_id, attempt, first_index, records, stored_unix_ms) "
    "VALUES (?1, ?2, ?3, ?4, ?5, ?6) "
    "ON CONFLICT (job_id, scenario_id, attempt, first_index) DO NOTHING";
inline constexpr char kSelectRequests[] =
    "SELECT records FROM requests WHERE job_id = ?1 AND scenario_id = ?2 AND attempt = ?3 "
    "AND first_index > ?4 ORDER BY first_index LIMIT ?5";
inline constexpr char kDeleteRequestsBefore[] = "DELETE FROM requests WHERE stored_unix_ms < ?1";

}  // namespace kvbench::controller::sql
