#include "cli/journal_sink.hpp"

#include <spdlog/details/log_msg.h>
#include <spdlog/formatter.h>
#include <spdlog/sinks/sink.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <systemd/sd-journal.h>
#include <charconv>
#include <mutex>
#include <nlohmann/json.hpp>

#include "cli/log_entry.hpp"
#include "cli/log_format.hpp"
#include "cli/stream.hpp"
#include "util/redact.hpp"
#include "util/text.hpp"

namespace cli {

namespace {

int priority_of(spdlog::level::level_enum level) {
    switch (level) {
    case spdlog::level::critical:
    case spdlog::level::err: return 3;   // LOG_ERR
    case spdlog::level::warn: return 4;  // LOG_WARNING
    default: return 6;                   // LOG_INFO
    }
}

// A journal field name from a JSON member's: upper case letters, digits and underscores, as
// journald requires (it drops fields named otherwise).
std::string field_name(std::string_view member) {
    std::string name = "WACAMP_";
    for (const char c : member) {
        if (c >= 'a' && c <= 'z') {
            name += static_cast<char>(c - 'a' + 'A');
        } else if ((c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) {
            name += c;
        } else {
            name += '_';
        }
    }
    return name;
}

std::string value_text(const nlohmann::json& value) {
    if (value.is_string()) {
        return value.get<std::string>();
    }
    return value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

class JournalSink final : public spdlog::sinks::sink {
public:
    JournalSink(std::shared_ptr<const util::Redactor> redactor, std::shared_ptr<const std::string> campaign,
                std::shared_ptr<Stream> fallback, JournalSend send)
        : m_redactor(std::move(redactor)),
          m_campaign(std::move(campaign)),
          m_fallback(std::move(fallback)),
          m_fallback_format(make_formatter(LogFormat::text, m_redactor)),
          m_send(std::move(send)) {}

    void log(const spdlog::details::log_msg& msg) override {
        std::lock_guard lock(m_mutex);
        const auto entry = unpack(std::string_view(msg.payload.data(), msg.payload.size()), msg.level);
        if (m_send(journal_fields(entry, msg.level, *m_campaign, *m_redactor)) >= 0) {
            return;
        }
        spdlog::memory_buf_t line;
        m_fallback_format->format(msg, line);
        m_fallback->write(std::string_view(line.data(), line.size()));
    }
    void flush() override {}
    void set_pattern(const std::string& /*pattern*/) override {}
    void set_formatter(std::unique_ptr<spdlog::formatter> /*formatter*/) override {}

private:
    std::mutex m_mutex;
    std::shared_ptr<const util::Redactor> m_redactor;
    std::shared_ptr<const std::string> m_campaign;
    std::shared_ptr<Stream> m_fallback;
    std::unique_ptr<spdlog::formatter> m_fallback_format;
    JournalSend m_send;
};

}  // namespace

bool is_journal_stream(const char* journal_stream, int fd) {
    if (journal_stream == nullptr) {
        return false;
    }
    const std::string_view text(journal_stream);
    const auto colon = text.find(':');
    if (colon == std::string_view::npos) {
        return false;
    }
    unsigned long long device = 0;
    unsigned long long inode = 0;
    const auto parse = [](std::string_view part, unsigned long long& value) {
        const auto [end, ec] = std::from_chars(part.data(), part.data() + part.size(), value);
        return ec == std::errc() && end == part.data() + part.size() && !part.empty();
    };
    struct stat st {};
    if (!parse(text.substr(0, colon), device) || !parse(text.substr(colon + 1), inode) || ::fstat(fd, &st) != 0) {
        return false;
    }
    return st.st_dev == device && st.st_ino == inode;
}

std::vector<std::string> journal_fields(const LogEntry& entry, spdlog::level::level_enum level,
                                        std::string_view campaign, const util::Redactor& redactor) {
    const auto printable = [&](std::string_view text) { return shown(text, redactor); };
    std::vector<std::string> fields;
    fields.push_back("MESSAGE=" + printable(entry.message));
    fields.push_back("PRIORITY=" + std::to_string(priority_of(level)));
    fields.emplace_back("SYSLOG_IDENTIFIER=wacamp");
    fields.push_back("WACAMP_EVENT=" + printable(entry.event));
    if (!campaign.empty()) {
        fields.push_back("WACAMP_CAMPAIGN=" + printable(campaign));
    }
    if (!entry.fields.empty()) {
        const auto more = nlohmann::json::parse(entry.fields, nullptr, false);
        if (more.is_object()) {
            for (const auto& [key, value] : more.items()) {
                // The message is MESSAGE, the campaign WACAMP_CAMPAIGN: each field once.
                if (!value.is_null() && key != "message" && key != "campaign") {
                    fields.push_back(field_name(key) + "=" + printable(value_text(value)));
                }
            }
        }
    }
    return fields;
}

int send_to_journal(const std::vector<std::string>& fields) {
    std::vector<iovec> parts;
    parts.reserve(fields.size());
    for (const auto& field : fields) {
        parts.push_back({.iov_base = const_cast<char*>(field.data()), .iov_len = field.size()});
    }
    return sd_journal_sendv(parts.data(), static_cast<int>(parts.size()));
}

std::shared_ptr<spdlog::sinks::sink> make_journal_sink(std::shared_ptr<const util::Redactor> redactor,
                                                       std::shared_ptr<const std::string> campaign,
                                                       std::shared_ptr<Stream> fallback, JournalSend send) {
    return std::make_shared<JournalSink>(std::move(redactor), std::move(campaign), std::move(fallback),
                                         std::move(send));
}

}  // namespace cli
