#pragma once
// Exit codes, the same for every command (docs/commands.md "Exit codes").

namespace cli {

enum ExitCode : int {
    k_exit_done = 0,       // every recipient ended sent, invalid or skipped; input usable
    k_exit_failures = 1,   // ran to the end, but some failed or are unknown
    k_exit_bad_input = 2,  // bad invocation or unusable input; nothing was sent
    k_exit_stopped = 3,    // stopped early: credentials refused, threshold, interrupted
};

}  // namespace cli
