#include "cli/log_format.hpp"

#include <spdlog/formatter.h>
#include <nlohmann/json.hpp>

#include "cli/log_entry.hpp"
#include "util/redact.hpp"
#include "util/text.hpp"
#include "util/time.hpp"

namespace cli {

namespace {

std::string_view name_of(Level level) {
    switch (level) {
    case Level::info: return "info";
    case Level::warning: return "warning";
    case Level::error: return "error";
    }
    return "info";
}

Level level_of(spdlog::level::level_enum level) {
    switch (level) {
    case spdlog::level::critical:
    case spdlog::level::err: return Level::error;
    case spdlog::level::warn: return Level::warning;
    default: return Level::info;
    }
}

// Masks secrets in every string of `value`, before it is serialised: masking the serialised
// text would miss a secret whose characters JSON escapes, or cut through the structure.
void redact(nlohmann::ordered_json& value, const util::Redactor& redactor) {
    if (value.is_string()) {
        value = redactor.apply(value.get_ref<const std::string&>());
    } else if (value.is_structured()) {
        for (auto& item : value) {
            redact(item, redactor);
        }
    }
}

void append(spdlog::memory_buf_t& dest, std::string_view text) {
    dest.append(text.data(), text.data() + text.size());
}

class TextFormatter final : public spdlog::formatter {
public:
    explicit TextFormatter(std::shared_ptr<const util::Redactor> redactor) : m_redactor(std::move(redactor)) {}

    void format(const spdlog::details::log_msg& msg, spdlog::memory_buf_t& dest) override {
        const auto entry = unpack(std::string_view(msg.payload.data(), msg.payload.size()), msg.level);
        if (!entry.text.empty()) {
            append(dest, shown(entry.text, *m_redactor));
            return;
        }
        append(dest, "wacamp: ");
        if (entry.event != "notice") {
            append(dest, entry.event);
            append(dest, ": ");
        }
        append(dest, shown(entry.message, *m_redactor));
        append(dest, "\n");
    }

    std::unique_ptr<spdlog::formatter> clone() const override { return std::make_unique<TextFormatter>(m_redactor); }

private:
    std::shared_ptr<const util::Redactor> m_redactor;
};

class JsonFormatter final : public spdlog::formatter {
public:
    explicit JsonFormatter(std::shared_ptr<const util::Redactor> redactor) : m_redactor(std::move(redactor)) {}

    void format(const spdlog::details::log_msg& msg, spdlog::memory_buf_t& dest) override {
        const auto entry = unpack(std::string_view(msg.payload.data(), msg.payload.size()), msg.level);
        nlohmann::ordered_json fields = {{"message", entry.message}};
        if (!entry.fields.empty()) {
            auto more = nlohmann::ordered_json::parse(entry.fields, nullptr, false);
            if (more.is_object()) {
                fields.update(more);
            }
        }
        append(dest, json_line(msg.time, level_of(msg.level), entry.event, fields, *m_redactor));
    }

    std::unique_ptr<spdlog::formatter> clone() const override { return std::make_unique<JsonFormatter>(m_redactor); }

private:
    std::shared_ptr<const util::Redactor> m_redactor;
};

}  // namespace

LogFormat log_format_of(std::string_view name) {
    return name == "json" ? LogFormat::json : LogFormat::text;
}

std::unique_ptr<spdlog::formatter> make_formatter(LogFormat format, std::shared_ptr<const util::Redactor> redactor) {
    if (format == LogFormat::json) {
        return std::make_unique<JsonFormatter>(std::move(redactor));
    }
    return std::make_unique<TextFormatter>(std::move(redactor));
}

std::string shown(std::string_view text, const util::Redactor& redactor) {
    return util::printable(redactor.apply(text), util::LineBreaks::keep);
}

std::string json_line(std::chrono::system_clock::time_point time, Level level, std::string_view event,
                      const nlohmann::ordered_json& fields, const util::Redactor& redactor) {
    nlohmann::ordered_json line = {{"time", util::format_timestamp(time)}, {"level", name_of(level)}, {"event", event}};
    if (fields.is_object()) {
        for (const auto& [key, value] : fields.items()) {
            line[key] = value;
        }
    }
    redact(line, redactor);
    // Bytes that are not UTF-8 (a hand-edited CSV) are replaced rather than thrown on.
    return util::json_safe(line.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace)) + "\n";
}

}  // namespace cli
