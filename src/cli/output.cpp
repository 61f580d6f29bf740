#include "cli/output.hpp"

#include <spdlog/logger.h>
#include <spdlog/sinks/rotating_file_sink.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "cli/log_entry.hpp"
#include "cli/logger.hpp"
#include "cli/stream.hpp"
#include "util/text.hpp"

namespace cli {

namespace {

// Progress in a log file: at most this often, however often a live line is redrawn.
constexpr auto k_file_progress_interval = std::chrono::seconds(10);

std::string fields_text(const nlohmann::ordered_json& fields) {
    return util::json_safe(fields.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace));
}

spdlog::level::level_enum spdlog_level(Level level) {
    switch (level) {
    case Level::error: return spdlog::level::err;
    case Level::warning: return spdlog::level::warn;
    case Level::info: return spdlog::level::info;
    }
    return spdlog::level::info;
}

bool is_journal(std::FILE* file) {
    return file != nullptr && is_journal_stream(std::getenv("JOURNAL_STREAM"), fileno(file));
}

}  // namespace

Output::Output(LogFormat format, Streams streams)
    : m_format(format),
      m_redactor(std::make_shared<util::Redactor>()),
      m_campaign(std::make_shared<std::string>()),
      m_out(std::make_shared<Stream>(streams.out)),
      m_err(std::make_shared<Stream>(streams.err)),
      m_journal_err(is_journal(streams.err)),
      m_journal_out(is_journal(streams.out)),
      m_live(format == LogFormat::text && !m_journal_err && isatty(fileno(streams.err)) == 1) {
    if (m_journal_err || m_journal_out) {
        // An entry the journal refuses goes, as text, to the stream it would have read.
        m_journal = make_logger(
            {make_journal_sink(m_redactor, m_campaign, m_journal_err ? m_err : m_out, std::move(streams.journal))});
    }
    m_logger = m_journal_err ? m_journal : make_logger({make_stream_sink(format, m_err, m_redactor)});
}

util::Result<void> Output::log_to_file(const std::string& path, Rotation rotation) {
    // A failure is told on stderr (through m_logger, which outlives the file's logger).
    auto on_failure = [logger = m_logger, path](const std::string& why) {
        log_entry(*logger, spdlog::level::warn,
                  {.event = "warning",
                   .message = fmt::format("cannot write the log file {} ({}); it is no longer written", path, why)});
    };
    std::error_code ec;
    const bool existed = std::filesystem::exists(std::filesystem::symlink_status(path, ec));
    TRY_ASSIGN(auto sink, make_file_sink(path, m_format, m_redactor, rotation, std::move(on_failure)));
    m_file = make_logger({std::move(sink)});
    m_file_path = path;
    m_file_rotations = rotation.max_files;
    m_file_made = !existed;
    return {};
}

void Output::close_log_file() {
    m_file.reset();
    std::error_code ec;
    if (m_file_made && std::filesystem::is_regular_file(m_file_path, ec) &&
        std::filesystem::file_size(m_file_path, ec) == 0 && !ec) {
        std::filesystem::remove(m_file_path, ec);  // a clash must leave nothing behind at that path
    }
    m_file_path.clear();
}

bool same_file(const std::string& a, const std::string& b) {
    struct stat one {};
    struct stat other {};
    if (::stat(a.c_str(), &one) == 0 && ::stat(b.c_str(), &other) == 0) {
        return one.st_dev == other.st_dev && one.st_ino == other.st_ino;
    }
    std::error_code ec;
    const auto x = std::filesystem::weakly_canonical(a, ec);
    const auto y = std::filesystem::weakly_canonical(b, ec);
    return !ec && x == y;
}

std::optional<std::string> Output::logs_into(const std::string& path) const {
    if (!m_file || path.empty()) {
        return std::nullopt;
    }
    if (same_file(m_file_path, path)) {
        return m_file_path;
    }
    for (std::size_t i = 1; i <= m_file_rotations; ++i) {
        // The names spdlog's rotating sink gives (L.jsonl -> L.1.jsonl), asked of spdlog itself.
        const std::string rotated = spdlog::sinks::rotating_file_sink_st::calc_filename(m_file_path, i);
        if (same_file(rotated, path)) {
            return rotated;
        }
    }
    return std::nullopt;
}

void Output::set_campaign(std::string_view name, std::string_view account) {
    *m_campaign = name;
    m_account = account;
}

nlohmann::ordered_json Output::in_context(const nlohmann::ordered_json& fields) const {
    auto out = nlohmann::ordered_json::object();
    if (fields.contains("message")) {
        out["message"] = fields["message"];  // first, as in every other line
    }
    if (!m_campaign->empty()) {
        out["campaign"] = *m_campaign;
    }
    if (!m_account.empty()) {
        out["account"] = m_account;
    }
    if (fields.is_object()) {
        for (const auto& [key, value] : fields.items()) {
            out[key] = value;
        }
    }
    return out;
}

