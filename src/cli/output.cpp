#include "cli/output.hpp"

#include <spdlog/logger.h>
#include <unistd.h>
#include <chrono>
#include <nlohmann/json.hpp>

#include "cli/log_entry.hpp"
#include "cli/logger.hpp"
#include "cli/stream.hpp"
#include "util/text.hpp"

namespace cli {

namespace {

std::string fields_text(const nlohmann::ordered_json& fields) {
    return util::json_safe(fields.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace));
}

}  // namespace

Output::Output(LogFormat format, Streams streams)
    : m_format(format),
      m_redactor(std::make_shared<util::Redactor>()),
      m_out(std::make_shared<Stream>(streams.out)),
      m_err(std::make_shared<Stream>(streams.err)),
      m_logger(make_logger({{.format = format, .stream = m_err}}, m_redactor)),
      m_live(format == LogFormat::text && isatty(fileno(streams.err)) == 1) {}

void Output::add_secret(const std::string& secret) {
    m_redactor->add(secret);
}

void Output::error(std::string_view message, ExitCode code) {
    error(message, code, {});
}

void Output::error(std::string_view message, ExitCode code, std::string_view text) {
    const auto fields = fields_text({{"exit_code", static_cast<int>(code)}});
    log_entry(*m_logger, spdlog::level::err, {.event = "error", .message = message, .text = text, .fields = fields});
}

void Output::warning(std::string_view message) {
    log_entry(*m_logger, spdlog::level::warn, {.event = "warning", .message = message});
}

void Output::notice(std::string_view message) {
    notice(message, {});
}

void Output::notice(std::string_view message, std::string_view text) {
    log_entry(*m_logger, spdlog::level::info, {.event = "notice", .message = message, .text = text});
}

void Output::progress(std::string_view line, const nlohmann::ordered_json& fields) {
    if (m_live) {
        m_err->draw_live(shown(line, *m_redactor));
        return;
    }
    const auto more = m_format == LogFormat::json ? fields_text(fields) : std::string();
    log_entry(*m_logger, spdlog::level::info, {.event = "progress", .message = line, .fields = more});
}

void Output::result(Level level, std::string_view event, std::string_view text, const nlohmann::ordered_json& fields) {
    m_err->clear_live();
    if (m_format == LogFormat::json) {
        m_out->write(json_line(std::chrono::system_clock::now(), level, event, fields, *m_redactor));
        return;
    }
    m_out->write(shown(text, *m_redactor));
}

void Output::prompt(std::string_view text) {
    m_err->clear_live();
    if (m_format == LogFormat::text) {
        m_err->write(shown(text, *m_redactor));
    }
}

void Output::clear_line() {
    m_err->clear_live();
}

void print_error(const util::Redactor& redactor, std::string_view message) {
    const auto logger = make_logger({{.format = LogFormat::text, .stream = std::make_shared<Stream>(stderr)}},
                                    std::make_shared<const util::Redactor>(redactor));
    log_entry(*logger, spdlog::level::err, {.event = "error", .message = message});
}

bool print_out(const util::Redactor& redactor, std::string_view text) {
    Stream out(stdout);
    out.write(redactor.apply(text));
    return !out.failed();
}

}  // namespace cli
