// Interruptions. Signals: a first SIGINT/SIGTERM stops gracefully, a second at once. Crash
// safety: `wacamp run` killed with SIGKILL at many moments — before the first request,
// at different depths of sending, during the deletion step, right at the end — and resumed
// each time, must never deliver a message twice except to a recipient whose outcome was
// unknown and who was resent on purpose (--resend-unknown), and must leave no one out.

#include <doctest/doctest.h>
#include <fmt/format.h>
#include <csignal>
#include <set>
#include <thread>

#include "fixtures.hpp"
#include "ledger_probe.hpp"

using namespace e2e;

namespace {

constexpr int k_rows = 100;
constexpr int k_concurrency = 4;
constexpr int k_batch_size = 10;

// When to kill: after a delay, or once this run has written `amount` records of a kind.
enum class Trigger { delay_ms, attempts, results, end_record, deletes };

struct Moment {
    const char* what;
    Trigger trigger;
    int amount;
};

// One life of a campaign: killed at each moment in turn, each time continued by the next
// command (run, resume, resume --resend-unknown).
const std::vector<Moment> k_life = {
    {"at once (before the first request)", Trigger::delay_ms, 0},
    {"early (starting up)", Trigger::delay_ms, 25},
    {"with the first request in flight", Trigger::attempts, 1},
    {"after 3 results", Trigger::results, 3},
    {"after 17 requests", Trigger::attempts, 17},
    {"after 30 results", Trigger::results, 30},
    {"as the sends end (end record)", Trigger::end_record, 1},
    {"during the deletion step (after 2 batches)", Trigger::deletes, 2},
    {"right at the end (after the last batch)", Trigger::deletes, k_rows / k_batch_size},
};

size_t occurrences(const std::string& text, const std::string& what) {
    size_t n = 0;
    for (size_t pos = text.find(what); pos != std::string::npos; pos = text.find(what, pos + 1)) {
        ++n;
    }
    return n;
}

// What the log written since `offset` holds of `trigger`'s kind.
int written_since(const std::filesystem::path& log, size_t offset, Trigger trigger) {
    const std::string text = read_file(log);
    const std::string fresh = text.size() > offset ? text.substr(offset) : std::string();
    switch (trigger) {
    case Trigger::attempts: return static_cast<int>(occurrences(fresh, "\"event\":\"attempt\""));
    case Trigger::results: return static_cast<int>(occurrences(fresh, "\"event\":\"result\""));
    case Trigger::end_record: return static_cast<int>(occurrences(fresh, "\"event\":\"end\""));
    case Trigger::deletes: return static_cast<int>(occurrences(fresh, "\"event\":\"delete\""));
    case Trigger::delay_ms: return 0;
    }
    return 0;
}

// Waits for `moment` (a few seconds at most: the run may finish first).
void wait_for(const Moment& moment, const std::filesystem::path& log, size_t offset) {
    if (moment.trigger == Trigger::delay_ms) {
        std::this_thread::sleep_for(std::chrono::milliseconds(moment.amount));
        return;
    }
    for (int i = 0; i < 5000 && written_since(log, offset, moment.trigger) < moment.amount; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
}

// Rows whose latest record is an attempt written since `offset`: in flight when the process died.
int died_in_flight(const std::filesystem::path& log, size_t offset) {
    std::map<long long, bool> fresh_attempt_last;
    size_t at = 0;
    const std::string text = read_file(log);
    for (size_t end = text.find('\n'); end != std::string::npos; at = end + 1, end = text.find('\n', at)) {
        auto j = nlohmann::json::parse(text.substr(at, end - at), nullptr, false);
        if (j.is_discarded() || !j.contains("row")) {
            continue;
        }
        const auto event = j.value("event", "");
        if (event == "attempt" || event == "result") {
            fresh_attempt_last[j["row"].get<long long>()] = event == "attempt" && at >= offset;
        }
    }
    int n = 0;
    for (const auto& [row, in_flight] : fresh_attempt_last) {
        n += in_flight ? 1 : 0;
    }
    return n;
}

std::set<std::string> unknown_wa_ids(const CampaignFixture& f) {
    std::set<std::string> out;
    for (const auto& [row, status] : f.final_status()) {
        if (status == "unknown") {
            out.insert(numbers_wa_id(static_cast<int>(row) - 1));
        }
    }
    return out;
}

struct Figures {
    int kills = 0;
    int killed_mid_run = 0;     // the process was still running when killed
    int killed_in_cleanup = 0;  // of them, after the sends ended (during the deletion step)
    int in_flight_at_death = 0;
    int max_in_flight_at_death = 0;
    int resent_unknown = 0;
    int duplicates = 0;
};

// Lives one campaign through every moment of k_life, then finishes it and checks the journal.
void live(const std::vector<std::string>& commands, Figures& figures) {
    // Some 5xx too (not delivered), so that some kills land while a retry waits its backoff.
    Sandbox sandbox({"--latency", "4", "--latency-jitter", "12", "--seed", "3", "--error-rate", "0.1"});
    CampaignFixture f(sandbox, numbers_csv(k_rows),
                      fmt::format("rate: {{per_second: 400, concurrency: {}}}\n"
                                  "retry: {{max_attempts: 20, initial_backoff: 20ms, max_backoff: 200ms}}\n"
                                  "cleanup: {{delete_contacts: true, batch_size: {}}}\n",
                                  k_concurrency, k_batch_size));
    std::map<std::string, int> resent;  // number → --resend-unknown runs that began with it unknown
    const auto note_resent = [&] {
        for (const auto& wa_id : unknown_wa_ids(f)) {
            ++resent[wa_id];
        }
    };
    for (size_t i = 0; i < k_life.size(); ++i) {
        const Moment& moment = k_life[i];
        std::vector<std::string> args = {"run", f.campaign.string(), "--no-progress"};
        const std::string& command = commands[i % commands.size()];
        if (command != "run" && std::filesystem::exists(f.log)) {
            args = {"resume", f.log.string(), "--no-progress"};
            if (command == "resume --resend-unknown") {
                args.push_back("--resend-unknown");
                note_resent();
            }
        }
        const size_t offset = read_file(f.log).size();
        Background process(args, f.env);
        wait_for(moment, f.log, offset);
        process.signal(SIGKILL);
        const int code = process.wait();
        CAPTURE(moment.what);
        CAPTURE(process.err());
        CHECK((code == 128 + SIGKILL || code == 0 || code == 1));
        ++figures.kills;
        figures.killed_mid_run += code == 128 + SIGKILL ? 1 : 0;
        figures.killed_in_cleanup +=
            code == 128 + SIGKILL && written_since(f.log, offset, Trigger::end_record) > 0 ? 1 : 0;
        const int in_flight = died_in_flight(f.log, offset);
        CHECK(in_flight <= k_concurrency);
        figures.in_flight_at_death += in_flight;
        figures.max_in_flight_at_death = std::max(figures.max_in_flight_at_death, in_flight);
        // Every line is whole: a kill between two write(2)s tears nothing.
        const std::string text = read_file(f.log);
        CHECK((text.empty() || text.back() == '\n'));
        CHECK(occurrences(text, "\n") == f.records().size());
    }
    // Finish: resend what is unknown (it may or may not have been delivered), until done.
    int code = 1;
    for (int pass = 0; pass < 5 && code != 0; ++pass) {
        note_resent();
        auto r = f.wacamp({"resume", f.log.string(), "--resend-unknown", "--no-progress"});
        code = r.exit_code;
        CAPTURE(r.err);
        CHECK((code == 0 || code == 1));
    }
    CHECK(code == 0);
    for (const auto& [wa_id, times] : resent) {
        figures.resent_unknown += times;
    }

    auto sent = delivered(sandbox);
    for (int i = 0; i < k_rows; ++i) {
        const std::string wa_id = numbers_wa_id(i);
        CAPTURE(wa_id);
        CHECK(sent[wa_id] >= 1);  // no one missing
        // A second message only to an unknown recipient resent on purpose, once per resend at most.
        CHECK(sent[wa_id] <= 1 + resent[wa_id]);
        figures.duplicates += std::max(0, sent[wa_id] - 1);
    }
    CHECK(status_counts(f)["sent"] == k_rows);
    // Every contact deleted (a batch may have gone twice: setting a status again is harmless).
    std::set<std::string> deleted;
    for (const auto& j : sandbox.journal()) {
        if (j.value("path", "") == "/inbox/users/status-update" && j.value("outcome", "") == "ok") {
            for (const auto& id : j["body"]["ids"]) {
                deleted.insert(id.get<std::string>());
            }
        }
    }
    CHECK(deleted.size() == static_cast<size_t>(k_rows));
}

// Lives a campaign through kills that land between the result log and the ledger: each run
// (--limit 12) dispatches its rows, then the ledger's write lock is taken (as a busy runner
// would hold it) while the last answers reach the log, and the process is killed before it can
// record them. Returns how many kills left the ledger behind the log.
int kill_between_log_and_ledger(const CampaignFixture& f, const std::string& account) {
    const std::filesystem::path ledger = std::filesystem::path(f.env.at("XDG_STATE_HOME")) / "wacamp" / "ledger.sqlite";
    int behind = 0;
    for (int kill = 0; kill < 4; ++kill) {
        const size_t offset = read_file(f.log).size();
        Background process({"run", f.campaign.string(), "--limit", "12", "--no-progress"}, f.env);
        wait_for({"after 12 requests", Trigger::attempts, 12}, f.log, offset);
        {
            LedgerLock lock(ledger);
            const int results = written_since(f.log, offset, Trigger::results);
            for (int i = 0; i < 3000 && written_since(f.log, offset, Trigger::results) == results; ++i) {
                std::this_thread::sleep_for(std::chrono::milliseconds(1));
            }
            process.signal(SIGKILL);
            const int code = process.wait();
            CHECK((code == 128 + SIGKILL || code == 0 || code == 1));
        }
        int in_log = 0;
        for (const auto& [row, status] : f.final_status()) {
            in_log += status == "sent" ? 1 : 0;
        }
        int in_ledger = 0;
        for (const auto& send : LedgerProbe(ledger, account).sends()) {
            in_ledger += send.state == "sent" ? 1 : 0;
        }
        behind += in_ledger < in_log ? 1 : 0;
    }
    return behind;
}

}  // namespace

TEST_SUITE("e2e: crash") {
    TEST_CASE("SIGINT stops the run like SIGTERM: in-flight requests recorded, end line, exit 3") {
        Sandbox sandbox({"--latency", "100"});
        const int n = 60;
        CampaignFixture f(sandbox, numbers_csv(n), "rate: {per_second: 20, concurrency: 3}\n");
        Background run({"run", f.campaign.string(), "--no-progress"}, f.env);
        wait_for_delivered(sandbox, 5);
        run.signal(SIGINT);
        CHECK(run.wait() == 3);
        auto records = f.records();
        REQUIRE(!records.empty());
        CHECK(records.back()["event"] == "end");
        CHECK(records.back()["reason"] == "interrupted");
        CHECK(status_counts(f)["unknown"] == 0);
        CHECK(run.out().find("wacamp resume") != std::string::npos);
        CHECK(f.wacamp({"resume", f.log.string(), "--no-progress"}).exit_code == 0);
        CHECK(once_each(delivered(sandbox), n) == "");
    }
    TEST_CASE("a second signal stops at once; the log it leaves lets resume finish with none twice") {
        Sandbox sandbox({"--latency", "400"});
        const int n = 40;
        const int concurrency = 4;
        CampaignFixture f(sandbox, numbers_csv(n), "rate: {per_second: 50, concurrency: 4}\n");
        Background run({"run", f.campaign.string(), "--no-progress"}, f.env);
        wait_for_delivered(sandbox, 4);
        run.signal(SIGINT);
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        run.signal(SIGTERM);
        CHECK(run.wait() == 3);
        auto records = f.records();
        REQUIRE(!records.empty());
        CHECK(records.back()["event"] == "end");
        CHECK(records.back()["reason"] == "interrupted");
        // The requests it did not wait for are unknown: recorded as such, at most one per slot.
        const int unknown = status_counts(f)["unknown"];
        CHECK(unknown <= concurrency);
        auto resumed = f.wacamp({"resume", f.log.string(), "--no-progress"});
        CHECK(resumed.exit_code == (unknown > 0 ? 1 : 0));
        auto counts = status_counts(f);
        CHECK(counts["sent"] + counts["unknown"] == n);
        CHECK(counts["unknown"] == unknown);
        // The sandbox answered the abandoned requests after the client left: delivered, once.
        std::this_thread::sleep_for(std::chrono::milliseconds(500));
        auto sent = delivered(sandbox);
        for (const auto& [wa_id, times] : sent) {
            CAPTURE(wa_id);
            CHECK(times == 1);
        }
        CHECK(sent.size() >= static_cast<size_t>(counts["sent"]));
    }
    TEST_CASE("SIGINT during the deletion step stops it with exit 3; delete-contacts finishes it") {
        Sandbox sandbox({"--latency", "150"});
        const int n = 12;
        CampaignFixture f(sandbox, numbers_csv(n),
                          "rate: {per_second: 500, concurrency: 4}\ncleanup: {delete_contacts: true, batch_size: 1}\n");
        Background run({"run", f.campaign.string(), "--no-progress"}, f.env);
        for (int i = 0; i < 500 && count_events(f, "delete") < 1; ++i) {
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
        }
        run.signal(SIGINT);
        CHECK(run.wait() == 3);
        CAPTURE(run.out());
        CHECK(count_events(f, "delete") < n);
        CHECK(run.out().find("wacamp delete-contacts " + f.log.string()) != std::string::npos);
        auto finished = f.wacamp({"delete-contacts", f.log.string()});
        CHECK(finished.exit_code == 0);
        std::set<std::string> deleted;
        for (const auto& rec : f.records()) {
            if (rec.value("event", "") == "delete" && rec.value("status", "") == "deleted") {
                deleted.insert(rec["ids"][0].get<std::string>());
            }
        }
        CHECK(deleted.size() == static_cast<size_t>(n));
        CHECK(once_each(delivered(sandbox), n) == "");
    }
    TEST_CASE("an empty log (left by a kill before its first record) is started afresh by run") {
        Sandbox sandbox;
        CampaignFixture f(sandbox, numbers_csv(3));
        f.dir.write("results/e2e.jsonl", "");
        auto resumed = f.wacamp({"resume", f.log.string()});
        CHECK(resumed.exit_code == 2);
        CHECK(resumed.err.find("is empty") != std::string::npos);
        CHECK(resumed.err.find("wacamp run") != std::string::npos);
        CHECK(f.wacamp({"run", f.campaign.string()}).exit_code == 0);
        CHECK(f.records().front()["event"] == "campaign");
        CHECK(once_each(delivered(sandbox), 3) == "");
    }
    TEST_CASE("SIGKILL between the result log and the ledger: the next run folds in what the ledger missed") {
        const std::set<int> opted_out = {4, 17, 29};
        std::vector<std::string> args = {"--latency", "20", "--latency-jitter", "20", "--seed", "5"};
        for (const int i : opted_out) {
            args.insert(args.end(), {"--meta-error", numbers_wa_id(i) + "=131050"});
        }
        Sandbox sandbox(args);
        const int n = 60;
        CampaignFixture f(sandbox, numbers_csv(n), "rate: {per_second: 100, concurrency: 4}\n");
        const std::string account = "127.0.0.1:" + std::to_string(sandbox.port());
        const int behind = kill_between_log_and_ledger(f, account);
        MESSAGE(fmt::format("ledger crash test: {} of 4 kills left the ledger behind the log", behind));
        CHECK(behind >= 1);
        int code = 1;
        for (int pass = 0; pass < 4; ++pass) {
            auto r = f.wacamp({"resume", f.log.string(), "--resend-unknown", "--no-progress"});
            CAPTURE(r.err);
            code = r.exit_code;
            if (status_counts(f)["unknown"] == 0 && status_counts(f)["sent"] == n - 3) {
                break;
            }
        }
        CHECK(code == 1);  // the three opted-out numbers failed
        CHECK(status_counts(f)["sent"] == n - 3);
        // The ledger agrees with the log: every opt-out present, every delivered row counted once.
        const std::filesystem::path ledger =
            std::filesystem::path(f.env.at("XDG_STATE_HOME")) / "wacamp" / "ledger.sqlite";
        const LedgerProbe probe(ledger, account);
        const auto listed = probe.suppressions();
        CHECK(listed.size() == opted_out.size());
        for (const int i : opted_out) {
            CAPTURE(i);
            REQUIRE(listed.contains(numbers_wa_id(i)));
            CHECK(listed.at(numbers_wa_id(i)).reason == "opted_out");
        }
        std::set<long long> counted;
        for (const auto& send : probe.sends()) {
            CAPTURE(send.row);
            CHECK(send.state == "sent");
            CHECK(counted.insert(send.row).second);
            CHECK(send.wa_id == numbers_wa_id(static_cast<int>(send.row) - 1));
        }
        for (const auto& [row, status] : f.final_status()) {
            CAPTURE(row);
            CHECK(counted.contains(row) == (status == "sent"));
        }
        CHECK(counted.size() == static_cast<size_t>(n - 3));
    }
    TEST_CASE("SIGKILL at 27 moments: resumed each time, no one twice unless resent unknown, no one missing") {
        Figures figures;
        live({"run", "resume", "resume --resend-unknown"}, figures);
        live({"resume --resend-unknown", "run", "resume"}, figures);
        live({"resume", "resume --resend-unknown", "run"}, figures);
        MESSAGE(
            fmt::format("crash test: {} kills ({} mid-run, {} of them in the deletion step), {} requests in "
                        "flight at death (at most {} at once), {} resends of unknown recipients, {} duplicate "
                        "deliveries (all among them)",
                        figures.kills, figures.killed_mid_run, figures.killed_in_cleanup, figures.in_flight_at_death,
                        figures.max_in_flight_at_death, figures.resent_unknown, figures.duplicates));
        CHECK(figures.kills >= 20);
        CHECK(figures.killed_mid_run >= 20);
        CHECK(figures.killed_in_cleanup >= 2);
        CHECK(figures.duplicates <= figures.resent_unknown);
    }
}
