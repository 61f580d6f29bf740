#include "cli/logger.hpp"

#include <spdlog/formatter.h>
#include <spdlog/logger.h>
#include <spdlog/sinks/sink.h>
#include <mutex>

#include "cli/stream.hpp"
#include "util/redact.hpp"

namespace cli {

namespace {

class StreamSink final : public spdlog::sinks::sink {
public:
    StreamSink(std::unique_ptr<spdlog::formatter> formatter, std::shared_ptr<Stream> stream)
        : m_formatter(std::move(formatter)), m_stream(std::move(stream)) {}

    void log(const spdlog::details::log_msg& msg) override {
        // The stream takes its own lock; this one keeps the formatter to one caller at a time.
        std::lock_guard lock(m_mutex);
        spdlog::memory_buf_t line;
        m_formatter->format(msg, line);
        m_stream->write(std::string_view(line.data(), line.size()));
    }
    void flush() override {}  // every line is flushed as it is written
    void set_pattern(const std::string& /*pattern*/) override {}
    void set_formatter(std::unique_ptr<spdlog::formatter> /*formatter*/) override {}

private:
    std::mutex m_mutex;
    std::unique_ptr<spdlog::formatter> m_formatter;
    std::shared_ptr<Stream> m_stream;
};

}  // namespace

std::shared_ptr<spdlog::sinks::sink> make_stream_sink(LogFormat format, std::shared_ptr<Stream> stream,
                                                      std::shared_ptr<const util::Redactor> redactor) {
    return std::make_shared<StreamSink>(make_formatter(format, std::move(redactor)), std::move(stream));
}

std::shared_ptr<spdlog::logger> make_logger(const std::vector<SinkChoice>& sinks,
                                            std::shared_ptr<const util::Redactor> redactor) {
    std::vector<spdlog::sink_ptr> made;
    made.reserve(sinks.size());
    for (const auto& choice : sinks) {
        made.push_back(make_stream_sink(choice.format, choice.stream, redactor));
    }
    auto logger = std::make_shared<spdlog::logger>("wacamp", made.begin(), made.end());
    logger->set_level(spdlog::level::info);
    // spdlog's default handler prints its complaint on stderr, the stream that just failed;
    // what is printed must never stop a run, so a diagnostic that cannot be written is dropped.
    logger->set_error_handler([](const std::string& /*message*/) {});
    return logger;
}

}  // namespace cli
