#include <doctest/doctest.h>

#include <sys/stat.h>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "fakes.hpp"
#include "results/log_writer.hpp"
#include "results/records.hpp"
#include "results/replay.hpp"

using namespace std::chrono_literals;

namespace {

using fakes::TempDir;

std::string slurp(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream out;
    out << in.rdbuf();
    return out.str();
}

void spit(const std::string& path, const std::string& text) {
    std::ofstream(path, std::ios::binary) << text;
}

using fakes::FakeClock;

const std::string k_line = results::to_line(results::AttemptRecord{1, "14155550123", 1, {}});

}  // namespace

TEST_SUITE("results::LogWriter") {
    TEST_CASE("creates the file and its folders, with mode 0644") {
        TempDir dir;
        const std::string path = dir.file("results/deep/log.jsonl");
        auto writer = results::LogWriter::open(path);
        REQUIRE(writer.ok());
        REQUIRE(writer->append(k_line).ok());
        REQUIRE(writer->close().ok());
        CHECK(slurp(path) == k_line);
        struct stat st {};
        REQUIRE(::stat(path.c_str(), &st) == 0);
        CHECK((st.st_mode & 0777) == 0644);
    }
    TEST_CASE("appends to an existing log, line after line") {
        TempDir dir;
        const std::string path = dir.file("log.jsonl");
        spit(path, "{\"event\":\"campaign\"}\n");
        {
            auto writer = results::LogWriter::open(path);
            REQUIRE(writer.ok());
            REQUIRE(writer->append(k_line).ok());
            REQUIRE(writer->append(k_line).ok());
        }
        CHECK(slurp(path) == "{\"event\":\"campaign\"}\n" + k_line + k_line);
    }
    TEST_CASE("a torn last line gets a newline before the next record") {
        TempDir dir;
        const std::string path = dir.file("log.jsonl");
        spit(path, "{\"event\":\"campaign\"}\n{\"event\":\"att");
        {
            auto writer = results::LogWriter::open(path);
            REQUIRE(writer.ok());
            REQUIRE(writer->append(k_line).ok());
            REQUIRE(writer->append(k_line).ok());
        }
        CHECK(slurp(path) == "{\"event\":\"campaign\"}\n{\"event\":\"att\n" + k_line + k_line);
    }
    TEST_CASE("refuses anything but one whole line") {
        TempDir dir;
        auto writer = results::LogWriter::open(dir.file("log.jsonl"));
        REQUIRE(writer.ok());
        CHECK_FALSE(writer->append("").ok());
        CHECK_FALSE(writer->append("{\"event\":\"end\"}").ok());
        CHECK(slurp(dir.file("log.jsonl")).empty());
    }
    TEST_CASE("an unopenable path is an error naming it and the reason") {
        TempDir dir;
        spit(dir.file("file"), "x");
        auto writer = results::LogWriter::open(dir.file("file/log.jsonl"));
        REQUIRE_FALSE(writer.ok());
        CHECK(writer.error().message.find(dir.file("file")) != std::string::npos);
        CHECK(writer.error().message.find("Not a directory") != std::string::npos);
    }
    TEST_CASE("after close, appends fail") {
        TempDir dir;
        auto writer = results::LogWriter::open(dir.file("log.jsonl"));
        REQUIRE(writer.ok());
        REQUIRE(writer->close().ok());
        CHECK_FALSE(writer->append(k_line).ok());
    }
    TEST_CASE("batched lines reach the file at flush, before a plain append, or when 64 KiB gather") {
        TempDir dir;
        const std::string path = dir.file("log.jsonl");
        auto writer = results::LogWriter::open(path, {results::Durability::every_record, 1'000ms, nullptr});
        REQUIRE(writer.ok());
        REQUIRE(writer->append_batched(k_line).ok());
        REQUIRE(writer->append_batched(k_line).ok());
        CHECK(slurp(path).empty());
        REQUIRE(writer->flush().ok());
        CHECK(slurp(path) == k_line + k_line);
        CHECK(writer->sync_count() == 1);  // one write, one sync, for the whole batch
        const std::string other = results::to_line(results::AttemptRecord{2, "14155550124", 1, {}});
        REQUIRE(writer->append_batched(k_line).ok());
        REQUIRE(writer->append(other).ok());  // the batch goes first, in order
        CHECK(slurp(path) == k_line + k_line + k_line + other);
        std::size_t lines = 0;
        while (slurp(path).size() == 2 * k_line.size() + k_line.size() + other.size()) {
            REQUIRE(writer->append_batched(k_line).ok());
            ++lines;
            REQUIRE(lines < 10'000);
        }
        CHECK(lines * k_line.size() >= 64 * 1024);
        CHECK(writer->append_batched("no newline").ok() == false);
        REQUIRE(writer->append_batched(k_line).ok());
        REQUIRE(writer->close().ok());  // close writes what is left
        CHECK(slurp(path).size() == (lines + 4) * k_line.size() + other.size());
    }
    TEST_CASE("every_record syncs after each line") {
        TempDir dir;
        auto writer =
            results::LogWriter::open(dir.file("log.jsonl"), {results::Durability::every_record, 1'000ms, nullptr});
        REQUIRE(writer.ok());
        for (int i = 0; i < 3; ++i) {
            REQUIRE(writer->append(k_line).ok());
        }
        CHECK(writer->sync_count() == 3);
        REQUIRE(writer->close().ok());
        CHECK(writer->sync_count() == 3);  // nothing left to sync
    }
    TEST_CASE("interval syncs at most once per interval, and on close") {
        TempDir dir;
        FakeClock clock;
        auto writer = results::LogWriter::open(dir.file("log.jsonl"), {results::Durability::interval, 1'000ms, &clock});
        REQUIRE(writer.ok());
        REQUIRE(writer->append(k_line).ok());
        clock.advance(400ms);
        REQUIRE(writer->append(k_line).ok());
        CHECK(writer->sync_count() == 0);
        clock.advance(600ms);
        REQUIRE(writer->append(k_line).ok());
        CHECK(writer->sync_count() == 1);
        clock.advance(999ms);
        REQUIRE(writer->append(k_line).ok());
        CHECK(writer->sync_count() == 1);
        REQUIRE(writer->close().ok());
        CHECK(writer->sync_count() == 2);
        CHECK(slurp(dir.file("log.jsonl")).size() == 4 * k_line.size());
    }
    TEST_CASE("none never syncs on its own; sync() still does") {
        TempDir dir;
        auto writer = results::LogWriter::open(dir.file("log.jsonl"), {results::Durability::none, 0ms, nullptr});
        REQUIRE(writer.ok());
        REQUIRE(writer->append(k_line).ok());
        REQUIRE(writer->append(k_line).ok());
        CHECK(writer->sync_count() == 0);
        REQUIRE(writer->sync().ok());
        CHECK(writer->sync_count() == 1);
        REQUIRE(writer->close().ok());
        CHECK(writer->sync_count() == 1);
    }
    TEST_CASE("a moved writer keeps writing to the same file") {
        TempDir dir;
        auto opened = results::LogWriter::open(dir.file("log.jsonl"));
        REQUIRE(opened.ok());
        results::LogWriter writer = std::move(*opened);
        REQUIRE(writer.append(k_line).ok());
        REQUIRE(writer.close().ok());
        CHECK(slurp(dir.file("log.jsonl")) == k_line);
    }
    TEST_CASE("a log torn by a crash and appended to again replays with one warning") {
        TempDir dir;
        const std::string path = dir.file("log.jsonl");
        const results::CampaignHeader header{"c", "c.yaml", "aa", "r.csv", "bb", {}, "0.1.0", results::Mode::send, {}};
        results::ResultRecord sent;
        sent.row = 1;
        sent.wa_id = "14155550123";
        sent.status = results::Status::sent;
        sent.attempts = 1;
        const std::string torn = results::to_line(sent).substr(0, 25);
        spit(path, results::to_line(header) + k_line + torn);
        {
            auto writer = results::LogWriter::open(path);
            REQUIRE(writer.ok());
            REQUIRE(writer->append(k_line).ok());
            REQUIRE(writer->append(results::to_line(sent)).ok());
        }
        auto state = results::replay(path);
        REQUIRE(state.ok());
        CHECK(state->row(1)->status == results::Status::sent);
        REQUIRE(state->warnings.size() == 1);
        CHECK(state->warnings[0].find(path + ":3: line ignored") == 0);
    }
}

TEST_SUITE("results::LogWriter") {
    TEST_CASE("refuses a FIFO at once, leaving it a FIFO") {
        TempDir dir;
        const std::string path = dir.file("fifo.jsonl");
        REQUIRE(::mkfifo(path.c_str(), 0644) == 0);
        auto writer = results::LogWriter::open(path);  // would block for a reader without O_NONBLOCK
        REQUIRE_FALSE(writer.ok());
        CHECK(writer.error().message.find("is not a regular file") != std::string::npos);
        CHECK(std::filesystem::is_fifo(path));
    }
    TEST_CASE("creates nothing through a dangling symlink") {
        TempDir dir;
        std::filesystem::create_symlink("target.jsonl", dir.file("link.jsonl"));
        auto writer = results::LogWriter::open(dir.file("link.jsonl"));
        REQUIRE_FALSE(writer.ok());
        CHECK_FALSE(std::filesystem::exists(dir.file("target.jsonl")));
        CHECK(std::filesystem::is_symlink(dir.file("link.jsonl")));
    }
    TEST_CASE("Existing::replace empties the file in place: a symlink to it stays a symlink") {
        TempDir dir;
        spit(dir.file("real.jsonl"), "old\nlines\n");
        std::filesystem::create_symlink("real.jsonl", dir.file("link.jsonl"));
        auto writer = results::LogWriter::open(
            dir.file("link.jsonl"), {.durability = results::Durability::none, .existing = results::Existing::replace});
        REQUIRE(writer.ok());
        REQUIRE(writer->append(k_line).ok());
        REQUIRE(writer->close().ok());
        CHECK(std::filesystem::is_symlink(dir.file("link.jsonl")));
        CHECK(slurp(dir.file("real.jsonl")) == k_line);
    }
}
