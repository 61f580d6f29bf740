#pragma once
// Dropping a connection from inside a cpp-httplib handler, which is never given its socket.

#include <functional>

namespace sandbox {

// Shuts down (FIN both ways, nothing written) this process's TCP socket whose local port is
// `local_port` and whose peer port is `remote_port`, found among the open descriptors.
// cpp-httplib's own write of the answer then fails and it closes the descriptor itself, so
// no descriptor is closed under its feet. A libcurl client sees "Empty reply from server".
// Returns false when no such socket is open (Linux: it reads /proc/self/fd).
bool hang_up(int local_port, int remote_port);

// Shuts down every connection accepted on `local_port` whose peer port `busy` does not
// name: connections idling in keep-alive end at once instead of after cpp-httplib's
// keep-alive timeout. (cpp-httplib writes no answer on a half-closed socket, hence `busy`.)
// For stopping, once no more connections are accepted.
void hang_up_idle(int local_port, const std::function<bool(int remote_port)>& busy);

}  // namespace sandbox
