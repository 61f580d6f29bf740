#include <doctest/doctest.h>

#include <spdlog/logger.h>
#include <spdlog/sinks/sink.h>
#include <unistd.h>
#include <cerrno>
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <string>

#include "capture.hpp"
#include "cli/log_entry.hpp"
#include "cli/logger.hpp"
#include "cli/stream.hpp"
#include "util/redact.hpp"

namespace {

using test_support::Capture;

// A logger writing to a captured stream in `format`, with its redactor at hand.
struct Rig {
    explicit Rig(cli::LogFormat format)
        : stream(std::make_shared<cli::Stream>(capture.file())),
          redactor(std::make_shared<util::Redactor>()),
          logger(cli::make_logger({cli::make_stream_sink(format, stream, redactor)})) {}
    Capture capture;
    std::shared_ptr<cli::Stream> stream;
    std::shared_ptr<util::Redactor> redactor;
    std::shared_ptr<spdlog::logger> logger;
};

// A stdio stream whose every write fails, as a pipe does once its reader is gone; counts the
// writes tried.
struct FailingFile {
    int writes = 0;
    std::FILE* file = nullptr;
    FailingFile() {
        cookie_io_functions_t io{};
        io.write = [](void* self, const char* /*data*/, size_t /*size*/) -> ssize_t {
            ++static_cast<FailingFile*>(self)->writes;
            errno = EPIPE;
            return -1;
        };
        file = fopencookie(this, "w", io);
        REQUIRE(file != nullptr);
        std::setvbuf(file, nullptr, _IONBF, 0);  // unbuffered, like stderr
    }
    ~FailingFile() { std::fclose(file); }
    FailingFile(const FailingFile&) = delete;
    FailingFile& operator=(const FailingFile&) = delete;
};

// A sink that throws on every line, as a sink whose disk went away might.
class ThrowingSink final : public spdlog::sinks::sink {
public:
    void log(const spdlog::details::log_msg& /*msg*/) override { throw std::runtime_error("disk gone"); }
    void flush() override {}
    void set_pattern(const std::string& /*pattern*/) override {}
    void set_formatter(std::unique_ptr<spdlog::formatter> /*formatter*/) override {}
};

// Every form util::Redactor knows of the secret `tok"en val/ue`.
const std::string k_secret = "tok\"en val/ue";
const char* const k_secret_forms[] = {
    "tok\"en val/ue",                   // as it is
    "tok\\\"en val\\/ue",               // JSON-escaped
    "tok\\u0022en val/ue",              // JSON \u escape
    "tok%22en%20val%2Fue",              // percent-encoded, upper-case hex
    "tok%22en%20val%2fue",              // lower-case hex
    "tok%22en+val%2Fue",                // '+' for a space
    "tok&quot;en val/ue",               // HTML, named
    "tok&#34;en val/ue",                // HTML, decimal
    "tok&#x22;en val/ue",               // HTML, hex
    "tok\"en v\xE2\x80\xA6 (clipped)",  // cut short by a clipped text ending in "…"
};

}  // namespace

TEST_SUITE("cli::LogEntry") {
    TEST_CASE("an entry packed and unpacked is the same, whatever bytes its texts hold") {
        const std::string message = "row 3: \x1e\x1f odd\n\xff bytes";
        const std::string text = "two\x1flines\n";
        const auto packed = cli::pack({.event = "error", .message = message, .text = text, .fields = R"({"a":1})"});
        const auto entry = cli::unpack(packed, spdlog::level::err);
        CHECK(entry.event == "error");
        CHECK(entry.message == message);
        CHECK(entry.text == text);
        CHECK(entry.fields == R"({"a":1})");
    }
    TEST_CASE("a plain message is unpacked as itself, its event named after its level") {
        CHECK(cli::unpack("torn line", spdlog::level::warn).event == "warning");
        CHECK(cli::unpack("torn line", spdlog::level::warn).message == "torn line");
        CHECK(cli::unpack("x", spdlog::level::err).event == "error");
        CHECK(cli::unpack("x", spdlog::level::info).event == "notice");
        CHECK(cli::unpack("", spdlog::level::info).message.empty());
    }
    TEST_CASE("a packed entry cut short is taken as a plain message") {
        const auto packed = cli::pack({.event = "notice", .message = "continuing from x.jsonl"});
        const auto cut = std::string_view(packed).substr(0, packed.size() - 5);
        const auto entry = cli::unpack(cut, spdlog::level::info);
        CHECK(entry.event == "notice");
        CHECK(entry.message == cut);
    }
}

