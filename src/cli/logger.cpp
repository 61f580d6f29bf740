#include "cli/logger.hpp"

#include <spdlog/formatter.h>
#include <spdlog/logger.h>
#include <spdlog/sinks/rotating_file_sink.h>
#include <spdlog/sinks/sink.h>
#include <filesystem>
#include <mutex>

#include "cli/stream.hpp"
#include "util/redact.hpp"

namespace cli {

namespace {

// The base of the sinks here: one formatter, fixed, used by one caller at a time.
class FixedFormatSink : public spdlog::sinks::sink {
public:
    explicit FixedFormatSink(std::unique_ptr<spdlog::formatter> formatter) : m_formatter(std::move(formatter)) {}

    void log(const spdlog::details::log_msg& msg) final {
        std::lock_guard lock(m_mutex);
        spdlog::memory_buf_t line;
        m_formatter->format(msg, line);
        write(msg, line);
    }
    void flush() override {}  // every line is flushed as it is written
    void set_pattern(const std::string& /*pattern*/) final {}
    void set_formatter(std::unique_ptr<spdlog::formatter> /*formatter*/) final {}

protected:
    // Writes `line`, formatted from `msg`; called under the sink's lock.
    virtual void write(const spdlog::details::log_msg& msg, const spdlog::memory_buf_t& line) = 0;

private:
    std::mutex m_mutex;
    std::unique_ptr<spdlog::formatter> m_formatter;
};

class StreamSink final : public FixedFormatSink {
public:
    StreamSink(std::unique_ptr<spdlog::formatter> formatter, std::shared_ptr<Stream> stream)
        : FixedFormatSink(std::move(formatter)), m_stream(std::move(stream)) {}

private:
    void write(const spdlog::details::log_msg& /*msg*/, const spdlog::memory_buf_t& line) override {
        // The stream takes its own lock, and clears a live line first.
        m_stream->write(std::string_view(line.data(), line.size()));
    }

    std::shared_ptr<Stream> m_stream;
};

// spdlog's rotating file sink, given lines already formatted; the first failure (a full disk,
// a rotation the folder refuses) is reported once and ends the file's writing.
class FileSink final : public FixedFormatSink {
public:
    FileSink(std::unique_ptr<spdlog::formatter> formatter, std::unique_ptr<spdlog::sinks::rotating_file_sink_st> file,
             std::function<void(const std::string&)> on_failure)
        : FixedFormatSink(std::move(formatter)), m_file(std::move(file)), m_on_failure(std::move(on_failure)) {
        // The rotating sink formats with its own formatter: a plain "%v" hands our line over as
        // it is, with the line break our formatters already wrote.
        m_file->set_pattern("%v");
    }

private:
    void write(const spdlog::details::log_msg& msg, const spdlog::memory_buf_t& line) override {
        if (m_failed) {
            return;
        }
        std::string_view text(line.data(), line.size());
        if (!text.empty() && text.back() == '\n') {
            text.remove_suffix(1);  // "%v" then spdlog's own line ending puts it back
        }
        spdlog::details::log_msg formatted(msg.time, msg.source, msg.logger_name, msg.level, text);
        try {
            m_file->log(formatted);
            m_file->flush();  // a line at a time: a crash loses none of what was logged
        } catch (const std::exception& e) {
            m_failed = true;
            if (m_on_failure) {
                m_on_failure(e.what());
            }
        }
    }

    std::unique_ptr<spdlog::sinks::rotating_file_sink_st> m_file;
    std::function<void(const std::string&)> m_on_failure;
    bool m_failed = false;
};

}  // namespace

std::shared_ptr<spdlog::sinks::sink> make_stream_sink(LogFormat format, std::shared_ptr<Stream> stream,
                                                      std::shared_ptr<const util::Redactor> redactor) {
    return std::make_shared<StreamSink>(make_formatter(format, std::move(redactor)), std::move(stream));
}

util::Result<std::shared_ptr<spdlog::sinks::sink>> make_file_sink(const std::string& path, LogFormat format,
                                                                  std::shared_ptr<const util::Redactor> redactor,
                                                                  Rotation rotation,
                                                                  std::function<void(const std::string&)> on_failure) {
    namespace fs = std::filesystem;
    const auto fail = [&](const std::string& why) {
        return util::Error{.message = fmt::format("log file {}: {}", path, why)};
    };
    if (path.empty()) {
        return fail("no path given");
    }
    const fs::path file(path);
    std::error_code ec;
    // spdlog would make missing folders; a mistyped folder is an error instead.
    const auto folder = file.has_parent_path() ? file.parent_path() : fs::path(".");
    if (!fs::is_directory(folder, ec)) {
        return fail(fmt::format("the folder {} does not exist", folder.string()));
    }
    const auto type = fs::status(file, ec).type();
    if (type == fs::file_type::directory) {
        return fail("is a folder");
    }
    if (type == fs::file_type::fifo || type == fs::file_type::socket || type == fs::file_type::block) {
        return fail("is not a regular file");  // opening a FIFO would wait for a reader forever
    }
    try {
        auto sink =
            std::make_unique<spdlog::sinks::rotating_file_sink_st>(path, rotation.max_bytes, rotation.max_files);
        return std::shared_ptr<spdlog::sinks::sink>(std::make_shared<FileSink>(
            make_formatter(format, std::move(redactor)), std::move(sink), std::move(on_failure)));
    } catch (const std::exception& e) {
        return fail(e.what());
    }
}

std::shared_ptr<spdlog::logger> make_logger(const std::vector<std::shared_ptr<spdlog::sinks::sink>>& sinks) {
    auto logger = std::make_shared<spdlog::logger>("wacamp", sinks.begin(), sinks.end());
    logger->set_level(spdlog::level::info);
    // spdlog's default handler prints its complaint on stderr, the stream that just failed;
    // what is printed must never stop a run, so a diagnostic that cannot be written is dropped.
    logger->set_error_handler([](const std::string& /*message*/) {});
    return logger;
}

}  // namespace cli
