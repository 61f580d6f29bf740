#include "cli/output.hpp"

#include <unistd.h>
#include <chrono>
#include <nlohmann/json.hpp>

#include "util/text.hpp"
#include "util/time.hpp"

namespace cli {

namespace {

// Writes `text` as it is and flushes, so that lines of stdout and stderr keep their order
// when both go to one file. Returns false when the stream failed (a closed pipe, a full
// disk): never throws, as what is printed must never stop a run.
bool write(std::FILE* stream, std::string_view text) {
    const bool written = std::fwrite(text.data(), 1, text.size(), stream) == text.size();
    const bool flushed = std::fflush(stream) == 0;
    if (!written || !flushed) {
        std::clearerr(stream);
        return false;
    }
    return true;
}

std::string_view name_of(Level level) {
    switch (level) {
    case Level::info: return "info";
    case Level::warning: return "warning";
    case Level::error: return "error";
    }
    return "info";
}

// Masks secrets in every string of `value`, before it is serialised: masking the serialised
// text would miss a secret whose characters JSON escapes.
void redact(nlohmann::ordered_json& value, const util::Redactor& redactor) {
    if (value.is_string()) {
        value = redactor.apply(value.get_ref<const std::string&>());
    } else if (value.is_structured()) {
        for (auto& item : value) {
            redact(item, redactor);
        }
    }
}

}  // namespace

LogFormat log_format_of(std::string_view name) {
    return name == "json" ? LogFormat::json : LogFormat::text;
}

Output::Output(LogFormat format, Streams streams)
    : m_format(format), m_streams(streams), m_live(format == LogFormat::text && isatty(fileno(streams.err)) == 1) {}

void Output::add_secret(const std::string& secret) {
    m_redactor.add(secret);
}

void Output::json_line(std::FILE* stream, Level level, std::string_view event, const nlohmann::ordered_json& fields) {
    nlohmann::ordered_json line = {{"time", util::format_timestamp(std::chrono::system_clock::now())},
                                   {"level", name_of(level)},
                                   {"event", event}};
    if (fields.is_object()) {
        for (const auto& [key, value] : fields.items()) {
            line[key] = value;
        }
    }
    redact(line, m_redactor);
    // Bytes that are not UTF-8 (a hand-edited CSV) are replaced rather than thrown on.
    put(stream, line.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n");
}

std::string Output::shown(std::string_view text) const {
    return util::printable(m_redactor.apply(text), util::LineBreaks::keep);
}

void Output::put(std::FILE* stream, std::string_view text) {
    bool& broken = stream == m_streams.out ? m_out_broken : m_err_broken;
    if (!broken && !write(stream, text)) {
        broken = true;  // a reader that went away will not come back: stop writing to it
    }
}

void Output::error(std::string_view message, ExitCode code) {
    error(message, code, fmt::format("wacamp: error: {}\n", message));
}

void Output::error(std::string_view message, ExitCode code, std::string_view text) {
    clear_line();
    if (m_format == LogFormat::json) {
        json_line(m_streams.err, Level::error, "error", {{"message", message}, {"exit_code", static_cast<int>(code)}});
        return;
    }
    put(m_streams.err, shown(text));
}

void Output::warning(std::string_view message) {
    clear_line();
    if (m_format == LogFormat::json) {
        json_line(m_streams.err, Level::warning, "warning", {{"message", message}});
        return;
    }
    put(m_streams.err, fmt::format("wacamp: warning: {}\n", shown(message)));
}

void Output::notice(std::string_view message) {
    clear_line();
    if (m_format == LogFormat::json) {
        json_line(m_streams.err, Level::info, "notice", {{"message", message}});
        return;
    }
    put(m_streams.err, fmt::format("wacamp: {}\n", shown(message)));
}

void Output::progress(std::string_view line, const nlohmann::ordered_json& fields) {
    if (m_format == LogFormat::json) {
        nlohmann::ordered_json all = {{"message", line}};
        all.update(fields);
        json_line(m_streams.err, Level::info, "progress", all);
        return;
    }
    if (m_live) {
        put(m_streams.err, fmt::format("\r\033[K{}", shown(line)));
        m_line_showing = true;
        return;
    }
    put(m_streams.err, fmt::format("wacamp: progress: {}\n", shown(line)));
}

void Output::result(Level level, std::string_view event, std::string_view text, const nlohmann::ordered_json& fields) {
    clear_line();
    if (m_format == LogFormat::json) {
        json_line(m_streams.out, level, event, fields);
        return;
    }
    put(m_streams.out, shown(text));
}

void Output::prompt(std::string_view text) {
    clear_line();
    if (m_format == LogFormat::text) {
        put(m_streams.err, shown(text));
    }
}

void Output::clear_line() {
    if (m_line_showing) {
        put(m_streams.err, "\r\033[K");
        m_line_showing = false;
    }
}

void print_error(const util::Redactor& redactor, std::string_view message) {
    write(stderr, fmt::format("wacamp: error: {}\n", util::printable(redactor.apply(message), util::LineBreaks::keep)));
}

void print_warning(const util::Redactor& redactor, std::string_view message) {
    write(stderr,
          fmt::format("wacamp: warning: {}\n", util::printable(redactor.apply(message), util::LineBreaks::keep)));
}

bool print_out(const util::Redactor& redactor, std::string_view text) {
    return write(stdout, redactor.apply(text));
}

void print_err(std::string_view text) {
    write(stderr, text);
}

}  // namespace cli
