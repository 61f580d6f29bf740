#include <doctest/doctest.h>

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "util/spill_queue.hpp"

namespace {

// Sets an environment variable for the scope, then puts back what was there.
class ScopedEnv {
public:
    ScopedEnv(const char* name, const char* value) : m_name(name) {
        if (const char* old = std::getenv(name)) {
            m_old = old;
        }
        ::setenv(name, value, 1);
    }
    ~ScopedEnv() {
        if (m_old) {
            ::setenv(m_name, m_old->c_str(), 1);
        } else {
            ::unsetenv(m_name);
        }
    }
    ScopedEnv(const ScopedEnv&) = delete;
    ScopedEnv& operator=(const ScopedEnv&) = delete;

private:
    const char* m_name;
    std::optional<std::string> m_old;
};

// Pops every record of `queue`: true when they are 1, 2, … `count`, in order, and no more.
bool pops_in_order(util::SpillQueue<std::uint64_t>& queue, std::uint64_t count) {
    std::uint64_t value = 0;
    for (std::uint64_t expected = 1; expected <= count; ++expected) {
        auto popped = queue.pop(value);
        if (!popped || !*popped || value != expected) {
            return false;
        }
    }
    auto end = queue.pop(value);
    return end && !*end && queue.empty();
}

}  // namespace

TEST_SUITE("util::SpillQueue") {
    TEST_CASE("many records come back in the order they went in, across memory and the file") {
        util::SpillQueue<std::uint64_t> queue(64);  // 512 bytes in memory: most go to the file
        constexpr std::uint64_t k_count = 200'000;
        for (std::uint64_t i = 1; i <= k_count; ++i) {
            REQUIRE(queue.push(i));
        }
        CHECK(queue.size() == k_count);
        CHECK(pops_in_order(queue, k_count));
        // Emptied, it takes records again (in a new file).
        REQUIRE(queue.push(1));
        REQUIRE(queue.push(2));
        CHECK(pops_in_order(queue, 2));
    }

    TEST_CASE("pushes and pops taking turns keep the order") {
        util::SpillQueue<std::uint32_t> queue(10);
        std::uint32_t next_in = 1;
        std::uint32_t next_out = 1;
        for (int round = 0; round < 500; ++round) {
            for (int i = 0; i < 7; ++i) {
                REQUIRE(queue.push(next_in++));
            }
            for (int i = 0; i < 5; ++i) {
                std::uint32_t value = 0;
                auto popped = queue.pop(value);
                REQUIRE(popped);
                REQUIRE(*popped);
                REQUIRE(value == next_out++);
            }
        }
        CHECK(queue.size() == next_in - next_out);
    }

    TEST_CASE("bytes come back as they went in, in pieces of any length; asking for more than waits fails") {
        util::ByteSpillQueue queue(100);
        std::string in;
        for (int i = 0; i < 2000; ++i) {
            const std::string piece = std::to_string(i) + std::string(static_cast<std::size_t>(i % 37), 'x') + ";";
            REQUIRE(queue.push(piece.data(), piece.size()));
            in += piece;
        }
        CHECK(queue.size() == in.size());
        std::string out(in.size(), '\0');
        std::size_t at = 0;
        for (std::size_t piece = 1; at < out.size(); piece = piece % 250 + 1) {
            const std::size_t n = std::min(piece, out.size() - at);
            REQUIRE(queue.pop(out.data() + at, n));
            at += n;
        }
        CHECK(out == in);
        char byte = 0;
        const auto more = queue.pop(&byte, 1);
        REQUIRE_FALSE(more);
        CHECK(more.error().message == "a temporary queue was asked for more than it holds");
    }

    TEST_CASE("a temporary file that cannot be made is an error, and what was pushed stays, in order") {
        // No file can be made in /proc, even by root.
        const ScopedEnv tmpdir("TMPDIR", "/proc");
        util::SpillQueue<std::uint64_t> queue(16);
        std::optional<util::Error> failed;
        std::uint64_t pushed = 0;
        while (!failed && pushed < 1000) {
            auto result = queue.push(++pushed);
            if (!result) {
                failed = result.error();
            }
        }
        REQUIRE(failed);
        CHECK(pushed == 16);  // the first spill
        CHECK(failed->message.find("cannot create a temporary file in /proc") != std::string::npos);
        CHECK(queue.size() == pushed);
        CHECK(pops_in_order(queue, pushed));
    }

    TEST_CASE("a TMPDIR that is missing, not a folder or not writable is named with the system's reason") {
        char folder_template[] = "/tmp/wacamp-tmpdir-test-XXXXXX";
        REQUIRE(::mkdtemp(folder_template) != nullptr);
        const std::string folder = folder_template;
        const std::string file = folder + "/a-file";
        std::FILE* made_file = std::fopen(file.c_str(), "w");
        REQUIRE(made_file != nullptr);
        std::fclose(made_file);
        const std::vector<std::pair<std::string, std::string>> cases = {
            {folder + "/missing", "No such file or directory"},
            {file, "Not a directory"},
            {"/proc", ""}};  // no file can be made there, even by root (the reason depends on the kernel)
        for (const auto& [tmpdir, reason] : cases) {
            CAPTURE(tmpdir);
            const ScopedEnv env("TMPDIR", tmpdir.c_str());
            auto made = util::TempFile::create();
            REQUIRE_FALSE(made);
            CHECK(made.error().kind == util::ErrorKind::temp_file);
            const std::string& message = made.error().message;
            CAPTURE(message);
            // Never a quiet /tmp instead: the folder TMPDIR names, said to be TMPDIR's, and why.
            CHECK(message.find("cannot create a temporary file in " + tmpdir + " (TMPDIR): " + reason) !=
                  std::string::npos);
            CHECK(message.find("set TMPDIR to a folder wacamp can write") != std::string::npos);
        }
        std::remove(file.c_str());
        ::rmdir(folder.c_str());
        const ScopedEnv unset("TMPDIR", "");
        CHECK(util::TempFile::create());  // empty: /tmp
    }

    TEST_CASE("a temporary file that cannot grow (a file size limit) is an error, and nothing is lost") {
        // In a child: the limit and the signal it raises stay there.
        const pid_t pid = ::fork();
        REQUIRE(pid >= 0);
        if (pid == 0) {
            std::signal(SIGXFSZ, SIG_IGN);  // the write fails (EFBIG) instead
            const rlimit limit{8192, 8192};
            ::setrlimit(RLIMIT_FSIZE, &limit);
            util::SpillQueue<std::uint64_t> queue(100);  // 800 bytes a spill: the eleventh passes the limit
            std::optional<util::Error> failed;
            std::uint64_t pushed = 0;
            while (!failed && pushed < 100'000) {
                auto result = queue.push(++pushed);
                if (!result) {
                    failed = result.error();
                }
            }
            if (!failed) {
                ::_exit(1);
            }
            if (failed->message.find("cannot write a temporary file in ") == std::string::npos ||
                failed->message.find("File too large") == std::string::npos || pushed != 1100) {
                ::_exit(2);
            }
            ::_exit(pops_in_order(queue, pushed) ? 0 : 3);
        }
        int status = 0;
        REQUIRE(::waitpid(pid, &status, 0) == pid);
        REQUIRE(WIFEXITED(status));
        CHECK(WEXITSTATUS(status) == 0);  // 1: no error, 2: another error, 3: records lost or out of order
    }
}
