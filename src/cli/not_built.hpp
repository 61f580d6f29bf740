#pragma once
// For commands whose implementation has not landed yet: they parse and describe their
// options, then say so and exit 2.

#include <string>

namespace cli {

// Prints that `command` is not available in this version and returns exit code 2.
int not_built(const std::string& command);

} // namespace cli
