#pragma once
// Small result logs for the report tests, written with the real record writer.

#include <doctest/doctest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "results/records.hpp"
#include "util/disk_array.hpp"
#include "util/time.hpp"

// The report tests say `using namespace report_test;` and have these, the records' words and
// the chrono literals.
namespace report_test {

using namespace std::chrono_literals;
using results::Cause;
using results::Status;

// 09:00:00 plus `offset` on the day of the sample campaign.
inline util::TimePoint at(std::chrono::milliseconds offset) {
    return *util::parse_timestamp("2026-11-21T09:00:00.000Z", util::TimestampSyntax::rfc3339) + offset;
}

inline std::string header(results::Mode mode = results::Mode::send) {
    results::CampaignHeader h{"spring", "c.yaml", "aa", "r.csv", "bb", at(0ms), "0.1.0", mode, {}};
    return results::to_line(h);
}

inline std::string wa_id(std::int64_t row) {
    return "9198123456" + std::to_string(10 + row);
}

inline std::string attempt(std::int64_t row, int n, std::chrono::milliseconds offset) {
    return results::to_line(results::AttemptRecord{row, wa_id(row), n, at(offset)});
}

// A result; `http` 0 means no response.
inline std::string result(std::int64_t row, results::Status status, results::Cause cause, int http, std::string error,
                          std::int64_t latency_ms, std::chrono::milliseconds offset, int attempts = 1) {
    results::ResultRecord r;
    r.row = row;
    r.wa_id = wa_id(row);
    r.user_name = "User " + std::to_string(row);
    r.status = status;
    r.attempts = attempts;
    if (http != 0) {
        r.http_status = http;
    }
    if (status == results::Status::sent) {
        r.message_id = "wamid." + std::to_string(row);
    }
    r.error = std::move(error);
    r.cause = cause;
    if (latency_ms >= 0) {
        r.latency_ms = latency_ms;
    }
    r.at = at(offset);
    return results::to_line(r);
}

// A result record of `row` (its wa_id, no name) with `status` and `cause`, at 09:00 plus `offset`,
// for a test to fill in the fields that result() does not reach.
inline results::ResultRecord record(std::int64_t row, results::Status status, results::Cause cause,
                                    std::chrono::milliseconds offset) {
    results::ResultRecord r;
    r.row = row;
    r.wa_id = wa_id(row);
    r.status = status;
    r.cause = cause;
    r.at = at(offset);
    return r;
}

inline std::string sent(std::int64_t row, std::int64_t latency_ms, std::chrono::milliseconds offset, int attempts = 1) {
    return result(row, results::Status::sent, results::Cause::none, 200, "", latency_ms, offset, attempts);
}

// A fresh folder with one log file in it, removed at the end of the test.
struct LogFile {
    std::filesystem::path dir;
    std::string path;

    LogFile() {
        std::string pattern = (std::filesystem::temp_directory_path() / "wacamp-XXXXXX").string();
        REQUIRE(::mkdtemp(pattern.data()) != nullptr);
        dir = pattern;
        path = (dir / "spring.jsonl").string();
    }
    ~LogFile() {
        std::error_code ec;
        std::filesystem::remove_all(dir, ec);
    }
    LogFile(const LogFile&) = delete;
    LogFile& operator=(const LogFile&) = delete;

    // Replaces the log's content with `text`; returns the path.
    const std::string& write(const std::string& text) const {
        std::ofstream(path, std::ios::binary) << text;
        return path;
    }
};

// One row a page and one page cached: a row seen before, unless it was the last one touched,
// is read back from the file.
inline util::DiskArrayOptions tiny_pages() {
    util::DiskArrayOptions options;
    options.page_bytes = 4;
    options.cached_pages = 1;
    return options;
}

// Checks that `message` says it cannot report on `log`'s file, and why: `why`.
inline void check_names_log(const std::string& message, const LogFile& log, const std::string& why) {
    CHECK(message.find("cannot report on " + log.path) != std::string::npos);
    CHECK(message.find(why) != std::string::npos);
}

}  // namespace report_test
