#pragma once
// Printing to the user, with secrets masked. Only cli/ prints.

#include <fmt/core.h>
#include <string>
#include <string_view>

#include "util/redact.hpp"

namespace cli {

// Prints "wacamp: error: MESSAGE" on stderr, secrets masked.
void print_error(const util::Redactor& redactor, std::string_view message);

// Prints "wacamp: warning: MESSAGE" on stderr, secrets masked.
void print_warning(const util::Redactor& redactor, std::string_view message);

// Prints `text` on stdout, secrets masked.
void print_out(const util::Redactor& redactor, std::string_view text);

} // namespace cli
