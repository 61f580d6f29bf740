#pragma once
// The command line: the only place that prints to the user.

namespace cli {

// Parses `argv`, runs the chosen command and returns the process exit code (see
// exit_code.hpp). An exception that escapes a command (only the truly unexpected throws) is
// caught here, printed as "wacamp: error: …", with exit code 3.
int run(int argc, char** argv);

}  // namespace cli
