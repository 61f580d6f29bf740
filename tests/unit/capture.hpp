#pragma once
// A temporary file, or a pseudo-terminal, standing in for stdout or stderr in tests of what
// cli/ prints.

#include <doctest/doctest.h>

#include <pty.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

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

// A pseudo-terminal `columns` wide standing in for stderr: what is written to file() is shown
// as written ("\n" stays "\n"); shown() closes file() and returns all the terminal showed.
class TerminalCapture {
public:
    explicit TerminalCapture(unsigned short columns = 80) {
        winsize size{};
        size.ws_col = columns;
        size.ws_row = 24;
        int side = -1;
        REQUIRE(openpty(&m_terminal, &side, nullptr, nullptr, &size) == 0);
        termios mode{};
        tcgetattr(side, &mode);
        cfmakeraw(&mode);
        tcsetattr(side, TCSANOW, &mode);
        m_side = fdopen(side, "w");
        REQUIRE(m_side != nullptr);
        std::setvbuf(m_side, nullptr, _IONBF, 0);
    }
    ~TerminalCapture() {
        if (m_side != nullptr) {
            std::fclose(m_side);
        }
        close(m_terminal);
    }
    TerminalCapture(const TerminalCapture&) = delete;
    TerminalCapture& operator=(const TerminalCapture&) = delete;

    std::FILE* file() const { return m_side; }
    // Makes the terminal `columns` wide, as a person resizing its window does.
    void resize(unsigned short columns) const {
        winsize size{};
        size.ws_col = columns;
        size.ws_row = 24;
        ioctl(m_terminal, TIOCSWINSZ, &size);
    }
    std::string shown() {
        std::fclose(m_side);
        m_side = nullptr;
        std::string out;
        char buffer[4096];
        for (ssize_t n; (n = read(m_terminal, buffer, sizeof buffer)) > 0;) {
            out.append(buffer, static_cast<size_t>(n));
        }
        return out;
    }

private:
    int m_terminal = -1;
    std::FILE* m_side = nullptr;
};

}  // namespace test_support
