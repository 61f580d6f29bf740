#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <variant>

#include "fakes.hpp"
#include "results/log_reader.hpp"
#include "results/replay.hpp"
#include "results/wa_id_set.hpp"
#include "util/time.hpp"

using namespace std::chrono_literals;
using results::Status;

namespace {

using fakes::TempDir;

// Writes `text` to a log in a fresh folder and replays it.
struct Fixture {
    TempDir dir;
    std::string path = (dir.path / "log.jsonl").string();

    util::Result<results::LogState> replay(const std::string& text, const results::ReplayOptions& options = {}) {
        std::ofstream(path, std::ios::binary) << text;
        return results::replay(path, options);
    }
};

const std::string k_header =
    R"({"event":"campaign","name":"spring","campaign_file":"c.yaml","campaign_sha256":"aa",)"
    R"("recipients_file":"r.csv","recipients_sha256":"bb","started_at":"2026-11-21T09:00:00.000Z",)"
    R"("version":"0.1.0","mode":"send"})"
    "\n";

std::string attempt(int row, int n, const std::string& at = "09:30:00.000") {
    return R"({"event":"attempt","row":)" + std::to_string(row) + R"(,"wa_id":"9100000000)" + std::to_string(row) +
           R"(","attempt":)" + std::to_string(n) + R"(,"at":"2026-11-21T)" + at + "Z\"}\n";
}

std::string result(int row, const std::string& status, int attempts, const std::string& at = "09:30:01.000",
                   const std::string& cause = "") {
    return R"({"event":"result","row":)" + std::to_string(row) + R"(,"wa_id":"9100000000)" + std::to_string(row) +
           R"(","user_name":"N","status":")" + status + R"(","attempts":)" + std::to_string(attempts) +
           (cause.empty() ? "" : R"(,"cause":")" + cause + "\"") + R"(,"at":"2026-11-21T)" + at + "Z\"}\n";
}

