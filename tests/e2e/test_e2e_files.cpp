// The result log's file: one run per log whatever it is called (symlinks, hard links); a
// results path that is not a regular file is refused untouched.

#include <doctest/doctest.h>
#include <cstdio>
#include <fcntl.h>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fixtures.hpp"
#include "timeout.hpp"

using namespace e2e;
namespace fs = std::filesystem;

namespace {

constexpr auto k_limit = std::chrono::seconds(20);

} // namespace

TEST_SUITE("e2e: the result log's file") {
    TEST_CASE("a run through a symlink to a running campaign's log is refused") {
        Sandbox sandbox({"--latency", "200"});
        CampaignFixture f(sandbox, numbers_csv(40), "rate: {per_second: 20, concurrency: 2}\n");
        Background first({"run", f.campaign.string(), "--no-progress"}, f.env);
        wait_for_delivered(sandbox, 1);
        const fs::path link = f.dir.path() / "link.jsonl";
        fs::create_symlink(f.log, link);
        auto second = f.wacamp({"run", f.campaign.string(), "--results", link.string()});
        CHECK(second.exit_code == 2);
        CHECK(contains(second.err, "another wacamp process"));
        CHECK(first.wait() == 0);
        CHECK(once_each(delivered(sandbox), 40) == "");
        CHECK(fs::is_symlink(link));
    }
    TEST_CASE("a run through a hard link of a running campaign's log is refused") {
        Sandbox sandbox({"--latency", "200"});
        CampaignFixture f(sandbox, numbers_csv(40), "rate: {per_second: 20, concurrency: 2}\n");
        REQUIRE(f.wacamp({"run", f.campaign.string(), "--limit", "1"}).exit_code == 0);
        const fs::path hard = f.dir.path() / "hard.jsonl";
        fs::create_hard_link(f.log, hard);
        Background first({"run", f.campaign.string(), "--no-progress"}, f.env);
        wait_for_delivered(sandbox, 2);
        auto second = f.wacamp({"run", f.campaign.string(), "--results", hard.string()});
        CHECK(second.exit_code == 2);
        CHECK(contains(second.err, "another wacamp process"));
        CHECK(first.wait() == 0);
        CHECK(once_each(delivered(sandbox), 40) == "");
    }
    TEST_CASE("a results path that is not a regular file is refused, untouched, and nothing is sent") {
        Sandbox sandbox;
        CampaignFixture f(sandbox, numbers_csv(3));
        const fs::path fifo = f.dir.path() / "fifo.jsonl";
        REQUIRE(::mkfifo(fifo.c_str(), 0644) == 0);
        const fs::path device = f.dir.path() / "null.jsonl";  // a symlink, so a failure cannot touch /dev/null
        fs::create_symlink("/dev/null", device);
        const fs::path dangling = f.dir.path() / "dangling.jsonl";
        fs::create_symlink(f.dir.path() / "nowhere/log.jsonl", dangling);
        const fs::path stdout_link = f.dir.path() / "stdout.jsonl";
        fs::create_symlink("/proc/self/fd/1", stdout_link);
        struct Case {
            fs::path path;
            const char* why;
        };
        for (const auto& [path, why] : {Case{fifo, "is a FIFO"}, Case{device, "which is a character device"},
                                        Case{dangling, "which does not exist"}, Case{stdout_link, "which is a FIFO"}}) {
            CAPTURE(path);
            auto r = run_wacamp_within(k_limit, {"run", f.campaign.string(), "--results", path.string()}, f.env);
            CHECK_FALSE(r.timed_out);
            CHECK(r.exit_code == 2);
            CHECK(contains(r.err, why));
            CHECK(contains(r.err, "nothing was sent"));
            auto resumed = run_wacamp_within(k_limit, {"resume", path.string()}, f.env);
            CHECK_FALSE(resumed.timed_out);
            CHECK(resumed.exit_code == 2);
            auto deleted = run_wacamp_within(k_limit, {"delete-contacts", path.string()}, f.env);
            CHECK_FALSE(deleted.timed_out);
            CHECK(deleted.exit_code == 2);
        }
        CHECK(send_requests(sandbox) == 0);
        CHECK(fs::is_fifo(fifo));
        CHECK(fs::read_symlink(device) == "/dev/null");
        CHECK(fs::read_symlink(dangling) == f.dir.path() / "nowhere/log.jsonl");
        CHECK_FALSE(fs::exists(f.dir.path() / "nowhere"));
        CHECK(fs::read_symlink(stdout_link) == "/proc/self/fd/1");
        for (const auto& entry : fs::directory_iterator(f.dir.path())) {
            CHECK_MESSAGE(entry.path().extension() != ".lock", entry.path());
            CHECK_MESSAGE(entry.path().extension() != ".new", entry.path());
        }
    }
    TEST_CASE("a dry run refuses a log path that is not a regular file, untouched") {
        Sandbox sandbox;
        CampaignFixture f(sandbox, numbers_csv(3));
        const fs::path fifo = f.dir.path() / "fifo.dry-run.jsonl";
        REQUIRE(::mkfifo(fifo.c_str(), 0644) == 0);
        auto r = run_wacamp_within(k_limit, {"run", f.campaign.string(), "--dry-run", "--results",
                                             (f.dir.path() / "fifo.jsonl").string()}, f.env);
        CHECK_FALSE(r.timed_out);
        CHECK(r.exit_code == 2);
        CHECK(contains(r.err, "is a FIFO"));
        CHECK(fs::is_fifo(fifo));
    }
    TEST_CASE("a new log reached through a symlink is started where the symlink points: the symlink stays") {
        Sandbox sandbox;
        CampaignFixture f(sandbox, numbers_csv(3));
        fs::create_directories(f.dir.path() / "real");
        const fs::path real = f.dir.path() / "real/log.jsonl";
        std::ofstream(real.string()).close();  // empty: a new log is started in its place
        const fs::path link = f.dir.path() / "link.jsonl";
        fs::create_symlink(real, link);
        auto r = f.wacamp({"run", f.campaign.string(), "--results", link.string()});
        CHECK(r.exit_code == 0);
        CHECK(fs::is_symlink(link));
        const auto started = read_jsonl(real);
        REQUIRE(!started.empty());
        CHECK(started.front()["event"] == "campaign");
        CHECK(once_each(delivered(sandbox), 3) == "");
    }
    TEST_CASE("a dry run's log reached through a symlink is rewritten in place: the symlink stays") {
        Sandbox sandbox;
        CampaignFixture f(sandbox, numbers_csv(3));
        fs::create_directories(f.dir.path() / "real");
        const fs::path link = f.dir.path() / "link.jsonl";
        const fs::path dry_real = f.dir.path() / "real/dry.jsonl";
        std::ofstream(dry_real.string()) << "an earlier dry run\n";
        const fs::path dry_link = f.dir.path() / "link.dry-run.jsonl";
        fs::create_symlink(dry_real, dry_link);
        auto dry = f.wacamp({"run", f.campaign.string(), "--dry-run", "--results", link.string()});
        CHECK(dry.exit_code == 0);
        CHECK(fs::is_symlink(dry_link));
        const auto records = read_jsonl(dry_real);
        REQUIRE(!records.empty());
        CHECK(records.front()["event"] == "campaign");
        CHECK(!contains(read_file(dry_real), "an earlier dry run"));
    }}