TEST_SUITE("cli::make_logger") {
    TEST_CASE("text: each event keeps its wacamp: prefix; an entry's own text form is printed instead") {
        Rig rig(cli::LogFormat::text);
        cli::log_entry(*rig.logger, spdlog::level::err, {.event = "error", .message = "c.yaml:3: bad"});
        cli::log_entry(*rig.logger, spdlog::level::warn, {.event = "warning", .message = "torn line"});
        cli::log_entry(*rig.logger, spdlog::level::info, {.event = "notice", .message = "continuing"});
        cli::log_entry(*rig.logger, spdlog::level::info, {.event = "progress", .message = "sent 1"});
        cli::log_entry(*rig.logger, spdlog::level::info, {.event = "notice", .message = "m", .text = "sandbox: x\n"});
        CHECK(rig.capture.text() ==
              "wacamp: error: c.yaml:3: bad\nwacamp: warning: torn line\nwacamp: continuing\n"
              "wacamp: progress: sent 1\nsandbox: x\n");
    }
    TEST_CASE("text: a plain message logged by other code gets the same prefixes") {
        Rig rig(cli::LogFormat::text);
        rig.logger->error("stopped");
        rig.logger->warn("torn line");
        rig.logger->info("continuing");
        rig.logger->debug("not shown");
        CHECK(rig.capture.text() == "wacamp: error: stopped\nwacamp: warning: torn line\nwacamp: continuing\n");
    }
    TEST_CASE("json: time, level, event, message, then the entry's fields, in that order") {
        Rig rig(cli::LogFormat::json);
        cli::log_entry(*rig.logger, spdlog::level::err,
                       {.event = "error", .message = "bad", .fields = R"({"exit_code":2})"});
        cli::log_entry(*rig.logger, spdlog::level::info,
                       {.event = "progress", .message = "sent 2", .fields = R"({"sent":2,"rate":9.8,"eta":null})"});
        rig.logger->warn("plain");
        const auto text = rig.capture.text();
        const auto lines = rig.capture.objects();
        REQUIRE(lines.size() == 3);
        CHECK(text.substr(0, 9) == "{\"time\":\"");
        CHECK(text.substr(34, text.find('\n') - 34) ==
              R"(,"level":"error","event":"error","message":"bad","exit_code":2})");
        CHECK(text.find(R"("level":"info","event":"progress","message":"sent 2","sent":2,"rate":9.8,"eta":null})") !=
              std::string::npos);
        CHECK(lines[2]["level"] == "warning");
        CHECK(lines[2]["event"] == "warning");
        CHECK(lines[2]["message"] == "plain");
        CHECK(lines[0]["time"].get<std::string>().size() == 24);
    }
    TEST_CASE("a secret is masked in every form the redactor knows, in both formats") {
        for (const auto format : {cli::LogFormat::text, cli::LogFormat::json}) {
            Rig rig(format);
            rig.redactor->add(k_secret);  // after the logger was made: its formatters see it
            for (const char* form : k_secret_forms) {
                CAPTURE(form);
                rig.logger->warn(std::string("key ") + form + " end");
                cli::log_entry(*rig.logger, spdlog::level::err,
                               {.event = "error", .message = "m", .fields = nlohmann::json({{"deep", form}}).dump()});
                cli::log_entry(*rig.logger, spdlog::level::info,
                               {.event = "notice", .message = "m", .text = std::string(form) + "\n"});
            }
            const auto all = rig.capture.text();
            CAPTURE(all);
            CHECK(all.find("tok") == std::string::npos);
            CHECK(all.find("***") != std::string::npos);
        }
    }
    TEST_CASE("text: control characters and escape sequences are escaped, line breaks kept") {
        Rig rig(cli::LogFormat::text);
        rig.logger->warn(
            "a\x1b[2Jb\x07"
            "c\xc2\x9b"
            "d\xe2\x80\xae"
            "e\nf\tg");
        cli::log_entry(*rig.logger, spdlog::level::info,
                       {.event = "notice", .message = "m", .text = "x\x1b]0;t\x07\n"});
        CHECK(rig.capture.text() == "wacamp: warning: a\\x1b[2Jb\\x07c\\u009bd\\u202ee\nf\\tg\nx\\x1b]0;t\\x07\n");
    }
    TEST_CASE("json: control characters never reach the stream raw, and the line stays valid") {
        Rig rig(cli::LogFormat::json);
        rig.logger->warn("a\x1b[2Jb\x07 \xff\xfe here");
        const auto text = rig.capture.text();
        CHECK(text.find('\x1b') == std::string::npos);
        CHECK(text.find('\x07') == std::string::npos);
        REQUIRE(rig.capture.objects().size() == 1);
    }
    TEST_CASE("a pattern or formatter set later cannot replace the masking") {
        Rig rig(cli::LogFormat::text);
        rig.redactor->add("hunter22");
        rig.logger->set_pattern("%v");
        rig.logger->warn("key hunter22");
        CHECK(rig.capture.text() == "wacamp: warning: key ***\n");
    }
    TEST_CASE("a failed stream does not throw and is not written again") {
        FailingFile failing;
        auto stream = std::make_shared<cli::Stream>(failing.file);
        auto logger =
            cli::make_logger({cli::make_stream_sink(cli::LogFormat::text, stream, std::make_shared<util::Redactor>())});
        CHECK_NOTHROW(logger->warn("first"));
        CHECK(stream->failed());
        const int tried = failing.writes;
        CHECK(tried >= 1);
        CHECK_NOTHROW(logger->warn("second"));
        CHECK_NOTHROW(cli::log_entry(*logger, spdlog::level::err, {.event = "error", .message = "third"}));
        CHECK_NOTHROW(stream->draw_live("sent 1"));
        CHECK(failing.writes == tried);
    }
    TEST_CASE("a sink that throws stops neither the caller nor the other sinks, and nothing is printed about it") {
        Rig rig(cli::LogFormat::text);
        rig.logger->sinks().insert(rig.logger->sinks().begin(), std::make_shared<ThrowingSink>());
        // spdlog's own handler would complain on stderr: catch fd 2 for the moment.
        Capture err;
        std::fflush(stderr);
        const int saved = dup(STDERR_FILENO);
        dup2(fileno(err.file()), STDERR_FILENO);
        CHECK_NOTHROW(rig.logger->warn("still here"));
        std::fflush(stderr);
        dup2(saved, STDERR_FILENO);
        close(saved);
        CHECK(err.text().empty());
        CHECK(rig.capture.text() == "wacamp: warning: still here\n");
    }
    TEST_CASE("a log line erases the live line drawn on the same stream first") {
        Rig rig(cli::LogFormat::text);
        rig.stream->draw_live("sent 1");
        rig.logger->warn("careful");
        rig.stream->draw_live("sent 2");
        rig.stream->clear_live();
        rig.stream->clear_live();  // nothing showing: nothing written
        CHECK(rig.capture.text() == "\r\x1b[Ksent 1\r\x1b[Kwacamp: warning: careful\n\r\x1b[Ksent 2\r\x1b[K");
    }
}
