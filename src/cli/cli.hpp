#pragma once
// The command line: the only place that prints to the user.

namespace cli {

// Parses `argv`, runs the chosen command and returns the process exit code (see
// exit_code.hpp). Fatal errors are caught here, printed as "wacamp: error: …".
int run(int argc, char** argv);

}  // namespace cli
