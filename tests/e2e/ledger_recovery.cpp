#include "ledger_recovery.hpp"

#include <doctest/doctest.h>
#include <fmt/format.h>

#include <fstream>
#include <sstream>
#include <vector>

namespace e2e {

namespace {

std::vector<std::string> lines_of(const std::filesystem::path& path) {
    std::ifstream in(path);
    std::vector<std::string> lines;
    for (std::string line; std::getline(in, line);) {
        lines.push_back(line);
    }
    return lines;
}

// Keeps the first `count` lines of the log at `path`, as a power cut or an older copy would.
void keep_lines(const std::filesystem::path& path, std::size_t count) {
    auto lines = lines_of(path);
    REQUIRE(count <= lines.size());
    std::ofstream out(path, std::ios::trunc);
    for (std::size_t i = 0; i < count; ++i) {
        out << lines[i] << '\n';
    }
}

// The rows whose last result says it was recovered from the ledger, with that result's status.
std::map<long long, std::string> recovered(const CampaignFixture& f) {
    std::map<long long, std::string> out;
    for (const auto& r : f.records()) {
        if (r.value("event", "") == "result") {
            const auto row = r["row"].get<long long>();
            if (r.value("recovered", "") == "ledger") {
                out[row] = r["status"].get<std::string>();
            } else {
                out.erase(row);
            }
        }
    }
    return out;
}

void check_all_sent(const CampaignFixture& f) {
    const auto statuses = f.final_status();
    CHECK(statuses.size() == static_cast<std::size_t>(k_recovery_rows));
    for (const auto& [row, status] : statuses) {
        CAPTURE(row);
        CHECK(status == "sent");
    }
}

}  // namespace

void check_restored_log(const Sandbox& sandbox, const CampaignFixture& f) {
    const int n = k_recovery_rows;
    auto first = f.wacamp({"run", f.campaign.string(), "--no-progress", "--limit", "6"});
    CAPTURE(first.err);
    REQUIRE(total_delivered(sandbox) == 6);
    const auto backup = f.log.string() + ".backup";
    std::filesystem::copy_file(f.log, backup);
    auto rest = f.wacamp({"run", f.campaign.string(), "--no-progress"});
    CAPTURE(rest.err);
    REQUIRE(rest.exit_code == 0);
    REQUIRE(once_each(delivered(sandbox), n) == "");
    std::filesystem::copy_file(backup, f.log, std::filesystem::copy_options::overwrite_existing);

    auto resumed = f.wacamp({"resume", f.log.string(), "--no-progress"});
    CAPTURE(resumed.out);
    CAPTURE(resumed.err);
    CHECK(resumed.exit_code == 0);
    CHECK(once_each(delivered(sandbox), n) == "");  // 14 rows the copy lacked: none sent again
    const auto found = recovered(f);
    CHECK(found.size() == static_cast<std::size_t>(n - 6));
    for (const auto& [row, status] : found) {
        CAPTURE(row);
        CHECK(row > 6);
        CHECK(status == "sent");
    }
    check_all_sent(f);
    CHECK(contains(resumed.out + resumed.err, fmt::format("recovered from the account's ledger: {} row(s)", n - 6)));
    // Counted as sent by the report too.
    auto report = f.wacamp({"report", f.log.string(), "--format", "json"});
    CAPTURE(report.out);
    CHECK(report.exit_code == 0);
    CHECK(contains(report.out, fmt::format("\"sent\": {}", n)));
    // And a later run finds nothing to do.
    auto again = f.wacamp({"run", f.campaign.string(), "--no-progress"});
    CHECK(again.exit_code == 0);
    CHECK(once_each(delivered(sandbox), n) == "");
}

void check_shortened_log(const Sandbox& sandbox, const CampaignFixture& f) {
    const int n = k_recovery_rows;
    auto full = f.wacamp({"run", f.campaign.string(), "--no-progress"});
    CAPTURE(full.err);
    REQUIRE(full.exit_code == 0);
    REQUIRE(once_each(delivered(sandbox), n) == "");
    const auto lines = lines_of(f.log);
    keep_lines(f.log, lines.size() / 2);

    auto rerun = f.wacamp({"run", f.campaign.string(), "--no-progress"});
    CAPTURE(rerun.out);
    CAPTURE(rerun.err);
    CHECK(once_each(delivered(sandbox), n) == "");
    CHECK(contains(rerun.out + rerun.err, "recovered from the account's ledger"));
    CHECK_FALSE(recovered(f).empty());
    // Rows the cut left in flight (an attempt, no result) are unknown to the log; the ledger holds
    // them as sent, so no flag sends them again.
    auto resent = f.wacamp({"resume", f.log.string(), "--no-progress", "--resend-unknown", "--retry-failed"});
    CAPTURE(resent.out);
    CAPTURE(resent.err);
    CHECK(resent.exit_code == 0);
    CHECK(once_each(delivered(sandbox), n) == "");
    check_all_sent(f);
}

void check_reserved_without_record(const Sandbox& sandbox, const CampaignFixture& f,
                                   const std::function<void(const std::string& wa_id)>& unconfirm) {
    const int n = k_recovery_rows;
    const int row = 15;
    const std::string wa_id = numbers_wa_id(row - 1);
    auto full = f.wacamp({"run", f.campaign.string(), "--no-progress"});
    CAPTURE(full.err);
    REQUIRE(full.exit_code == 0);
    REQUIRE(once_each(delivered(sandbox), n) == "");
    unconfirm(wa_id);
    // The log up to the row's first line: its attempt and result are lost.
    const auto lines = lines_of(f.log);
    const std::string mark = fmt::format("\"row\":{},", row);
    std::size_t keep = 0;
    while (keep < lines.size() && lines[keep].find(mark) == std::string::npos) {
        ++keep;
    }
    REQUIRE(keep < lines.size());
    keep_lines(f.log, keep);

    auto resumed = f.wacamp({"resume", f.log.string(), "--no-progress"});
    CAPTURE(resumed.out);
    CAPTURE(resumed.err);
    CHECK(resumed.exit_code == 1);  // one row unknown
    CHECK(once_each(delivered(sandbox), n) == "");
    const auto found = recovered(f);
    REQUIRE(found.contains(row));
    CHECK(found.at(row) == "unknown");
    for (const auto& [other, status] : found) {
        if (other != row) {
            CHECK(status == "sent");
        }
    }
    CHECK(contains(resumed.out + resumed.err, "--resend-unknown"));

    // The person decides to send it again: rate.per_recipient's max 1 does not count the row's
    // own reservation.
    auto resent = f.wacamp({"resume", f.log.string(), "--no-progress", "--resend-unknown"});
    CAPTURE(resent.out);
    CAPTURE(resent.err);
    CHECK(resent.exit_code == 0);
    CHECK(requests_for(sandbox, wa_id) == 2);
    CHECK(total_delivered(sandbox) == n + 1);
    check_all_sent(f);
}

void check_older_log_after_retry(const Sandbox& sandbox, const CampaignFixture& f,
                                 const std::function<void(const std::string& wa_id)>& hold_second) {
    const int n = k_recovery_rows;
    const int row = 12;
    const std::string wa_id = numbers_wa_id(row - 1);
    auto full = f.wacamp({"run", f.campaign.string(), "--no-progress"});
    CAPTURE(full.err);
    REQUIRE(full.exit_code == 0);
    REQUIRE(once_each(delivered(sandbox), n) == "");
    hold_second(wa_id);
    // The older copy: up to the row's first attempt, then its answer, a failure the service gave
    // (it never reached the number); the rest of the log is not in the copy.
    const auto lines = lines_of(f.log);
    const std::string mark = fmt::format("\"row\":{},", row);
    std::size_t attempt = 0;
    while (attempt < lines.size() && lines[attempt].find(mark) == std::string::npos) {
        ++attempt;
    }
    REQUIRE(attempt + 1 < lines.size());
    auto result = nlohmann::json::parse(lines[attempt + 1]);
    REQUIRE(result.value("event", "") == "result");
    REQUIRE(result["row"] == row);
    result["status"] = "failed";
    result["cause"] = "transient";
    result["http_status"] = 503;
    result["error"] = "HTTP 503";
    result["attempts"] = 1;
    result.erase("message_id");
    keep_lines(f.log, attempt + 1);
    {
        std::ofstream out(f.log, std::ios::app);
        out << result.dump() << '\n';
    }

    auto resumed = f.wacamp({"resume", f.log.string(), "--no-progress", "--retry-failed"});
    CAPTURE(resumed.out);
    CAPTURE(resumed.err);
    CHECK(resumed.exit_code == 1);  // one row unknown
    CHECK(requests_for(sandbox, wa_id) == 1);
    CHECK(once_each(delivered(sandbox), n) == "");
    const auto found = recovered(f);
    REQUIRE(found.contains(row));
    CHECK(found.at(row) == "unknown");
    CHECK(contains(resumed.out + resumed.err, "--resend-unknown"));
}

void check_copies_resumed_at_once(const Sandbox& sandbox, const CampaignFixture& f) {
    const int n = k_copies_rows;
    auto first = f.wacamp({"run", f.campaign.string(), "--no-progress", "--limit", "1"});
    CAPTURE(first.err);
    REQUIRE(first.exit_code == 0);
    const auto copy = f.log.parent_path() / "copy.jsonl";
    std::filesystem::copy_file(f.log, copy);
    Background a({"resume", f.log.string(), "--no-progress"}, f.env);
    Background b({"resume", copy.string(), "--no-progress"}, f.env);
    const int code_a = a.wait();
    const int code_b = b.wait();
    CAPTURE(a.err());
    CAPTURE(b.err());
    // 1: some rows are unknown (held by the other run while this one asked for them).
    CHECK((code_a == 0 || code_a == 1));
    CHECK((code_b == 0 || code_b == 1));
    CHECK(once_each(delivered(sandbox), n) == "");  // before the fix: hundreds of numbers twice

    // Each log's rows: their final status, and whether that result was learnt from the ledger.
    struct Row {
        std::string status;
        bool recovered = false;
    };
    auto rows_of = [](const std::filesystem::path& log) {
        std::map<long long, Row> out;
        for (const auto& [row, status] : final_status_of(log)) {
            out[row].status = status;
        }
        for (const auto& r : read_jsonl(log)) {
            if (r.value("event", "") == "result") {
                out[r["row"].get<long long>()].recovered = r.value("recovered", "") == "ledger";
            }
        }
        return out;
    };
    const auto in_a = rows_of(f.log);
    const auto in_b = rows_of(copy);
    int own_a = 0;  // rows each run sent itself
    int own_b = 0;
    int recovered = 0;
    for (long long row = 2; row <= n; ++row) {
        CAPTURE(row);
        const Row a_row = in_a.contains(row) ? in_a.at(row) : Row{};
        const Row b_row = in_b.contains(row) ? in_b.at(row) : Row{};
        CAPTURE(a_row.status);
        CAPTURE(b_row.status);
        // One run sent it; the other recorded it from the ledger: sent, or unknown while held.
        const bool by_a = a_row.status == "sent" && !a_row.recovered;
        const bool by_b = b_row.status == "sent" && !b_row.recovered;
        CHECK(by_a != by_b);
        CHECK((by_a ? b_row.recovered : a_row.recovered));
        CHECK(((by_a ? b_row : a_row).status == "sent" || (by_a ? b_row : a_row).status == "unknown"));
        own_a += by_a ? 1 : 0;
        own_b += by_b ? 1 : 0;
        recovered += (a_row.recovered ? 1 : 0) + (b_row.recovered ? 1 : 0);
    }
    CHECK(contains(a.out() + b.out(), "another run sending from a copy of it"));
    MESSAGE(
        fmt::format("two copies of one log resumed at once: {} rows sent by the log's run, {} by the copy's, "
                    "{} recorded from the ledger",
                    own_a, own_b, recovered));
    // Both ran at the same time (else this tells nothing of two runs at once).
    CHECK(own_a > 0);
    CHECK(own_b > 0);

    // Both ended: --resend-unknown on either log finds its unknown rows sent in the ledger, and
    // records them so, sending nothing.
    for (const auto* log : {&f.log, &copy}) {
        auto resent = f.wacamp({"resume", log->string(), "--no-progress", "--resend-unknown"});
        CAPTURE(resent.err);
        CHECK(resent.exit_code == 0);
        for (const auto& [row, status] : final_status_of(*log)) {
            CAPTURE(row);
            CHECK(status == "sent");
        }
    }
    CHECK(once_each(delivered(sandbox), n) == "");
    CHECK(total_delivered(sandbox) == n);
}

}  // namespace e2e
