#pragma once

// The statements the store's tables prepare (sql_*_store.cc, sql_event_log.cc), one text for
// both engines: parameters are written ?N (SQLite's numbered form; the PostgreSQL statement
// rewrites them to $N), upserts use ON CONFLICT ... DO NOTHING / DO UPDATE SET ... = excluded.x
// (SQLite >= 3.24 and PostgreSQL alike), and the one implicit column read, rowid, is a real
// column in the PostgreSQL schema (postgres_schema.h).

namespace kvbench::controller::sql {

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
