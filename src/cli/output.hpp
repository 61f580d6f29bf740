#pragma once
// Printing to the user, with secrets masked. Only cli/ prints. Diagnostics (errors, warnings,
// notices, progress lines) go through Output's spdlog logger, whose sinks write text for
// people or JSON Lines for log collectors (--log-format), or entries with fields for journald
// when systemd connected stderr to the journal; Output itself writes what is not a log line:
// the command's result on stdout, the question and the live progress line. With --log-file,
// a second logger appends the diagnostics and the result to a rotating file as well.

#include <spdlog/fwd.h>
#include <chrono>
#include <cstdio>
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "cli/exit_code.hpp"
#include "cli/journal_sink.hpp"
#include "cli/log_format.hpp"
#include "cli/logger.hpp"
#include "util/redact.hpp"
#include "util/result.hpp"

namespace cli {

class Stream;

// Where an Output writes: the process's stdout and stderr, or files in tests.
struct Streams {
    std::FILE* out = stdout;
    std::FILE* err = stderr;
    // How entries reach journald, when JOURNAL_STREAM names `err` (or `out`).
    JournalSend journal = send_to_journal;
};

// Every line a command writes. Text is what people read ("wacamp: warning: …"); json is one
// object per line, {"time", "level", "event", "message", …}, secrets masked in every string.
// Errors, warnings, notices and progress go to stderr, the command's result to stdout. A
// stream that fails (its reader went away) is no longer written to; nothing here throws.
// Whether `a` and `b` name the same file: the same device and inode, or, when either does not
// exist yet, the same path once symlinks and dots are resolved.
bool same_file(const std::string& a, const std::string& b);

class Output {
public:
    explicit Output(LogFormat format, Streams streams = {});

    // Also appends every diagnostic and the command's result to the log file at `path`, in
    // this Output's format, rotated as `rotation` says; progress as stderr gets it, or at most
    // every 10 seconds while stderr shows a live line.
    // Fails, naming the file, when it cannot be opened. A later write that fails is reported
    // once as a warning, and the file is no longer written.
    util::Result<void> log_to_file(const std::string& path, Rotation rotation = {});
    // Which of the log file's names is the file at `path` (same_file): the log file itself, or
    // a name rotation gives it (PATH.1.EXT … PATH.5.EXT), which rotation would replace. A log
    // file must never be appended to, nor rotated onto, a campaign's own files. Nothing
    // without a log file, or when none is.
    std::optional<std::string> logs_into(const std::string& path) const;
    // Stops writing the log file (before reporting that it cannot be used), and removes it
    // when log_to_file made it and it is still empty.
    void close_log_file();
    // The log file's path, as given; empty without one.
    const std::string& log_file_path() const { return m_file_path; }
    // The campaign the command works on, and its account when it keeps a ledger (else empty):
    // every JSON line from then on names them (`campaign`, `account`), and journald's entries
    // the campaign (WACAMP_CAMPAIGN).
    void set_campaign(std::string_view name, std::string_view account = {});
    // Whether diagnostics go to journald (stderr is the journal's stream).
    bool to_journal() const { return m_journal_err; }

    // The format chosen with --log-format.
    LogFormat format() const { return m_format; }
    // Registers `secret` to be masked in everything printed or logged, in every form
    // util::Redactor knows (JSON-escaped inside a rendered message body, URL-encoded, …).
    void add_secret(const std::string& secret);
    // The secrets registered so far, for results printed without an Output (validate).
    const util::Redactor& redactor() const { return *m_redactor; }
    // Whether progress may be drawn as a live line redrawn in place: text, stderr a terminal.
    bool live_lines() const { return m_live; }
    // The columns of the terminal on stderr, asked of it each time (it may be resized);
    // nothing when stderr is no terminal or does not say.
    std::optional<std::size_t> terminal_columns() const;
    // The logger the diagnostics below go through, for code that reports as it works.
    spdlog::logger& logger() { return *m_logger; }

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
    // The same, with its own text form (the sandbox's lines say "sandbox: …").
    void notice(std::string_view message, std::string_view text);
    // "wacamp: MESSAGE", or a notice object with `fields` besides its message.
    void notice_with_fields(std::string_view message, const nlohmann::ordered_json& fields);
    // One progress report: `live_line` (`line` when empty) as a live line (live_lines()) or
    // "wacamp: progress: LINE"; json: a progress object with `line` as its message and `fields`.
    // A log file gets `line`.
    void progress(std::string_view line, const nlohmann::ordered_json& fields, std::string_view live_line = {});
    // Draws `line` as the live line, in place of the one showing (live_lines() only; else nothing).
    void draw_live(std::string_view line);
    // The command's result on stdout: `text` as it is, or an object of `level` and `event`
    // with `fields` (a "message" among them).
    void result(Level level, std::string_view event, std::string_view text, const nlohmann::ordered_json& fields);
    // A question for the person at the terminal, left on the line for the answer (text only;
    // json never asks): on stderr when it is a terminal, otherwise on the controlling terminal
    // (/dev/tty), so that a redirected stderr or stdout does not hide it. False when no
    // terminal can show it.
    bool prompt(std::string_view text);
    // Ends a live progress line, if one is showing, so that what follows starts on a clean line.
    void clear_line();

private:
    // Returns `fields` with the campaign and account first (after `message`, if it has one).
    nlohmann::ordered_json in_context(const nlohmann::ordered_json& fields) const;
    // Logs `entry` to stderr's logger and to the log file's, if there is one.
    void log(spdlog::level::level_enum level, const LogEntry& entry);

    LogFormat m_format;
    std::shared_ptr<util::Redactor> m_redactor;  // shared with the logger's formatters
    std::shared_ptr<std::string> m_campaign;     // shared with the journal's sink
    std::string m_account;                       // the campaign's account, when it keeps a ledger
    std::shared_ptr<Stream> m_out;
    std::shared_ptr<Stream> m_err;              // shared with the logger's sink, which clears the live line
    bool m_journal_err;                         // stderr is the journal's stream: diagnostics go as entries
    bool m_journal_out;                         // so is stdout: the result goes as an entry too
    std::shared_ptr<spdlog::logger> m_journal;  // the journal's entries (when either is)
    std::shared_ptr<spdlog::logger> m_logger;   // stderr's diagnostics
    std::shared_ptr<spdlog::logger> m_file;     // --log-file's, or null
    std::string m_file_path;                    // its path, as given
    std::size_t m_file_rotations = 0;           // how many rotated names it takes
    bool m_file_made = false;                   // log_to_file made it
    std::chrono::steady_clock::time_point m_next_file_progress{};
    bool m_live;
};

// Prints "wacamp: error: MESSAGE" on stderr through a text logger, secrets masked, control
// characters escaped (line breaks kept). Never throws: a failed write is ignored.
void print_error(const util::Redactor& redactor, std::string_view message);

// Prints `text` on stdout, secrets masked. Returns false when stdout failed (errno says why).
bool print_out(const util::Redactor& redactor, std::string_view text);

}  // namespace cli
