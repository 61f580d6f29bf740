#include <doctest/doctest.h>

#include <sys/stat.h>
#include <filesystem>
#include <fstream>

#include "fakes.hpp"
#include "results/log_path.hpp"

namespace {

using fakes::TempDir;
namespace fs = std::filesystem;

bool has(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

}  // namespace

TEST_SUITE("results::resolve_log_path") {
    TEST_CASE("a regular file resolves to itself") {
        TempDir dir;
        std::ofstream(dir.file("log.jsonl")) << "x\n";
        auto path = results::resolve_log_path(dir.file("log.jsonl"));
        REQUIRE(path.ok());
        CHECK(path->exists);
        CHECK(path->resolved == fs::canonical(dir.file("log.jsonl")).string());
    }
    TEST_CASE("a path with nothing there yet passes, even in a folder still to be made") {
        TempDir dir;
        auto path = results::resolve_log_path(dir.file("results/new.jsonl"));
        REQUIRE(path.ok());
        CHECK_FALSE(path->exists);
        CHECK(path->resolved == (fs::canonical(dir.path) / "results/new.jsonl").string());
        CHECK_FALSE(fs::exists(dir.file("results")));
    }
    TEST_CASE("a symlink to a regular file resolves to the file") {
        TempDir dir;
        fs::create_directory(dir.file("other"));
        std::ofstream(dir.file("other/real.jsonl")) << "x\n";
        fs::create_symlink("other/real.jsonl", dir.file("link.jsonl"));
        auto path = results::resolve_log_path(dir.file("link.jsonl"));
        REQUIRE(path.ok());
        CHECK(path->exists);
        CHECK(path->resolved == fs::canonical(dir.file("other/real.jsonl")).string());
    }
    TEST_CASE("a dangling symlink is refused and left alone") {
        TempDir dir;
        fs::create_symlink("missing/target.jsonl", dir.file("link.jsonl"));
        auto path = results::resolve_log_path(dir.file("link.jsonl"));
        REQUIRE_FALSE(path.ok());
        CHECK(has(path.error().message, dir.file("link.jsonl")));
        CHECK(has(path.error().message, "is a symlink to missing/target.jsonl, which does not exist"));
        CHECK(fs::is_symlink(dir.file("link.jsonl")));
    }
    TEST_CASE("a FIFO is refused") {
        TempDir dir;
        REQUIRE(::mkfifo(dir.file("fifo").c_str(), 0644) == 0);
        auto path = results::resolve_log_path(dir.file("fifo"));
        REQUIRE_FALSE(path.ok());
        CHECK(has(path.error().message, "is a FIFO (named pipe)"));
        CHECK(has(path.error().message, "must be a regular file"));
        CHECK(fs::is_fifo(dir.file("fifo")));
    }
    TEST_CASE("a symlink to a character device is refused") {
        TempDir dir;
        fs::create_symlink("/dev/null", dir.file("null.jsonl"));
        auto path = results::resolve_log_path(dir.file("null.jsonl"));
        REQUIRE_FALSE(path.ok());
        CHECK(has(path.error().message, "is a symlink to /dev/null, which is a character device"));
    }
    TEST_CASE("a character device itself is refused") {
        auto path = results::resolve_log_path("/dev/null");
        REQUIRE_FALSE(path.ok());
        CHECK(has(path.error().message, "/dev/null is a character device"));
    }
    TEST_CASE("a folder is refused") {
        TempDir dir;
        auto path = results::resolve_log_path(dir.path.string());
        REQUIRE_FALSE(path.ok());
        CHECK(has(path.error().message, "is a folder"));
    }
    TEST_CASE("a symlink loop is refused") {
        TempDir dir;
        fs::create_symlink("b", dir.file("a"));
        fs::create_symlink("a", dir.file("b"));
        auto path = results::resolve_log_path(dir.file("a"));
        REQUIRE_FALSE(path.ok());
        CHECK(has(path.error().message, "cannot be followed"));
    }
}
