// Under systemd, with stderr connected to the journal (JOURNAL_STREAM), diagnostics go to
// journald as entries with fields. Where no journal runs (CI), the test binds the journal's
// socket itself, runs wacamp, and reads the entries back; where a journal runs, the socket is
// taken and the test reports itself skipped (ctest: SKIP_REGULAR_EXPRESSION).
#include <doctest/doctest.h>

#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>

#include "fixtures.hpp"

using namespace e2e;

namespace {

const std::filesystem::path k_socket = "/run/systemd/journal/socket";

using Entry = std::map<std::string, std::string>;

// One datagram of journald's native protocol: "KEY=value\n", or "KEY\n" then a 64-bit
// little-endian length, the value, and "\n" (values holding a line break).
Entry parse_entry(const std::string& datagram) {
    Entry entry;
    size_t at = 0;
    while (at < datagram.size()) {
        const auto end = datagram.find('\n', at);
        if (end == std::string::npos) {
            break;
        }
        const auto line = datagram.substr(at, end - at);
        const auto equals = line.find('=');
        if (equals != std::string::npos) {
            entry[line.substr(0, equals)] = line.substr(equals + 1);
            at = end + 1;
            continue;
        }
        std::uint64_t size = 0;
        if (end + 1 + 8 > datagram.size()) {
            break;
        }
        for (int i = 7; i >= 0; --i) {
            size = (size << 8) | static_cast<unsigned char>(datagram[end + 1 + static_cast<size_t>(i)]);
        }
        entry[line] = datagram.substr(end + 9, size);
        at = end + 9 + size + 1;
    }
    return entry;
}

// The journal's socket, bound by the test for as long as it lives; `skipped` says why not.
class FakeJournal {
public:
    FakeJournal() {
        struct stat st {};
        if (::lstat(k_socket.c_str(), &st) == 0) {
            skipped = k_socket.string() + " exists (a journal runs here)";
            return;
        }
        std::error_code ec;
        for (auto folder : {k_socket.parent_path().parent_path(), k_socket.parent_path()}) {
            if (!std::filesystem::exists(folder)) {
                if (!std::filesystem::create_directory(folder, ec)) {
                    skipped = "cannot make " + folder.string() + ": " + ec.message();
                    return;
                }
                m_made.insert(m_made.begin(), folder);
            }
        }
        m_fd = ::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
        sockaddr_un address{};
        address.sun_family = AF_UNIX;
        std::strncpy(address.sun_path, k_socket.c_str(), sizeof address.sun_path - 1);
        if (m_fd < 0 || ::bind(m_fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0) {
            skipped = "cannot bind " + k_socket.string() + ": " + std::strerror(errno);
            return;
        }
        m_bound = true;
        const int size = 4 << 20;
        ::setsockopt(m_fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof size);
    }
    ~FakeJournal() {
        if (m_fd >= 0) {
            ::close(m_fd);
        }
        std::error_code ec;
        if (m_bound) {
            std::filesystem::remove(k_socket, ec);
        }
        for (const auto& folder : m_made) {
            std::filesystem::remove(folder, ec);  // only if still empty
        }
    }
    FakeJournal(const FakeJournal&) = delete;
    FakeJournal& operator=(const FakeJournal&) = delete;

    // The entries wacamp sent since the last call (others' are left out).
    std::vector<Entry> entries() {
        std::vector<Entry> out;
        std::string buffer(1 << 20, '\0');
        for (;;) {
            const auto n = ::recv(m_fd, buffer.data(), buffer.size(), 0);
            if (n < 0) {
                break;
            }
            auto entry = parse_entry(buffer.substr(0, static_cast<size_t>(n)));
            if (entry["SYSLOG_IDENTIFIER"] == "wacamp") {
                out.push_back(std::move(entry));
            }
        }
        return out;
    }

    std::string skipped;

private:
    int m_fd = -1;
    bool m_bound = false;
    std::vector<std::filesystem::path> m_made;
};

// Runs wacamp with stdout and stderr on files, JOURNAL_STREAM naming stderr's (and stdout on
// the same file when `both`, as systemd's StandardOutput=journal leaves them).
struct JournaledRun {
    int exit_code = -1;
    std::string out;
    std::string err;
};

JournaledRun run_journaled(const CampaignFixture& f, const std::vector<std::string>& args, bool both) {
    const auto out_path = f.dir.path() / "journal-out";
    const auto err_path = f.dir.path() / "journal-err";
    const int out_fd = ::open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    const int err_fd = both ? out_fd : ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    const int in_fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
    REQUIRE(out_fd >= 0);
    REQUIRE(err_fd >= 0);
    struct stat st {};
    REQUIRE(::fstat(err_fd, &st) == 0);
    auto env = f.env;
    env["JOURNAL_STREAM"] = std::to_string(st.st_dev) + ":" + std::to_string(st.st_ino);
    std::vector<std::string> argv{WACAMP_BINARY};
    argv.insert(argv.end(), args.begin(), args.end());
    const pid_t pid = spawn_process(argv, env, in_fd, out_fd, err_fd);
    ::close(in_fd);
    ::close(out_fd);
    if (!both) {
        ::close(err_fd);
    }
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    JournaledRun run;
    run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    run.out = read_file(out_path);
    run.err = both ? std::string() : read_file(err_path);
    return run;
}

std::vector<Entry> of_event(const std::vector<Entry>& all, const std::string& event) {
    std::vector<Entry> out;
    for (const auto& e : all) {
        if (e.count("WACAMP_EVENT") == 1 && e.at("WACAMP_EVENT") == event) {
            out.push_back(e);
        }
    }
    return out;
}

std::string all_text(const std::vector<Entry>& entries) {
    std::string text;
    for (const auto& e : entries) {
        for (const auto& [key, value] : e) {
            text += key + "=" + value + "\n";
        }
    }
    return text;
}

}  // namespace

TEST_SUITE("e2e: journald") {
    TEST_CASE("stderr connected to the journal: entries with fields, priorities from the level, nothing on stderr") {
        FakeJournal journal;
        if (!journal.skipped.empty()) {
            std::printf("wacamp-test-skipped: %s\n", journal.skipped.c_str());
            return;
        }
        Sandbox sandbox({"--reject-number", numbers_wa_id(1)});
        CampaignFixture f(sandbox, numbers_csv(4));
        auto run = run_journaled(f, {"run", f.campaign.string(), "--yes"}, false);
        CAPTURE(run.err);
        CHECK(run.exit_code == 1);
        CHECK(run.err.empty());                      // every diagnostic went to the journal
        CHECK(contains(run.out, "e2e: completed"));  // stdout is not the journal's stream here
        const auto entries = journal.entries();
        CAPTURE(all_text(entries));
        REQUIRE_FALSE(entries.empty());
        for (const auto& e : entries) {
            CHECK(e.count("MESSAGE") == 1);
            CHECK(e.count("PRIORITY") == 1);
            CHECK(e.at("WACAMP_CAMPAIGN") == "e2e");
        }
        const auto errors = of_event(entries, "error");
        REQUIRE(errors.size() == 1);
        CHECK(errors[0].at("PRIORITY") == "3");
        CHECK(errors[0].at("WACAMP_EXIT_CODE") == "1");
        CHECK(contains(errors[0].at("MESSAGE"), "1 recipient(s) failed"));
        CHECK_FALSE(leaks(k_access_token, {all_text(entries), run.out}));
    }
    TEST_CASE("stdout on the journal too: the summary is an entry of its own with the counts as fields") {
        FakeJournal journal;
        if (!journal.skipped.empty()) {
            std::printf("wacamp-test-skipped: %s\n", journal.skipped.c_str());
            return;
        }
        Sandbox sandbox;
        CampaignFixture f(sandbox, numbers_csv(3));
        auto run = run_journaled(f, {"run", f.campaign.string(), "--yes", "--log-format", "json"}, true);
        CHECK(run.exit_code == 0);
        CHECK(run.out.empty());
        const auto entries = journal.entries();
        CAPTURE(all_text(entries));
        const auto summaries = of_event(entries, "summary");
        REQUIRE(summaries.size() == 1);
        CHECK(summaries[0].at("PRIORITY") == "6");
        CHECK(summaries[0].at("WACAMP_SENT") == "3");
        CHECK(summaries[0].at("WACAMP_REASON") == "completed");
        CHECK(contains(summaries[0].at("MESSAGE"), "e2e: completed"));
        CHECK_FALSE(of_event(entries, "progress").empty());  // the first progress report comes at once
    }
}
