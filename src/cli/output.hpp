#pragma once
// Printing to the user, with secrets masked. Only cli/ prints. run, resume and delete-contacts
// print through one Output, which writes either text for people or JSON Lines for log
// collectors (--log-format); the other commands use the print_* functions (text).

#include <fmt/core.h>
#include <cstdio>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>

#include "cli/exit_code.hpp"
#include "util/redact.hpp"

namespace cli {

enum class LogFormat { text, json };
enum class Level { info, warning, error };

// Where an Output writes: the process's stdout and stderr, or files in tests.
struct Streams {
    std::FILE* out = stdout;
    std::FILE* err = stderr;
};

// The format named `name`: "json", else text.
LogFormat log_format_of(std::string_view name);

// Every line a command writes. Text is what people read ("wacamp: warning: …"); json is one
// object per line, {"time", "level", "event", "message", …}, secrets masked in every string.
// Errors, warnings, notices and progress go to stderr, the command's result to stdout. A
// stream that fails (its reader went away) is no longer written to; nothing here throws.
class Output {
public:
    explicit Output(LogFormat format, Streams streams = {});

    // The format chosen with --log-format.
    LogFormat format() const { return m_format; }
    // Registers `secret` to be masked in everything printed, in every form util::Redactor
    // knows (JSON-escaped inside a rendered message body, URL-encoded, …).
    void add_secret(const std::string& secret);
    // The secrets registered so far, for text printed without an Output (validate).
    const util::Redactor& redactor() const { return m_redactor; }
    // Whether progress may be drawn as a live line redrawn in place: text, stderr a terminal.
    bool live_lines() const { return m_live; }

    // An error that ends the command with `code`: "wacamp: error: MESSAGE", or an error object
    // with `exit_code`.
    void error(std::string_view message, ExitCode code);
    // The same, for errors whose text form is more than one line: text prints `text` on
    // stderr as it is; json prints one error object with `message`.
    void error(std::string_view message, ExitCode code, std::string_view text);
    // "wacamp: warning: MESSAGE", or a warning object.
    void warning(std::string_view message);
    // "wacamp: MESSAGE" ("continuing from …"), or a notice object.
    void notice(std::string_view message);
    // One progress report: `line` as a live line (live_lines()) or "wacamp: progress: LINE";
    // json: a progress object with `line` as its message and `fields`.
    void progress(std::string_view line, const nlohmann::ordered_json& fields);
    // The command's result on stdout: `text` as it is, or an object of `level` and `event`
    // with `fields` (a "message" among them).
    void result(Level level, std::string_view event, std::string_view text, const nlohmann::ordered_json& fields);
    // A question on stderr, left on the line for the answer (text only; json never asks).
    void prompt(std::string_view text);
    // Ends a live progress line, if one is showing, so that what follows starts on a clean line.
    void clear_line();

private:
    // Returns `text` as text output shows it: secrets masked, control characters and escape
    // sequences (from the service, the CSV) escaped, line breaks kept.
    std::string shown(std::string_view text) const;
    // Writes `text` on `stream` unless it failed before; marks it failed when the write fails.
    void put(std::FILE* stream, std::string_view text);
    // Writes `fields` as one JSON line on `stream`, after "time", "level" and "event".
    void json_line(std::FILE* stream, Level level, std::string_view event, const nlohmann::ordered_json& fields);

    LogFormat m_format;
    Streams m_streams;
    util::Redactor m_redactor;
    bool m_live;
    bool m_line_showing = false;
    bool m_out_broken = false;
    bool m_err_broken = false;
};

// Prints "wacamp: error: MESSAGE" on stderr, secrets masked, control characters escaped
// (line breaks kept). These print_* functions never throw: a failed write is ignored.
void print_error(const util::Redactor& redactor, std::string_view message);

// Prints "wacamp: warning: MESSAGE" on stderr, like print_error.
void print_warning(const util::Redactor& redactor, std::string_view message);

// Prints `text` on stdout, secrets masked. Returns false when stdout failed (errno says why).
bool print_out(const util::Redactor& redactor, std::string_view text);

// Prints `text` on stderr as it is.
void print_err(std::string_view text);

}  // namespace cli
