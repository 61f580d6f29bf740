#pragma once
// The one exception type: thrown for what cannot go on, caught once in cli::run.

#include <stdexcept>
#include <string>

#include "cli/exit_code.hpp"

namespace cli {

class Fatal : public std::runtime_error {
public:
    Fatal(ExitCode code, const std::string& message) : std::runtime_error(message), m_code(code) {}
    ExitCode code() const { return m_code; }

private:
    ExitCode m_code;
};

}  // namespace cli
