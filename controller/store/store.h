#pragma once

// The controller's durable state, one table family per entity over one database (as Ray's GCS
// keeps a table per entity over one store client): jobs (with their scenarios, results and
// request ids), the event log (with request records), agents, schedules and regressions.
//
// A component that needs one family takes that interface; one that spans several (the job state
// machine writes jobs and events) takes the Store and picks the family at each call. A fake
// Store hands out fake tables.

#include "controller/store/agent_store.h"
#include "controller/store/event_log.h"
#include "controller/store/job_store.h"
#include "controller/store/regression_store.h"
#include "controller/store/schedule_store.h"

namespace kvbench::controller {

class Store {
 public:
  virtual ~Store() = default;

  virtual JobStore& Jobs() = 0;
  virtual EventLog& Events() = 0;
  virtual AgentStore& Agents() = 0;
  virtual ScheduleStore& Schedules() = 0;
  virtual RegressionStore& Regressions() = 0;
};

}  // namespace kvbench::controller
