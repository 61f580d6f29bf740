#pragma once
// A temporary file standing in for stdout or stderr in tests of what cli/ prints.

#include <doctest/doctest.h>

#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

namespace test_support {

// A temporary file standing in for stdout or stderr; text() reads back what was written.
class Capture {
public:
    Capture() : m_file(std::tmpfile(), &std::fclose) { REQUIRE(m_file != nullptr); }
    std::FILE* file() const { return m_file.get(); }
    std::string text() const {
        std::fflush(m_file.get());
        std::rewind(m_file.get());
        std::string out;
        char buffer[4096];
        while (size_t n = std::fread(buffer, 1, sizeof buffer, m_file.get())) {
            out.append(buffer, n);
        }
        return out;
    }
    // Each line parsed as JSON; a line that is not valid JSON fails the test.
    std::vector<nlohmann::json> objects() const {
        std::vector<nlohmann::json> out;
        std::istringstream lines(text());
        for (std::string line; std::getline(lines, line);) {
            auto parsed = nlohmann::json::parse(line, nullptr, false);
            CHECK_MESSAGE(parsed.is_object(), line);
            out.push_back(parsed);
        }
        return out;
    }

private:
    std::unique_ptr<std::FILE, int (*)(std::FILE*)> m_file;
};

}  // namespace test_support
