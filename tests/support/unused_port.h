#pragma once

namespace kvbench::testing {

// A loopback TCP port nobody listens on right now: bound with the kernel's choice, then released.
// For tests that need a port before the process that will use it exists (or one that is closed);
// servers under test should bind port 0 themselves where they can. Returns 0 on failure.
int UnusedLoopbackPort();

}  // namespace kvbench::testing
