#include "cli/output.hpp"

#include <cstdio>

namespace cli {

void print_error(const util::Redactor& redactor, std::string_view message) {
    fmt::print(stderr, "wacamp: error: {}\n", redactor.apply(message));
    std::fflush(stderr);
}

void print_warning(const util::Redactor& redactor, std::string_view message) {
    fmt::print(stderr, "wacamp: warning: {}\n", redactor.apply(message));
    std::fflush(stderr);
}

void print_out(const util::Redactor& redactor, std::string_view text) {
    fmt::print("{}", redactor.apply(text));
    std::fflush(stdout);
}

} // namespace cli