void Output::add_secret(const std::string& secret) {
    m_redactor->add(secret);
}

void Output::log(spdlog::level::level_enum level, const LogEntry& entry) {
    log_entry(*m_logger, level, entry);
    if (m_file) {
        log_entry(*m_file, level, entry);
    }
}

void Output::error(std::string_view message, ExitCode code) {
    error(message, code, {});
}

void Output::error(std::string_view message, ExitCode code, std::string_view text) {
    const auto fields = fields_text(in_context({{"exit_code", static_cast<int>(code)}}));
    log(spdlog::level::err, {.event = "error", .message = message, .text = text, .fields = fields});
}

void Output::warning(std::string_view message) {
    const auto fields = fields_text(in_context({}));
    log(spdlog::level::warn, {.event = "warning", .message = message, .fields = fields});
}

void Output::notice(std::string_view message) {
    notice(message, {});
}

void Output::notice(std::string_view message, std::string_view text) {
    const auto fields = fields_text(in_context({}));
    log(spdlog::level::info, {.event = "notice", .message = message, .text = text, .fields = fields});
}

void Output::notice_with_fields(std::string_view message, const nlohmann::ordered_json& fields) {
    const auto more = fields_text(in_context(fields));  // the entry's views point into it
    log(spdlog::level::info, {.event = "notice", .message = message, .fields = more});
}

std::optional<std::size_t> Output::terminal_columns() const {
    winsize size{};
    if (ioctl(fileno(m_err->file()), TIOCGWINSZ, &size) != 0 || size.ws_col == 0) {
        return std::nullopt;
    }
    return size.ws_col;
}

void Output::draw_live(std::string_view line) {
    if (m_live) {
        m_err->draw_live(shown(line, *m_redactor));
    }
}

void Output::progress(std::string_view line, const nlohmann::ordered_json& fields, std::string_view live_line) {
    const auto more = fields_text(in_context(fields));  // the entry's views point into it
    const LogEntry entry{.event = "progress", .message = line, .fields = more};
    if (m_live) {
        draw_live(live_line.empty() ? line : live_line);
    } else {
        log_entry(*m_logger, spdlog::level::info, entry);
    }
    // Off a terminal the caller already paces progress (TerminalUi: every 10 s); a live line is
    // redrawn every second, and the file takes one of those every 10 s.
    const auto now = std::chrono::steady_clock::now();
    if (m_file && (!m_live || now >= m_next_file_progress)) {
        m_next_file_progress = now + k_file_progress_interval;
        log_entry(*m_file, spdlog::level::info, entry);
    }
}

void Output::result(Level level, std::string_view event, std::string_view text, const nlohmann::ordered_json& fields) {
    m_err->clear_live();
    const auto message = fields.contains("message") && fields["message"].is_string()
                             ? fields["message"].get<std::string>()
                             : std::string(text);
    const auto all = in_context(fields);
    const auto more = fields_text(all);  // the entry's views point into it
    const LogEntry entry{.event = event, .message = message, .text = text, .fields = more};
    if (m_file) {
        log_entry(*m_file, spdlog_level(level), entry);
    }
    if (m_journal_out) {
        // journalctl shows MESSAGE: the whole text a person would have read on stdout.
        auto shown_text = text;
        while (!shown_text.empty() && shown_text.back() == '\n') {
            shown_text.remove_suffix(1);
        }
        log_entry(*m_journal, spdlog_level(level), {.event = event, .message = shown_text, .fields = entry.fields});
        return;
    }
    if (m_format == LogFormat::json) {
        m_out->write(json_line(std::chrono::system_clock::now(), level, event, all, *m_redactor));
        return;
    }
    m_out->write(shown(text, *m_redactor));
}

bool Output::prompt(std::string_view text) {
    m_err->clear_live();
    if (m_format != LogFormat::text) {
        return false;
    }
    if (isatty(fileno(m_err->file())) == 1) {
        m_err->write(shown(text, *m_redactor));
        return true;
    }
    std::FILE* tty = std::fopen("/dev/tty", "we");
    if (tty == nullptr) {
        return false;  // no controlling terminal (started by setsid, a service, …)
    }
    Stream terminal(tty);
    terminal.write(shown(text, *m_redactor));
    const bool shown_there = !terminal.failed();
    std::fclose(tty);
    return shown_there;
}

void Output::clear_line() {
    m_err->clear_live();
}

void print_error(const util::Redactor& redactor, std::string_view message) {
    const auto logger = make_logger({make_stream_sink(LogFormat::text, std::make_shared<Stream>(stderr),
                                                      std::make_shared<const util::Redactor>(redactor))});
    log_entry(*logger, spdlog::level::err, {.event = "error", .message = message});
}

bool print_out(const util::Redactor& redactor, std::string_view text) {
    Stream out(stdout);
    out.write(redactor.apply(text));
    return !out.failed();
}

}  // namespace cli
