#include "cli/not_built.hpp"

#include <fmt/core.h>

#include "cli/exit_code.hpp"

namespace cli {

int not_built(const std::string& command) {
    fmt::print(stderr, "wacamp: error: '{}' is not available in this version of wacamp yet; "
                       "nothing was done\n", command);
    return k_exit_bad_input;
}

} // namespace cli
