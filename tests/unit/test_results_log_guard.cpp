#include <doctest/doctest.h>

#include <fcntl.h>
#include <unistd.h>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "fakes.hpp"
#include "results/log_guard.hpp"
#include "results/log_writer.hpp"
#include "results/records.hpp"

namespace {

using fakes::TempDir;
namespace fs = std::filesystem;

std::string slurp(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream out;
    out << in.rdbuf();
    return out.str();
}

bool has(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

const std::string k_first = results::to_line(results::AttemptRecord{1, "14155550123", 1, {}});
const std::string k_second = results::to_line(results::AttemptRecord{2, "14155550124", 1, {}});

// A writer on dir/log.jsonl that has written k_first.
results::LogWriter started(const TempDir& dir) {
    auto writer = results::LogWriter::open(dir.file("log.jsonl"));
    REQUIRE(writer.ok());
    REQUIRE(writer->append(k_first).ok());
    return std::move(*writer);
}

}  // namespace

TEST_SUITE("results::log_guard") {
    TEST_CASE("an intact log passes the check") {
        TempDir dir;
        auto writer = started(dir);
        CHECK(writer.append(k_second).ok());
        CHECK(writer.flush().ok());
        CHECK(slurp(dir.file("log.jsonl")) == k_first + k_second);
    }
    TEST_CASE("a log deleted under the writer fails the next flush, and is restored whole at its path") {
        TempDir dir;
        auto writer = started(dir);
        REQUIRE(::unlink(dir.file("log.jsonl").c_str()) == 0);
        REQUIRE(writer.append_batched(k_second).ok());
        auto flushed = writer.flush();
        REQUIRE_FALSE(flushed.ok());
        CHECK(has(flushed.error().message, "the result log " + dir.file("log.jsonl") + " was deleted"));
        CHECK(has(flushed.error().message, "restored"));
        CHECK(slurp(dir.file("log.jsonl")) == k_first + k_second);  // the lines of that flush too
        // It goes on writing into the restored file, which passes the check.
        CHECK(writer.append(k_first).ok());
        CHECK(slurp(dir.file("log.jsonl")) == k_first + k_second + k_first);
        CHECK(writer.path() == dir.file("log.jsonl"));
        std::size_t leftovers = 0;
        for (const auto& entry : fs::directory_iterator(dir.path)) {
            leftovers += entry.path().filename() != "log.jsonl" ? 1 : 0;
        }
        CHECK(leftovers == 0);
    }
    TEST_CASE("a deleted log whose place another file took is restored beside it") {
        TempDir dir;
        auto writer = started(dir);
        REQUIRE(::unlink(dir.file("log.jsonl").c_str()) == 0);
        std::ofstream(dir.file("log.jsonl")) << "someone else's\n";
        auto appended = writer.append(k_second);
        REQUIRE_FALSE(appended.ok());
        CHECK(has(appended.error().message, "restored to " + dir.file("log.jsonl") + ".recovered"));
        CHECK(has(appended.error().message, "Move " + dir.file("log.jsonl") + ".recovered to"));
        CHECK(slurp(dir.file("log.jsonl")) == "someone else's\n");
        CHECK(slurp(dir.file("log.jsonl.recovered")) == k_first + k_second);
    }
    TEST_CASE("a truncated log fails every later write") {
        TempDir dir;
        auto writer = started(dir);
        fs::resize_file(dir.file("log.jsonl"), 0);
        auto appended = writer.append(k_second);
        REQUIRE_FALSE(appended.ok());
        CHECK(has(appended.error().message, "was truncated"));
        CHECK(has(appended.error().message, "its earlier records are gone"));
        CHECK_FALSE(writer.append(k_second).ok());
    }
    TEST_CASE("a log moved away fails, naming where it went, and a copy is put back at its path") {
        TempDir dir;
        auto writer = started(dir);
        fs::rename(dir.file("log.jsonl"), dir.file("log.jsonl.1"));
        auto appended = writer.append(k_second);
        REQUIRE_FALSE(appended.ok());
        CHECK(has(appended.error().message, "was moved away to " + fs::canonical(dir.file("log.jsonl.1")).string()));
        CHECK(has(appended.error().message, "restored from the open file"));
        CHECK(slurp(dir.file("log.jsonl.1")) == k_first + k_second);
        CHECK(slurp(dir.file("log.jsonl")) == k_first + k_second);
        CHECK(writer.append(k_first).ok());  // on into the copy
        CHECK(slurp(dir.file("log.jsonl")) == k_first + k_second + k_first);
    }
    TEST_CASE("a log replaced by another file at its path fails") {
        TempDir dir;
        auto writer = started(dir);
        fs::rename(dir.file("log.jsonl"), dir.file("log.jsonl.1"));
        std::ofstream(dir.file("log.jsonl")) << "";
        auto appended = writer.append(k_second);
        REQUIRE_FALSE(appended.ok());
        CHECK(has(appended.error().message, "and another file is at its path"));
        CHECK(has(appended.error().message, "Put it back at " + dir.file("log.jsonl")));
        CHECK(slurp(dir.file("log.jsonl")).empty());
        CHECK_FALSE(writer.append(k_second).ok());  // every later write fails too
    }
    TEST_CASE("check_open_log tells the fates apart") {
        TempDir dir;
        const std::string path = dir.file("log.jsonl");
        std::ofstream(path) << "0123456789";
        const int fd = ::open(path.c_str(), O_RDONLY);
        REQUIRE(fd >= 0);
        CHECK(results::check_open_log(fd, path, 10)->fate == results::LogFate::intact);
        CHECK(results::check_open_log(fd, path, 11)->fate == results::LogFate::truncated);
        fs::rename(path, path + ".1");
        CHECK(results::check_open_log(fd, path, 10)->fate == results::LogFate::moved);
        std::ofstream(path) << "0123456789";
        CHECK(results::check_open_log(fd, path, 10)->fate == results::LogFate::replaced);
        REQUIRE(::unlink((path + ".1").c_str()) == 0);
        CHECK(results::check_open_log(fd, path, 10)->fate == results::LogFate::deleted);
        ::close(fd);
    }
}
