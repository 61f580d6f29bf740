#pragma once
// `${NAME}` interpolation from the environment, behind a small interface so tests can
// supply their own variables.

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.hpp"

namespace util {

// Where variables come from.
class Environment {
public:
    virtual ~Environment() = default;
    // Returns the value of `name`, or nothing when it is not set.
    virtual std::optional<std::string> get(const std::string& name) const = 0;
};

// The process environment (getenv).
class ProcessEnvironment final : public Environment {
public:
    std::optional<std::string> get(const std::string& name) const override;
};

// A fixed map of variables, for tests.
class MapEnvironment final : public Environment {
public:
    explicit MapEnvironment(std::map<std::string, std::string> vars) : m_vars(std::move(vars)) {}
    std::optional<std::string> get(const std::string& name) const override;

private:
    std::map<std::string, std::string> m_vars;
};

// Replaces every `${NAME}` in `text` with its value from `env`. Fails, naming the variable,
// when one is unset or a `${` is not closed. `$$` stands for a literal `$`.
Result<std::string> interpolate(std::string_view text, const Environment& env);

// Returns the NAMEs of the `${NAME}`s in `text`, in order, read as interpolate() reads them.
std::vector<std::string> variables_in(std::string_view text);

}  // namespace util
