// The log file (--log-file) and journald sinks, and Output choosing them.
#include <doctest/doctest.h>

#include <pty.h>
#include <spdlog/logger.h>
#include <sys/stat.h>
#include <unistd.h>
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "capture.hpp"
#include "cli/journal_sink.hpp"
#include "cli/log_entry.hpp"
#include "cli/logger.hpp"
#include "cli/output.hpp"
#include "util/redact.hpp"

namespace {

namespace fs = std::filesystem;
using test_support::Capture;

struct TempFolder {
    fs::path path;
    TempFolder() {
        std::string pattern = (fs::temp_directory_path() / "wacamp-sinks-XXXXXX").string();
        REQUIRE(mkdtemp(pattern.data()) != nullptr);
        path = pattern;
    }
    ~TempFolder() {
        std::error_code ec;
        fs::remove_all(path, ec);
    }
    TempFolder(const TempFolder&) = delete;
    TempFolder& operator=(const TempFolder&) = delete;
};

std::string slurp(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

std::vector<nlohmann::json> objects_in(const fs::path& path) {
    std::vector<nlohmann::json> out;
    std::istringstream lines(slurp(path));
    for (std::string line; std::getline(lines, line);) {
        auto parsed = nlohmann::json::parse(line, nullptr, false);
        CHECK_MESSAGE(parsed.is_object(), line);
        out.push_back(parsed);
    }
    return out;
}

// "DEVICE:INODE" of the file open on `fd`, as systemd writes JOURNAL_STREAM.
std::string stream_id(int fd) {
    struct stat st {};
    REQUIRE(::fstat(fd, &st) == 0);
    return std::to_string(st.st_dev) + ":" + std::to_string(st.st_ino);
}

// Sets JOURNAL_STREAM for the life of the object, restoring what was there.
class JournalStreamVariable {
public:
    explicit JournalStreamVariable(const std::string& value) {
        if (const char* old = std::getenv("JOURNAL_STREAM")) {
            m_old = old;
            m_had = true;
        }
        ::setenv("JOURNAL_STREAM", value.c_str(), 1);
    }
    ~JournalStreamVariable() {
        if (m_had) {
            ::setenv("JOURNAL_STREAM", m_old.c_str(), 1);
        } else {
            ::unsetenv("JOURNAL_STREAM");
        }
    }
    JournalStreamVariable(const JournalStreamVariable&) = delete;
    JournalStreamVariable& operator=(const JournalStreamVariable&) = delete;

private:
    std::string m_old;
    bool m_had = false;
};

// The journal entries a fake sender was given, each as its fields.
struct FakeJournal {
    std::vector<std::vector<std::string>> entries;
    int answer = 0;  // what sd_journal_sendv would return
    cli::JournalSend sender() {
        return [this](const std::vector<std::string>& fields) {
            entries.push_back(fields);
            return answer;
        };
    }
};

bool has(const std::vector<std::string>& fields, const std::string& field) {
    return std::find(fields.begin(), fields.end(), field) != fields.end();
}

bool any_holds(const std::vector<std::string>& fields, const std::string& text) {
    return std::any_of(fields.begin(), fields.end(),
                       [&](const std::string& f) { return f.find(text) != std::string::npos; });
}

}  // namespace

TEST_SUITE("cli::make_file_sink") {
    TEST_CASE("appends each diagnostic as a JSON line, secrets masked, to the file it names") {
        TempFolder dir;
        const auto path = dir.path / "run.log";
        std::ofstream(path) << "{\"earlier\":true}\n";  // appended to, never truncated
        auto redactor = std::make_shared<util::Redactor>();
        redactor->add("hunter22");
        auto sink = cli::make_file_sink(path.string(), cli::LogFormat::json, redactor, {}, nullptr);
        REQUIRE(sink);
        auto logger = cli::make_logger({*sink});
        cli::log_entry(*logger, spdlog::level::warn, {.event = "warning", .message = "token hunter22 refused"});
        const auto lines = objects_in(path);
        REQUIRE(lines.size() == 2);
        CHECK(lines[0]["earlier"] == true);
        CHECK(lines[1]["event"] == "warning");
        CHECK(lines[1]["message"] == "token *** refused");
        CHECK(slurp(path).find("hunter22") == std::string::npos);
    }
    TEST_CASE("rotates at its size: PATH.1.log holds the older lines, at most max_files kept") {
        TempFolder dir;
        const auto path = dir.path / "run.log";
        auto sink = cli::make_file_sink(path.string(), cli::LogFormat::text, std::make_shared<util::Redactor>(),
                                        {.max_bytes = 200, .max_files = 2}, nullptr);
        REQUIRE(sink);
        auto logger = cli::make_logger({*sink});
        for (int i = 0; i < 40; ++i) {
            logger->info("line number {} of forty, long enough to fill the file", i);
        }
        CHECK(fs::exists(path));
        CHECK(fs::exists(dir.path / "run.1.log"));
        CHECK(fs::exists(dir.path / "run.2.log"));
        CHECK_FALSE(fs::exists(dir.path / "run.3.log"));
        CHECK(fs::file_size(path) <= 200);
        CHECK(slurp(path).find("line number 39 of forty") != std::string::npos);
        CHECK(slurp(dir.path / "run.1.log").find("wacamp: line number") != std::string::npos);
    }
    TEST_CASE("a folder that does not exist, or a folder as the file, is an error naming the path") {
        TempFolder dir;
        const auto missing = (dir.path / "nowhere" / "run.log").string();
        auto sink = cli::make_file_sink(missing, cli::LogFormat::text, std::make_shared<util::Redactor>(), {}, nullptr);
        REQUIRE_FALSE(sink);
        CHECK(sink.error().message.find(missing) != std::string::npos);
        CHECK(sink.error().message.find("does not exist") != std::string::npos);
        CHECK_FALSE(fs::exists(dir.path / "nowhere"));  // not made on the way
        auto folder = cli::make_file_sink(dir.path.string(), cli::LogFormat::text, std::make_shared<util::Redactor>(),
                                          {}, nullptr);
        REQUIRE_FALSE(folder);
        CHECK(folder.error().message.find("is a folder") != std::string::npos);
    }
    TEST_CASE("a write that fails (a full disk) is told once, and the file is not written again") {
        if (!fs::exists("/dev/full")) {
            MESSAGE("skipped: no /dev/full on this machine");
            return;
        }
        std::vector<std::string> told;
        auto sink = cli::make_file_sink("/dev/full", cli::LogFormat::text, std::make_shared<util::Redactor>(), {},
                                        [&](const std::string& why) { told.push_back(why); });
        REQUIRE(sink);
        auto logger = cli::make_logger({*sink});
        CHECK_NOTHROW(logger->warn("first"));
        CHECK_NOTHROW(logger->warn("second"));
        REQUIRE(told.size() == 1);
        CHECK(told[0].find("No space left") != std::string::npos);
    }
}

TEST_SUITE("cli::journal") {
    TEST_CASE("JOURNAL_STREAM counts only when it names the very file open on the descriptor") {
        Capture err;
        Capture other;
        const int fd = fileno(err.file());
        CHECK(cli::is_journal_stream(stream_id(fd).c_str(), fd));
        CHECK_FALSE(cli::is_journal_stream(stream_id(fileno(other.file())).c_str(), fd));
        CHECK_FALSE(cli::is_journal_stream(nullptr, fd));
        CHECK_FALSE(cli::is_journal_stream("", fd));
        CHECK_FALSE(cli::is_journal_stream("12", fd));
        CHECK_FALSE(cli::is_journal_stream((stream_id(fd) + "x").c_str(), fd));
        CHECK_FALSE(cli::is_journal_stream(stream_id(fd).c_str(), -1));
    }
    TEST_CASE("an entry's fields: priority from the level, event, campaign, and its JSON members") {
        util::Redactor redactor;
        redactor.add("hunter22");
        const auto fields = cli::journal_fields(
            {.event = "progress",
             .message = "sent 3 \x1b[31m hunter22",
             .fields = R"({"message":"m","sent":3,"pause_reason":"rate limited","held_back":{"suppressed":2},)"
                       R"("eta_seconds":null,"key":"hunter22"})"},
            spdlog::level::info, "spring-sale", redactor);
        CHECK(fields[0].rfind("MESSAGE=sent 3 ", 0) == 0);
        CHECK(fields[0].find('\x1b') == std::string::npos);  // made printable
        CHECK(has(fields, "PRIORITY=6"));
        CHECK(has(fields, "SYSLOG_IDENTIFIER=wacamp"));
        CHECK(has(fields, "WACAMP_EVENT=progress"));
        CHECK(has(fields, "WACAMP_CAMPAIGN=spring-sale"));
        CHECK(has(fields, "WACAMP_SENT=3"));
        CHECK(has(fields, "WACAMP_PAUSE_REASON=rate limited"));
        CHECK(has(fields, R"(WACAMP_HELD_BACK={"suppressed":2})"));
        CHECK(has(fields, "WACAMP_KEY=***"));
        CHECK_FALSE(any_holds(fields, "WACAMP_ETA_SECONDS"));  // null: left out
        CHECK_FALSE(any_holds(fields, "WACAMP_MESSAGE"));      // it is MESSAGE
        CHECK_FALSE(any_holds(fields, "hunter22"));
        CHECK(has(cli::journal_fields({.event = "error", .message = "x"}, spdlog::level::err, "", redactor),
                  "PRIORITY=3"));
        CHECK(has(cli::journal_fields({.event = "warning", .message = "x"}, spdlog::level::warn, "", redactor),
                  "PRIORITY=4"));
        CHECK_FALSE(
            any_holds(cli::journal_fields({.event = "notice", .message = "x"}, spdlog::level::info, "", redactor),
                      "WACAMP_CAMPAIGN"));
    }
    TEST_CASE("Output sends diagnostics to the journal when stderr is its stream, and nothing to stderr") {
        Capture out;
        Capture err;
        FakeJournal journal;
        JournalStreamVariable variable(stream_id(fileno(err.file())));
        cli::Output output(cli::LogFormat::text, {.out = out.file(), .err = err.file(), .journal = journal.sender()});
        CHECK(output.to_journal());
        CHECK_FALSE(output.live_lines());
        output.add_secret("hunter22");
        output.set_campaign("spring-sale");
        output.warning("token hunter22 refused");
        output.error("2 recipient(s) failed", cli::k_exit_failures);
        output.result(cli::Level::info, "summary", "spring-sale: completed\n", {{"message", "completed"}, {"sent", 2}});
        CHECK(err.text().empty());
        CHECK(out.text() == "spring-sale: completed\n");  // stdout is not the journal's stream
        REQUIRE(journal.entries.size() == 2);
        CHECK(has(journal.entries[0], "MESSAGE=token *** refused"));
        CHECK(has(journal.entries[0], "PRIORITY=4"));
        CHECK(has(journal.entries[0], "WACAMP_CAMPAIGN=spring-sale"));
        CHECK(has(journal.entries[1], "PRIORITY=3"));
        CHECK(has(journal.entries[1], "WACAMP_EXIT_CODE=1"));
    }
    TEST_CASE("the result goes to the journal as an entry when stdout is its stream") {
        Capture out;
        Capture err;
        FakeJournal journal;
        JournalStreamVariable variable(stream_id(fileno(out.file())));
        cli::Output output(cli::LogFormat::text, {.out = out.file(), .err = err.file(), .journal = journal.sender()});
        CHECK_FALSE(output.to_journal());
        output.notice("continuing");
        output.result(cli::Level::warning, "summary", "spring-sale: stopped\n  sent 2\n",
                      {{"message", "stopped"}, {"sent", 2}});
        CHECK(err.text() == "wacamp: continuing\n");
        CHECK(out.text().empty());
        REQUIRE(journal.entries.size() == 1);
        CHECK(has(journal.entries[0], "MESSAGE=spring-sale: stopped\n  sent 2"));
        CHECK(has(journal.entries[0], "WACAMP_EVENT=summary"));
        CHECK(has(journal.entries[0], "WACAMP_SENT=2"));
        CHECK(has(journal.entries[0], "PRIORITY=4"));
    }
    TEST_CASE("an entry the journal refuses is written to stderr as text instead") {
        Capture out;
        Capture err;
        FakeJournal journal;
        journal.answer = -111;  // -ECONNREFUSED
        JournalStreamVariable variable(stream_id(fileno(err.file())));
        cli::Output output(cli::LogFormat::json, {.out = out.file(), .err = err.file(), .journal = journal.sender()});
        output.warning("torn line");
        CHECK(journal.entries.size() == 1);
        CHECK(err.text() == "wacamp: warning: torn line\n");
    }
}

TEST_SUITE("cli::Output log file") {
    TEST_CASE("the log file gets the diagnostics, the progress stderr gets, and the result") {
        TempFolder dir;
        const auto path = dir.path / "run.log";
        Capture out;
        Capture err;
        cli::Output output(cli::LogFormat::json, {.out = out.file(), .err = err.file()});
        REQUIRE(output.log_to_file(path.string()));
        output.add_secret("hunter22");
        output.notice("continuing from x.jsonl");
        output.progress("sent 1", {{"sent", 1}});
        output.progress("sent 2", {{"sent", 2}});  // off a terminal, TerminalUi paces these
        output.result(cli::Level::info, "summary", "text", {{"message", "completed"}, {"sent", 2}, {"k", "hunter22"}});
        const auto lines = objects_in(path);
        REQUIRE(lines.size() == 4);
        CHECK(lines[0]["event"] == "notice");
        CHECK(lines[1]["event"] == "progress");
        CHECK(lines[1]["sent"] == 1);
        CHECK(lines[2]["sent"] == 2);
        CHECK(lines[3]["event"] == "summary");
        CHECK(lines[3]["message"] == "completed");
        CHECK(lines[3]["sent"] == 2);
        CHECK(lines[3]["k"] == "***");
        CHECK(err.objects().size() == 3);  // notice and both progress objects
        CHECK(out.objects().size() == 1);
    }
    TEST_CASE("while a terminal shows the live line, the file takes progress at most every 10 s") {
        TempFolder dir;
        const auto path = dir.path / "run.log";
        int terminal = -1;
        int side = -1;
        REQUIRE(openpty(&terminal, &side, nullptr, nullptr, nullptr) == 0);
        std::FILE* err = fdopen(side, "w");
        REQUIRE(err != nullptr);
        Capture out;
        {
            cli::Output text(cli::LogFormat::text, {.out = out.file(), .err = err});
            REQUIRE(text.live_lines());
            REQUIRE(text.log_to_file(path.string()));
            text.progress("sent 1", {});
            text.progress("sent 2", {});  // a second later, say: the live line only
            text.progress("sent 3", {});
        }
        std::fclose(err);
        close(terminal);
        CHECK(slurp(path) == "wacamp: progress: sent 1\n");
    }
    TEST_CASE("text: the summary is written to the file as people read it") {
        TempFolder dir;
        const auto path = dir.path / "run.log";
        Capture out;
        Capture err;
        cli::Output output(cli::LogFormat::text, {.out = out.file(), .err = err.file()});
        REQUIRE(output.log_to_file(path.string()));
        output.warning("torn line");
        output.result(cli::Level::info, "summary", "e2e: completed\n  sent 1\n", {{"message", "m"}});
        CHECK(slurp(path) == "wacamp: warning: torn line\ne2e: completed\n  sent 1\n");
    }
}