std::string unsent(int row, int n) {
    return results::to_line(results::UnsentRecord{row, "9100000000" + std::to_string(row), n, 404, "HTTP 404",
                                                  util::TimePoint(std::chrono::seconds(1'795'000'000))});
}

// The recipient list of the join, from rows given in order.
results::RowSource rows_of(std::vector<results::ListedRow> rows) {
    auto next = std::make_shared<std::size_t>(0);
    auto list = std::make_shared<std::vector<results::ListedRow>>(std::move(rows));
    return [next, list](results::ListedRow& out) -> util::Result<bool> {
        if (*next == list->size()) {
            return false;
        }
        out = (*list)[(*next)++];
        return true;
    };
}

bool mentions(const std::vector<std::string>& warnings, const std::string& text) {
    for (const auto& w : warnings) {
        if (w.find(text) != std::string::npos) {
            return true;
        }
    }
    return false;
}

}  // namespace

TEST_SUITE("results::replay") {
    TEST_CASE("reads the header and each row's latest result") {
        Fixture f;
        auto state = f.replay(k_header + attempt(1, 1) + result(1, "sent", 1) + attempt(2, 1) +
                              result(2, "failed", 1, "09:30:02.000", "rejected") + result(4, "invalid", 0));
        REQUIRE(state.ok());
        CHECK(state->header.name == "spring");
        CHECK(state->header.recipients_sha256 == "bb");
        CHECK(state->row(1)->status == Status::sent);
        CHECK(state->row(2)->status == Status::failed);
        CHECK(state->row(2)->cause == results::Cause::rejected);
        CHECK(state->row(3)->pending());
        CHECK(state->row(4)->status == Status::invalid);
        CHECK(state->row(99)->pending());
        CHECK(state->max_row() == 4);
        CHECK(state->counts[Status::sent] == 1);
        CHECK(state->counts[Status::failed] == 1);
        CHECK(state->counts[Status::invalid] == 1);
        CHECK(state->counts.total() == 3);
        CHECK(state->records == 6);
        CHECK(state->warnings.empty());
        CHECK_FALSE(state->ended);
    }
    TEST_CASE("a later result supersedes an earlier one") {
        Fixture f;
        auto state = f.replay(k_header + attempt(1, 1) + result(1, "failed", 1, "09:30:01.000", "transient") +
                              attempt(1, 2) + result(1, "sent", 2, "09:30:05.000"));
        REQUIRE(state.ok());
        CHECK(state->row(1)->status == Status::sent);
        CHECK(state->row(1)->cause == results::Cause::none);
        CHECK(state->row(1)->attempts == 2);
        CHECK(state->counts[Status::failed] == 0);
    }
    TEST_CASE("remembers when a row's latest result was a marketing-limit refusal, and counts causes") {
        Fixture f;
        auto state = f.replay(k_header + attempt(1, 1) + result(1, "failed", 1, "09:30:01.000", "marketing_limit") +
                              attempt(2, 1) + result(2, "failed", 1, "09:30:02.000", "marketing_limit") +
                              attempt(2, 2) + result(2, "sent", 2, "09:30:03.000") + attempt(3, 1) +
                              result(3, "failed", 1, "09:30:04.000", "opted_out") + attempt(4, 1) +
                              result(4, "failed", 1, "09:30:05.000", "pair_rate") + attempt(4, 2));
        REQUIRE(state.ok());
        const auto read = state->record(1);
        REQUIRE(read.ok());
        const auto at = read->marketing_limited_at();
        REQUIRE(at.has_value());
        CHECK(util::format_timestamp(*at) == "2026-11-21T09:30:01.000Z");
        CHECK_FALSE(state->record(2)->marketing_limited_at().has_value());  // sent since
        CHECK_FALSE(state->record(3)->marketing_limited_at().has_value());
        CHECK(state->causes[results::Cause::marketing_limit] == 1);
        CHECK(state->causes[results::Cause::opted_out] == 1);
        CHECK(state->causes[results::Cause::pair_rate] == 0);  // row 4 is in flight again
    }
    TEST_CASE("an attempt with no result after it is unknown") {
        Fixture f;
        auto state = f.replay(k_header + attempt(1, 1));
        REQUIRE(state.ok());
        CHECK(state->row(1)->status == Status::unknown);
        CHECK(state->row(1)->in_flight());
        CHECK_FALSE(state->row(1)->pending());
        CHECK(state->counts[Status::unknown] == 1);
    }
    TEST_CASE("a retry in flight makes a failed row unknown") {
        Fixture f;
        auto state =
            f.replay(k_header + attempt(1, 1) + result(1, "failed", 1, "09:30:01.000", "transient") + attempt(1, 2));
        REQUIRE(state.ok());
        CHECK(state->row(1)->status == Status::unknown);
        CHECK(state->row(1)->in_flight());
        CHECK(state->row(1)->has_result());
        CHECK(state->row(1)->attempts == 2);
    }
    TEST_CASE("an unsent request leaves the row as it was before its attempt") {
        Fixture f;
        auto state = f.replay(k_header + attempt(1, 1) + unsent(1, 1) + attempt(2, 1) +
                              result(2, "failed", 1, "09:30:01.000", "transient") + attempt(2, 2) + unsent(2, 2) +
                              attempt(3, 1) + attempt(3, 2) + unsent(3, 2));
        REQUIRE(state.ok());
        CHECK(state->row(1)->pending());  // never acted on: sent by the next run
        CHECK(state->row(2)->status == Status::failed);
        CHECK(state->row(2)->cause == results::Cause::transient);
        CHECK_FALSE(state->row(2)->in_flight());
        CHECK(state->row(3)->in_flight());  // its first request may still have been delivered
        CHECK(state->row(3)->status == Status::unknown);
        CHECK(state->counts[Status::failed] == 1);
        CHECK(state->counts[Status::unknown] == 1);
        CHECK(state->counts.total() == 2);
        CHECK(state->warnings.empty());
    }
    TEST_CASE("a torn last line is ignored with a warning") {
        Fixture f;
        const std::string torn = result(1, "sent", 1).substr(0, 40);
        auto state = f.replay(k_header + attempt(1, 1) + torn);
        REQUIRE(state.ok());
        CHECK(state->row(1)->status == Status::unknown);
        CHECK(mentions(state->warnings, f.path + ":3: torn last line"));
    }
    TEST_CASE("a complete record without its newline is still a torn line") {
        Fixture f;
        std::string last = result(1, "sent", 1);
        last.pop_back();
        auto state = f.replay(k_header + attempt(1, 1) + last);
        REQUIRE(state.ok());
        CHECK(state->row(1)->status == Status::unknown);
        CHECK(state->warnings.size() == 1);
    }
    TEST_CASE("a torn line in the middle is skipped and later records still count") {
        Fixture f;
        const std::string torn = result(1, "sent", 1).substr(0, 40) + "\n";
        auto state = f.replay(k_header + attempt(1, 1) + torn + attempt(1, 2) + result(1, "sent", 2) +
                              result(2, "skipped", 0, "09:31:00.000", "duplicate"));
        REQUIRE(state.ok());
        CHECK(state->row(1)->status == Status::sent);
        CHECK(state->row(2)->status == Status::skipped);
        CHECK(state->row(2)->cause == results::Cause::duplicate);
        CHECK(mentions(state->warnings, f.path + ":3: line ignored: not valid JSON"));
        CHECK(state->warnings.size() == 1);
    }
    TEST_CASE("an unknown event is a warning, not a failure") {
        Fixture f;
        auto state =
            f.replay(k_header + R"({"event":"pause","at":"2026-11-21T09:30:00Z"})" + "\n" + result(1, "sent", 1));
        REQUIRE(state.ok());
        CHECK(mentions(state->warnings, f.path + ":2: line ignored: unknown event \"pause\""));
        CHECK(state->row(1)->status == Status::sent);
    }
    TEST_CASE("a log whose first line is not a campaign record is refused") {
        Fixture f;
        auto state = f.replay(attempt(1, 1) + k_header);
        REQUIRE_FALSE(state.ok());
        CHECK(state.error().message.find(f.path + ":1: not a wacamp result log") != std::string::npos);
        CHECK_FALSE(f.replay("not json\n" + k_header).ok());
    }
    TEST_CASE("an empty log is refused, naming it") {
        Fixture f;
        auto state = f.replay("");
        REQUIRE_FALSE(state.ok());
        CHECK(state.error().message.find(f.path) != std::string::npos);
        CHECK_FALSE(f.replay(k_header.substr(0, 30)).ok());  // the header itself torn
    }
    TEST_CASE("a missing log is an error naming it") {
        auto state = results::replay("/nonexistent/wacamp/log.jsonl");
        REQUIRE_FALSE(state.ok());
        CHECK(state.error().message.find("/nonexistent/wacamp/log.jsonl") != std::string::npos);
    }
    TEST_CASE("counts the sends of the trailing 24 hours by minute, never sooner out of the window") {
        Fixture f;
        const auto now = *util::parse_timestamp("2026-11-21T12:00:00Z", util::TimestampSyntax::rfc3339);
        auto state = f.replay(k_header + result(1, "sent", 1, "10:00:00.500") + result(2, "sent", 1, "10:00:59.000") +
                                  result(3, "sent", 1, "10:01:00.000") + result(4, "sent", 1, "13:00:00.000") +
                                  result(5, "sent", 1, "14:30:00.000"),
                              {.now = now});
        REQUIRE(state.ok());
        REQUIRE(state->recent_sent.size() == 2);
        const auto at = [](const char* text) { return *util::parse_timestamp(text, util::TimestampSyntax::rfc3339); };
        // 10:00:00.5 and 10:00:59 count until 10:01 + 24 h, 10:01:00 until exactly then.
        CHECK(state->recent_sent[0].at == at("2026-11-21T10:01:00Z"));
        CHECK(state->recent_sent[0].count == 3);
        // Later than now (a clock set back): all at the latest of them.
        CHECK(state->recent_sent[1].at == at("2026-11-21T14:30:00Z"));
        CHECK(state->recent_sent[1].count == 2);
    }
    TEST_CASE("keeps sent times of the trailing 24 hours, oldest first") {
        Fixture f;
        const std::string old = R"({"event":"result","row":1,"wa_id":"911","status":"sent",)"
                                R"("attempts":1,"at":"2026-11-20T09:00:00.000Z"})"
                                "\n";
        auto state =
            f.replay(k_header + old + result(3, "sent", 1, "11:00:00.000") + result(2, "sent", 1, "10:00:00.000") +
                         result(4, "failed", 1, "10:30:00.000", "rejected"),
                     {*util::parse_timestamp("2026-11-21T12:00:00Z", util::TimestampSyntax::rfc3339)});
        REQUIRE(state.ok());
        REQUIRE(state->recent_sent.size() == 2);
        CHECK(state->recent_sent[0].at ==
              *util::parse_timestamp("2026-11-21T10:00:00Z", util::TimestampSyntax::rfc3339));
        CHECK(state->recent_sent[0].count == 1);
        CHECK(state->recent_sent[1].at ==
              *util::parse_timestamp("2026-11-21T11:00:00Z", util::TimestampSyntax::rfc3339));
        CHECK(state->first_at == *util::parse_timestamp("2026-11-20T09:00:00Z", util::TimestampSyntax::rfc3339));
        CHECK(state->last_at == *util::parse_timestamp("2026-11-21T11:00:00Z", util::TimestampSyntax::rfc3339));
        auto no_now = f.replay(k_header + result(2, "sent", 1));
        REQUIRE(no_now.ok());
        CHECK(no_now->recent_sent.empty());
    }
    TEST_CASE("marks every row of a number sent to, even when its row was overwritten or moved") {
        Fixture f;
        const std::string other = R"({"event":"result","row":6,"wa_id":"x-91","status":"sent","attempts":1,)"
                                  R"("at":"2026-11-21T10:00:00Z"})"
                                  "\n";
        auto state = f.replay(k_header + result(1, "sent", 1) +
                                  R"({"event":"result","row":1,"wa_id":"447700900123",)"
                                  R"("status":"failed","attempts":1,"cause":"rejected",)"
                                  R"("at":"2026-11-21T10:00:00Z"})"
                                  "\n" +
                                  other,
                              {.rows = rows_of({{1, "91000000001", ""},
                                                {2, "447700900123", ""},
                                                {3, "", ""},
                                                {5, "91000000001", ""},
                                                {7, "x-91", ""},
                                                {8, "091000000001", ""}})});
        REQUIRE(state.ok());
        CHECK(state->joined());
        const auto sent = [&](std::int64_t row) {
            auto rec = state->record(row);
            REQUIRE(rec.ok());
            return rec->marked(results::RowRecord::k_number_sent);
        };
        CHECK(sent(1));
        CHECK(sent(5));  // the same number on another row
        CHECK(sent(7));  // a wa_id that is no number code
        CHECK_FALSE(sent(2));
        CHECK_FALSE(sent(3));
        CHECK_FALSE(sent(8));  // a leading zero is another number
        CHECK(state->row(1)->status == Status::failed);
        CHECK(state->row(1)->ever_sent());
        CHECK(state->max_row() == 6);
        CHECK_FALSE(f.replay(k_header + result(1, "sent", 1))->joined());
    }
    TEST_CASE("numbers of unknown outcome under an earlier list mark their rows in the new one") {
        Fixture f;
        std::string second = k_header;
        second.replace(second.find("\"bb\""), 4, "\"cc\"");
        const std::string odd = R"({"event":"attempt","row":9,"wa_id":"x-9","attempt":1,)"
                                R"("at":"2026-11-21T10:00:00Z"})"
                                "\n";
        auto state = f.replay(k_header + attempt(1, 1) + result(2, "sent", 1) + attempt(3, 1) + result(3, "sent", 1) +
                                  result(5, "unknown", 1) + odd + second,
                              {.rows = rows_of({{1, "91000000002", ""},
                                                {4, "91000000001", ""},
                                                {6, "91000000003", ""},
                                                {7, "91000000005", ""},
                                                {8, "x-9", ""}})});
        REQUIRE(state.ok());
        auto moved = state->record(4);
        REQUIRE(moved.ok());
        CHECK(moved->marked(results::RowRecord::k_number_unknown));
        CHECK_FALSE(moved->marked(results::RowRecord::k_number_sent));
        CHECK(moved->state.pending());
        auto first = state->record(1);
        REQUIRE(first.ok());
        CHECK(first->marked(results::RowRecord::k_number_sent));
        CHECK(first->state.pending());  // the rows of the earlier list no longer apply
        CHECK(state->max_row() == 0);
        const auto unknown = [&](std::int64_t row) {
            auto rec = state->record(row);
            REQUIRE(rec.ok());
            return rec->marked(results::RowRecord::k_number_unknown);
        };
        CHECK_FALSE(unknown(6));  // its attempt was answered: sent
        CHECK(unknown(7));        // a result held as unknown
        CHECK(unknown(8));        // a wa_id that is no number code
    }
    TEST_CASE("marks the rows whose user_id a deleted batch names, and counts failed delete batches") {
        Fixture f;
        auto state =
            f.replay(k_header + R"({"event":"delete","batch":1,"ids":["u2","u1"],"status":"deleted",)"
                                R"("http_status":200,"at":"2026-11-21T10:00:00Z"})"
                                "\n"
                                R"({"event":"delete","batch":2,"ids":["u3"],"status":"failed","http_status":500,)"
                                R"("error":"x","at":"2026-11-21T10:00:01Z"})"
                                "\n",
                     {.rows = rows_of({{1, "91000000001", "u1"},
                                       {2, "", "u2"},
                                       {3, "91000000003", "u3"},
                                       {4, "91000000004", "u1"},
                                       {5, "91000000005", ""}})});
        REQUIRE(state.ok());
        const auto deleted = [&](std::int64_t row) {
            auto rec = state->record(row);
            REQUIRE(rec.ok());
            return rec->marked(results::RowRecord::k_user_deleted);
        };
        CHECK(deleted(1));
        CHECK(deleted(2));  // an invalid row's id too
        CHECK(deleted(4));
        CHECK_FALSE(deleted(3));
        CHECK_FALSE(deleted(5));
        CHECK(state->delete_batches == 2);
        CHECK(state->delete_batches_failed == 1);
    }
    TEST_CASE("a temporary file that cannot be read back fails the replay, or the row asked, never reads as pending") {
        Fixture f;
        std::string text = k_header;
        std::vector<results::ListedRow> list;
        for (int row = 1; row <= 3000; ++row) {
            text += result(row, "sent", 1);
            list.push_back({row, "9100000000" + std::to_string(row), "u" + std::to_string(row)});
        }
        SUBCASE("the per-row records, while replaying") {
            auto state = f.replay(text, {.records = {.page_bytes = 4096,
                                                     .cached_pages = 2,
                                                     .temp_dir = f.dir.path.string(),
                                                     .fail_reads_after_bytes = 8192}});
            REQUIRE_FALSE(state.ok());
            CHECK(state.error().message.find("log.jsonl: the log's replay on disk: ") != std::string::npos);
            CHECK(state.error().kind == util::ErrorKind::temp_file);
        }
        SUBCASE("the sorts of numbers and ids") {
            auto state = f.replay(
                text, {.rows = rows_of(list),
                       .sort = {.buffer_pairs = 300, .temp_dir = f.dir.path.string(), .fail_reads_after_bytes = 8192}});
            REQUIRE_FALSE(state.ok());
            CHECK(state.error().message.find("cannot read back a temporary file") != std::string::npos);
        }
        SUBCASE("the per-row records, read later") {
            // Whatever read fails, the replay fails or the row asked does: no row reads as pending.
            int failed_later = 0;
            for (std::uint64_t limit = 4096; limit <= 200 * 4096; limit += 4096) {
                auto state = f.replay(text, {.rows = rows_of(list),
                                             .records = {.page_bytes = 4096,
                                                         .cached_pages = 2,
                                                         .temp_dir = f.dir.path.string(),
                                                         .fail_reads_after_bytes = limit}});
                if (!state.ok()) {
                    continue;
                }
                bool failed = false;
                for (int pass = 0; pass < 3 && !failed; ++pass) {
                    for (std::int64_t row = 1; row <= 3000 && !failed; ++row) {
                        auto rec = state->record(row);
                        failed = !rec.ok();
                        if (!failed) {
                            CHECK(rec->state.ever_sent());
                            CHECK(rec->marked(results::RowRecord::k_number_sent));
                        }
                    }
                }
                failed_later += failed ? 1 : 0;
            }
            CHECK(failed_later > 0);
        }
    }
    TEST_CASE("a recipient list that cannot be read fails the replay with its own error") {
        Fixture f;
        int calls = 0;
        results::RowSource broken = [&calls](results::ListedRow& out) -> util::Result<bool> {
            if (++calls > 2) {
                return util::fail("r.csv: cannot read on");
            }
            out = {calls, "9100000000" + std::to_string(calls), ""};
            return true;
        };
        auto state = f.replay(k_header + result(1, "sent", 1), {.rows = broken});
        REQUIRE_FALSE(state.ok());
        CHECK(state.error().message == "r.csv: cannot read on");
    }
    TEST_CASE("knows whether the last run wrote an end record") {
        Fixture f;
        const std::string end = R"({"event":"end","reason":"interrupted","counts":{"sent":1},)"
                                R"("at":"2026-11-21T10:00:00Z"})"
                                "\n";
        auto ended = f.replay(k_header + result(1, "sent", 1) + end);
        REQUIRE(ended.ok());
        CHECK(ended->ended);
        REQUIRE(ended->last_end.has_value());
        CHECK(ended->last_end->reason == "interrupted");
        CHECK(ended->last_end->counts[Status::sent] == 1);
        auto resumed = f.replay(k_header + result(1, "sent", 1) + end + attempt(2, 1));
        REQUIRE(resumed.ok());
        CHECK_FALSE(resumed->ended);
        CHECK(resumed->last_end.has_value());
    }
    TEST_CASE("a later campaign record marks another run") {
        Fixture f;
        std::string second = k_header;
        second.replace(second.find("\"bb\""), 4, "\"cc\"");
        auto state = f.replay(k_header + result(1, "sent", 1) + second);
        REQUIRE(state.ok());
        CHECK(state->runs == 2);
        CHECK(state->header.recipients_sha256 == "bb");
        CHECK(state->latest_header.recipients_sha256 == "cc");
    }
    TEST_CASE("a row number out of range is a warning") {
        Fixture f;
        auto state = f.replay(k_header + attempt(0, 1) + result(1'000'000'000, "sent", 1));
        REQUIRE(state.ok());
        CHECK(state->max_row() == 0);
        CHECK(mentions(state->warnings, "row 0 out of range"));
        CHECK(mentions(state->warnings, "row 1000000000 out of range"));
    }
    TEST_CASE("keeps each row's latest record, and what the observer said of its latest result") {
        Fixture f;
        int seen = 0;
        results::ReplayOptions options;
        options.observe = [&seen](const results::Record& record) -> std::uint32_t {
            ++seen;
            const auto* r = std::get_if<results::ResultRecord>(&record);
            return r != nullptr ? static_cast<std::uint32_t>(100 + r->attempts) : 7;
        };
        // Records after the header: 1 attempt(1), 2 result(1), 3 attempt(2), 4 attempt(1), 5 unsent(1).
        auto state = f.replay(k_header + attempt(1, 1) + result(1, "failed", 1, "09:30:01.000", "transient") +
                                  attempt(2, 1) + attempt(1, 2) + unsent(1, 2),
                              options);
        REQUIRE(state.ok());
        CHECK(seen == 5);
        auto one = state->record(1);
        auto two = state->record(2);
        REQUIRE(one.ok());
        REQUIRE(two.ok());
        CHECK(one->latest_record == 5);
        CHECK(one->note == 101);  // kept through the later attempt and unsent
        CHECK(two->latest_record == 3);
        CHECK(two->note == 0);
        CHECK(state->named_rows == 2);
    }
    TEST_CASE("without a recipient list the rows keep what the log says, not the join's number codes") {
        Fixture f;
        const std::string log =
            k_header + attempt(1, 1) + result(1, "failed", 1, "09:30:01.000", "transient") + attempt(2, 1);
        results::ReplayOptions options;
        options.observe = [](const results::Record&) -> std::uint32_t { return 9; };
        options.records.page_bytes = 1;  // one row a page: every row is read back from the file
        options.records.cached_pages = 1;
        // What the log says of rows 1 and 2, the same with a list or without; row 1's record.
        const auto check_log_facts = [](const results::LogState& state) {
            auto one = state.record(1);
            REQUIRE(one.ok());
            CHECK(one->state.status == Status::failed);
            CHECK(one->latest_record == 2);
            CHECK(one->note == 9);
            CHECK(state.row(2)->in_flight());
            return *one;
        };
        auto plain = f.replay(log, options);
        REQUIRE(plain.ok());
        CHECK_FALSE(plain->joined());
        const auto one = check_log_facts(*plain);
        CHECK(one.number == 0);
        CHECK(one.listed == 0);

        options.rows = rows_of({{1, "91000000001", ""}, {2, "91000000002", ""}});
        auto joined = f.replay(log, options);
        REQUIRE(joined.ok());
        CHECK(joined->joined());
        const auto again = check_log_facts(*joined);
        CHECK(again.number == results::wa_id_code("91000000001").value());
        CHECK(again.listed == results::listed_fingerprint("91000000001"));
    }
    TEST_CASE("a changed recipient list starts the rows afresh: states, latest records and rows named") {
        Fixture f;
        std::string second = k_header;
        second.replace(second.find("\"bb\""), 4, "\"cc\"");
        auto state = f.replay(k_header + result(1, "sent", 1) + result(2, "sent", 1) + result(3, "failed", 1) + second +
                              result(1, "sent", 1));
        REQUIRE(state.ok());
        CHECK(state->counts[Status::sent] == 1);
        CHECK(state->counts[Status::failed] == 0);
        CHECK(state->named_rows == 1);
        CHECK(state->max_row() == 1);
        auto one = state->record(1);
        REQUIRE(one.ok());
        CHECK(one->latest_record == 5);
    }
    TEST_CASE("warnings are capped, with a note of how many more there were") {
        Fixture f;
        std::string text = k_header;
        for (int i = 0; i < 150; ++i) {
            text += "garbage\n";
        }
        auto state = f.replay(text);
        REQUIRE(state.ok());
        CHECK(state->warnings.size() == results::LogReader::k_max_warnings + 1);
        CHECK(state->warnings.back().find("50 more warnings") != std::string::npos);
        CHECK(state->warning_count == 150);
    }
}

TEST_SUITE("results::LogReader") {
    TEST_CASE("yields records in order with their line numbers, skipping blank lines") {
        Fixture f;
        std::ofstream(f.path, std::ios::binary) << k_header << "\n  \n" << attempt(1, 1);
        auto reader = results::LogReader::open(f.path);
        REQUIRE(reader.ok());
        results::Record record;
        REQUIRE(*reader->next(record));
        CHECK(std::holds_alternative<results::CampaignHeader>(record));
        CHECK(reader->line_number() == 1);
        REQUIRE(*reader->next(record));
        CHECK(std::get<results::AttemptRecord>(record).row == 1);
        CHECK(reader->line_number() == 4);
        CHECK_FALSE(*reader->next(record));
        CHECK(reader->warnings().empty());
    }
    TEST_CASE("reads lines longer than its buffer") {
        Fixture f;
        const std::string name(600'000, 'x');
        std::ofstream(f.path, std::ios::binary)
            << k_header << R"({"event":"result","row":1,"wa_id":"1","user_name":")" << name
            << R"(","status":"sent","attempts":1,"at":"2026-11-21T10:00:00Z"})"
            << "\n"
            << attempt(2, 1);
        auto reader = results::LogReader::open(f.path);
        REQUIRE(reader.ok());
        results::Record record;
        REQUIRE(*reader->next(record));
        REQUIRE(*reader->next(record));
        CHECK(std::get<results::ResultRecord>(record).user_name == name);
        REQUIRE(*reader->next(record));
        CHECK(std::get<results::AttemptRecord>(record).row == 2);
    }
}

TEST_SUITE("results::WaIdSet") {
    TEST_CASE("finds numbers and other strings, before and after compacting") {
        results::WaIdSet set;
        set.insert("919812345678");
        set.insert("0123");
        set.insert("+44 7700");
        CHECK(set.contains("919812345678"));
        CHECK(set.contains("0123"));
        CHECK_FALSE(set.contains("123"));  // leading zeros matter
        CHECK(set.contains("+44 7700"));
        set.insert("919812345678");
        set.compact();
        CHECK(set.size() == 3);
        CHECK(set.contains("919812345678"));
        CHECK_FALSE(set.contains("91981234567"));
        CHECK_FALSE(set.contains(""));
    }
}
