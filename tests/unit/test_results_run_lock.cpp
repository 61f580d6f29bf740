#include <doctest/doctest.h>

#include <unistd.h>
#include <filesystem>
#include <fstream>

#include "fakes.hpp"
#include "results/run_lock.hpp"

namespace {

using fakes::TempDir;

}  // namespace

TEST_SUITE("results::RunLock") {
    TEST_CASE("a second lock on the same log is refused, naming the holder's pid") {
        TempDir dir;
        const std::string log = (std::filesystem::canonical(dir.path) / "results/spring.jsonl").string();
        auto first = results::RunLock::acquire(log);
        REQUIRE(first.ok());
        CHECK(first->path() == log + ".lock");
        auto second = results::RunLock::acquire(log);
        REQUIRE_FALSE(second.ok());
        CHECK(second.error().message == "another wacamp process is running this campaign (lock held on " + log +
                                            ".lock by pid " + std::to_string(::getpid()) + ")");
    }
    TEST_CASE("the lock is free again once released") {
        TempDir dir;
        const std::string log = (dir.path / "log.jsonl").string();
        {
            auto first = results::RunLock::acquire(log);
            REQUIRE(first.ok());
        }
        auto again = results::RunLock::acquire(log);
        CHECK(again.ok());
    }
    TEST_CASE("a lock taken before is known as an earlier run") {
        TempDir dir;
        const std::string log = (dir.path / "log.jsonl").string();
        {
            auto first = results::RunLock::acquire(log);
            REQUIRE(first.ok());
            CHECK_FALSE(first->earlier_run());
        }
        auto again = results::RunLock::acquire(log);
        REQUIRE(again.ok());
        CHECK(again->earlier_run());
    }
    TEST_CASE("a discarded lock leaves no file, and the next lock is not an earlier run's") {
        TempDir dir;
        const std::string log = (dir.path / "log.jsonl").string();
        {
            auto first = results::RunLock::acquire(log);
            REQUIRE(first.ok());
            first->discard();
            CHECK_FALSE(std::filesystem::exists(log + ".lock"));
            auto meanwhile = results::RunLock::acquire(log);  // released by discard
            REQUIRE(meanwhile.ok());
            meanwhile->discard();
        }
        auto again = results::RunLock::acquire(log);
        REQUIRE(again.ok());
        CHECK_FALSE(again->earlier_run());
        CHECK(std::filesystem::exists(log + ".lock"));
    }
    TEST_CASE("different logs do not conflict") {
        TempDir dir;
        auto a = results::RunLock::acquire((dir.path / "a.jsonl").string());
        auto b = results::RunLock::acquire((dir.path / "b.jsonl").string());
        CHECK(a.ok());
        CHECK(b.ok());
    }
    TEST_CASE("a moved lock stays held") {
        TempDir dir;
        const std::string log = (dir.path / "log.jsonl").string();
        auto acquired = results::RunLock::acquire(log);
        REQUIRE(acquired.ok());
        results::RunLock held = std::move(*acquired);
        CHECK_FALSE(results::RunLock::acquire(log).ok());
    }
    TEST_CASE("the holder's pid is in the lock file") {
        TempDir dir;
        const std::string log = (dir.path / "log.jsonl").string();
        auto lock = results::RunLock::acquire(log);
        REQUIRE(lock.ok());
        std::ifstream in(log + ".lock");
        long pid = 0;
        in >> pid;
        CHECK(pid == ::getpid());
    }
    TEST_CASE("a lock that cannot be created is an error naming it") {
        TempDir dir;
        std::ofstream((dir.path / "file").string()) << "x";
        auto lock = results::RunLock::acquire((dir.path / "file/log.jsonl").string());
        REQUIRE_FALSE(lock.ok());
        CHECK(lock.error().message.find((dir.path / "file").string()) != std::string::npos);
    }
}

TEST_SUITE("results::RunLock") {
    TEST_CASE("a log reached through a symlink shares the lock of the file it points to") {
        TempDir dir;
        std::filesystem::create_directory(dir.path / "other");
        std::ofstream((dir.path / "other/real.jsonl").string()) << "{}\n";
        std::filesystem::create_symlink("other/real.jsonl", dir.path / "link.jsonl");
        auto real = results::RunLock::acquire((dir.path / "other/real.jsonl").string());
        REQUIRE(real.ok());
        auto link = results::RunLock::acquire((dir.path / "link.jsonl").string());
        REQUIRE_FALSE(link.ok());
        CHECK(link.error().message.find("another wacamp process is running this campaign") == 0);
    }
    TEST_CASE("a symlink to a log not yet made shares the lock of the path it points to") {
        TempDir dir;
        auto real = results::RunLock::acquire((dir.path / "real.jsonl").string());
        REQUIRE(real.ok());
        // Nothing is there yet: the spelling is resolved through the folder's symlink.
        std::filesystem::create_directory_symlink(".", dir.path / "here");
        CHECK_FALSE(results::RunLock::acquire((dir.path / "here/real.jsonl").string()).ok());
    }
    TEST_CASE("hard links of one log share its lock") {
        TempDir dir;
        std::ofstream((dir.path / "real.jsonl").string()) << "{}\n";
        std::filesystem::create_hard_link(dir.path / "real.jsonl", dir.path / "hard.jsonl");
        auto real = results::RunLock::acquire((dir.path / "real.jsonl").string());
        REQUIRE(real.ok());
        auto hard = results::RunLock::acquire((dir.path / "hard.jsonl").string());
        REQUIRE_FALSE(hard.ok());
        CHECK(hard.error().message.find("another wacamp process is running this campaign") == 0);
        CHECK(hard.error().message.find("under another of its names") != std::string::npos);
    }
    TEST_CASE("a log locked with cover() after it was made is locked for its hard links") {
        TempDir dir;
        const std::string log = (dir.path / "real.jsonl").string();
        auto lock = results::RunLock::acquire(log);
        REQUIRE(lock.ok());
        std::ofstream(log) << "{}\n";
        REQUIRE(lock->cover(log).ok());
        std::filesystem::create_hard_link(log, dir.path / "hard.jsonl");
        CHECK_FALSE(results::RunLock::acquire((dir.path / "hard.jsonl").string()).ok());
    }
    TEST_CASE("a results path that is not a regular file is refused before any lock file is made") {
        TempDir dir;
        std::filesystem::create_symlink("/dev/null", dir.path / "null.jsonl");
        auto lock = results::RunLock::acquire((dir.path / "null.jsonl").string());
        REQUIRE_FALSE(lock.ok());
        CHECK(lock.error().message.find("character device") != std::string::npos);
        CHECK_FALSE(std::filesystem::exists(dir.path / "null.jsonl.lock"));
        CHECK_FALSE(std::filesystem::exists("/dev/null.lock"));
    }
    TEST_CASE("a lock file that is a symlink is not followed") {
        TempDir dir;
        std::ofstream((dir.path / "precious").string()) << "keep me";
        std::filesystem::create_symlink("precious", dir.path / "log.jsonl.lock");
        auto lock = results::RunLock::acquire((dir.path / "log.jsonl").string());
        REQUIRE_FALSE(lock.ok());
        std::ifstream in((dir.path / "precious").string());
        std::string text;
        std::getline(in, text);
        CHECK(text == "keep me");
    }
}
