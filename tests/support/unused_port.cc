#include "tests/support/unused_port.h"

#include "common/net/port_allocator.h"

namespace kvbench::testing {

int UnusedLoopbackPort() { return BindEphemeralPort("127.0.0.1").value_or(0); }

}  // namespace kvbench::testing
