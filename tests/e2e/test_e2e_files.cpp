// The result log's file: one run per log whatever it is called (symlinks, hard links); a log
// deleted or truncated under a run stops it before more requests leave; a results path that is
// not a regular file is refused untouched; a log that cannot be written (a full disk) stops the
// run with log_error, exit 3 and the resume command, and nothing goes out twice afterwards.

#include <doctest/doctest.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>
#include <string_view>

#include "fixtures.hpp"
#include "timeout.hpp"

using namespace e2e;
namespace fs = std::filesystem;

namespace {

constexpr auto k_limit = std::chrono::seconds(20);

// Runs `wacamp ARGS…` under prlimit(1) with a file size limit of `bytes`: a write past it fails
// with EFBIG, as on a full disk. Output goes through pipes, which the limit does not touch.
ProcessResult wacamp_with_file_limit(const CampaignFixture& f, long bytes, const std::vector<std::string>& args) {
    int out_pipe[2], err_pipe[2];
    REQUIRE(pipe2(out_pipe, O_CLOEXEC) == 0);
    REQUIRE(pipe2(err_pipe, O_CLOEXEC) == 0);
    const int devnull = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
    std::vector<std::string> argv{"/usr/bin/prlimit", "--fsize=" + std::to_string(bytes), WACAMP_BINARY};
    argv.insert(argv.end(), args.begin(), args.end());
    const pid_t pid = spawn_process(argv, f.env, devnull, out_pipe[1], err_pipe[1]);
    ::close(devnull);
    ::close(out_pipe[1]);
    ::close(err_pipe[1]);
    ProcessResult result;
    pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
    std::string* const sinks[2] = {&result.out, &result.err};
    int open_fds = 2;
    while (open_fds > 0 && ::poll(fds, 2, -1) >= 0) {
        read_ready(fds, sinks, open_fds);
    }
    int status = 0;
    ::waitpid(pid, &status, 0);
    result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    return result;
}

// "" when no number was delivered twice and every one of `rows` was delivered or is unknown in
// the log (held for a person: it may have arrived).
std::string never_twice(const Sandbox& sandbox, const CampaignFixture& f, size_t rows) {
    const auto sent = delivered(sandbox);
    std::string problems = once_each(sent, sent.size());
    const size_t unknown = static_cast<size_t>(status_counts(f)["unknown"]);
    if (sent.size() + unknown < rows) {
        problems += fmt::format("{} delivered and {} unknown, of {}", sent.size(), unknown, rows);
    }
    return problems;
}

}  // namespace

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
    TEST_CASE("a log deleted mid-run stops the run (log_error, exit 3), restored; the next run sends nothing twice") {
        Sandbox sandbox({"--latency", "50"});
        CampaignFixture f(sandbox, numbers_csv(60), "rate: {per_second: 20, concurrency: 2}\n");
        Background run({"run", f.campaign.string(), "--no-progress"}, f.env);
        wait_for_delivered(sandbox, 5);
        fs::remove(f.log);
        CHECK(run.wait() == 3);
        CHECK(contains(run.out() + run.err(), "was deleted while this run was writing it"));
        CHECK(contains(run.out() + run.err(), "log_error"));
        CHECK(contains(run.out() + run.err(), "wacamp resume " + f.log.string()));
        REQUIRE(fs::is_regular_file(f.log));  // restored from the open file
        CHECK(f.records().front()["event"] == "campaign");
        CHECK(f.records().back()["event"] == "end");
        CHECK(f.records().back()["reason"] == "log_error");
        CHECK(delivered(sandbox).size() < 60);  // it stopped early
        auto again = f.wacamp({"run", f.campaign.string()});
        CHECK(again.exit_code <= 1);
        CHECK(never_twice(sandbox, f, 60) == "");
    }
    TEST_CASE("a log truncated mid-run stops the run (log_error, exit 3); the next run sends nothing twice") {
        Sandbox sandbox({"--latency", "50"});
        CampaignFixture f(sandbox, numbers_csv(60), "rate: {per_second: 20, concurrency: 2}\n");
        Background run({"run", f.campaign.string(), "--no-progress"}, f.env);
        wait_for_delivered(sandbox, 5);
        fs::resize_file(f.log, 0);  // logrotate's copytruncate, minus the copy
        CHECK(run.wait() == 3);
        CHECK(contains(run.out() + run.err(), "was truncated while this run was writing it"));
        CHECK(delivered(sandbox).size() < 60);
        const auto before = delivered(sandbox);
        auto again = f.wacamp({"run", f.campaign.string()});
        CHECK(again.exit_code == 2);  // the log no longer names its campaign: refused, not started afresh
        CHECK(delivered(sandbox) == before);
    }
    TEST_CASE("a log moved away mid-run stops the run, a copy is put back; the next run sends nothing twice") {
        Sandbox sandbox({"--latency", "50"});
        CampaignFixture f(sandbox, numbers_csv(60), "rate: {per_second: 20, concurrency: 2}\n");
        Background run({"run", f.campaign.string(), "--no-progress"}, f.env);
        wait_for_delivered(sandbox, 5);
        const fs::path moved = f.log.string() + ".moved";
        fs::rename(f.log, moved);
        CHECK(run.wait() == 3);
        CHECK(contains(run.out() + run.err(), "was moved away to " + moved.string()));
        CHECK(contains(run.out() + run.err(), "restored from the open file"));
        REQUIRE(fs::is_regular_file(f.log));
        auto again = f.wacamp({"run", f.campaign.string()});
        CHECK(again.exit_code <= 1);
        CHECK(never_twice(sandbox, f, 60) == "");
    }
    TEST_CASE(
        "a log rotated mid-run (moved away, a new file made in its place) stops the run; put back, the next run "
        "sends nothing twice") {
        Sandbox sandbox({"--latency", "50"});
        CampaignFixture f(sandbox, numbers_csv(60), "rate: {per_second: 20, concurrency: 2}\n");
        Background run({"run", f.campaign.string(), "--no-progress"}, f.env);
        wait_for_delivered(sandbox, 5);
        const fs::path rotated = f.log.string() + ".1";
        std::ofstream(rotated.string()).close();
        // logrotate's create mode in one step: the log becomes .1, an empty file takes its place.
        REQUIRE(::renameat2(AT_FDCWD, f.log.c_str(), AT_FDCWD, rotated.c_str(), RENAME_EXCHANGE) == 0);
        CHECK(run.wait() == 3);
        CHECK(contains(run.out() + run.err(),
                       "was moved away to " + rotated.string() + " and another file is at its path"));
        CHECK(contains(run.out() + run.err(), "Put it back at " + f.log.string()));
        CHECK(fs::file_size(f.log) == 0);  // not written to, not replaced
        fs::rename(rotated, f.log);
        auto again = f.wacamp({"run", f.campaign.string()});
        CHECK(again.exit_code <= 1);
        CHECK(never_twice(sandbox, f, 60) == "");
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
        auto r = run_wacamp_within(
            k_limit, {"run", f.campaign.string(), "--dry-run", "--results", (f.dir.path() / "fifo.jsonl").string()},
            f.env);
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
    }
    TEST_CASE(
        "a full disk mid-run stops it with log_error, exit 3 and the resume command; resume sends nothing twice") {
        Sandbox sandbox({"--latency", "20"});
        // The file size limit applies to every file the process writes: the ledger is off here.
        CampaignFixture f(sandbox, numbers_csv(100),
                          "rate: {per_second: 50, concurrency: 2}\naccount: {ledger: off}\n");
        auto full = wacamp_with_file_limit(f, 8000, {"run", f.campaign.string(), "--no-progress"});
        CHECK(full.exit_code == 3);
        CHECK(contains(full.out + full.err, "File too large"));
        CHECK(contains(full.out + full.err, "log_error"));
        CHECK(contains(full.out + full.err, "wacamp resume " + f.log.string()));
        CHECK_FALSE(contains(full.out + full.err, "nothing was sent"));
        const auto before = delivered(sandbox);
        CHECK(before.size() > 0);
        CHECK(before.size() < 100);
        auto resumed = f.wacamp({"resume", f.log.string()});
        CHECK(resumed.exit_code <= 1);
        CHECK(never_twice(sandbox, f, 100) == "");
    }
    TEST_CASE("a full disk mid-run loses no result: each answer counted sent is in the log or given on stderr") {
        Sandbox sandbox({"--latency", "20"});
        CampaignFixture f(sandbox, numbers_csv(100),
                          "rate: {per_second: 50, concurrency: 4}\naccount: {ledger: off}\n");
        auto full = wacamp_with_file_limit(f, 8000, {"run", f.campaign.string(), "--no-progress"});
        CHECK(full.exit_code == 3);
        // The rows sent, as the log says (its last line may be torn) and as stderr gives them.
        std::set<std::string> sent;
        const auto add = [&sent](std::string_view line) {
            const auto record = nlohmann::json::parse(line, nullptr, false);
            if (!record.is_discarded() && record.is_object() && record.value("event", "") == "result" &&
                record.value("status", "") == "sent") {
                sent.insert(record.value("wa_id", ""));
            }
        };
        std::istringstream log(read_file(f.log));
        for (std::string line; std::getline(log, line);) {
            add(line);
        }
        const std::string k_given = "result not in the log: ";
        std::istringstream err(full.err);
        for (std::string line; std::getline(err, line);) {
            if (const auto at = line.find(k_given); at != std::string::npos) {
                add(std::string_view(line).substr(at + k_given.size()));
            }
        }
        // The summary counts each answer the run read as sent.
        std::smatch counted;
        const std::string out = full.out + full.err;
        REQUIRE(std::regex_search(out, counted, std::regex(R"(\((\d+) sent this run\))")));
        CAPTURE(out);
        CHECK(sent.size() == std::stoul(counted[1].str()));
        CHECK(once_each(delivered(sandbox), delivered(sandbox).size()) == "");
    }
    TEST_CASE("a log rotated away leaving an empty file: the next run refuses and sends nothing") {
        // logrotate's create mode: the log is renamed away and an empty file takes its place.
        // Starting afresh on it would send the whole campaign again.
        Sandbox sandbox;
        CampaignFixture f(sandbox, numbers_csv(3));
        REQUIRE(f.wacamp({"run", f.campaign.string(), "--no-progress"}).exit_code == 0);
        fs::rename(f.log, f.log.string() + ".1");
        std::ofstream(f.log).close();
        auto r = f.wacamp({"run", f.campaign.string(), "--no-progress"});
        CHECK(r.exit_code == 2);
        CHECK(contains(r.err, "is empty, but a campaign already ran with this log"));
        CHECK(once_each(delivered(sandbox), 3) == "");
        CHECK(fs::file_size(f.log) == 0);
    }
    TEST_CASE("a full disk during delete-contacts stops it with exit 3 and the command to finish") {
        Sandbox sandbox;
        CampaignFixture f(sandbox, numbers_csv(10), "cleanup: {delete_contacts: true, batch_size: 2}\n");
        REQUIRE(f.wacamp({"run", f.campaign.string(), "--limit", "8"}).exit_code == 0);  // no cleanup after --limit
        const auto size = static_cast<long>(fs::file_size(f.log));
        auto full = wacamp_with_file_limit(f, size + 40, {"delete-contacts", f.log.string()});
        CHECK(full.exit_code == 3);
        CHECK(contains(full.out + full.err, "File too large"));
        CHECK(contains(full.out + full.err, "to finish: wacamp delete-contacts " + f.log.string()));
        auto finished = f.wacamp({"delete-contacts", f.log.string()});
        CHECK(finished.exit_code == 0);
    }
}
