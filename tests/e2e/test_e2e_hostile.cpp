// The hostile corpus (tests/hostile/): every entry of its expectations.txt goes through the
// commands listed there, each under a time limit, against a sandbox that journals whatever
// reaches it. Nothing may crash or hang; a failure names the file (and line and key); an
// unusable campaign sends nothing; bad rows are `invalid` with their reason and the others go
// out, once each.

#include <doctest/doctest.h>

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "campaign/csv_reader.hpp"
#include "fixtures.hpp"
#include "hostile_corpus.hpp"
#include "timeout.hpp"

using namespace e2e;
namespace fs = std::filesystem;

namespace {

// Far above what any entry takes (well under a second; a few with a sanitizer); a hang ends here.
constexpr std::chrono::seconds k_limit{60};

std::vector<CorpusEntry> entries_of(CorpusKind kind) {
    auto all = corpus_entries();
    std::erase_if(all, [kind](const CorpusEntry& e) { return e.kind() != kind; });
    return all;
}

std::vector<std::string> arguments(const std::string& command, const TempDir& dir) {
    const std::string campaign = (dir.path() / "campaign.yaml").string();
    const std::string log = (dir.path() / "results.jsonl").string();
    const std::map<std::string, std::vector<std::string>> all = {
        {"validate", {"validate", campaign, "--rows"}},  // each bad row named, for check_rows
        {"dry-run", {"run", campaign, "--dry-run"}},
        {"run", {"run", campaign, "--yes", "--no-progress"}},
        {"report", {"report", log}},
        {"report-json", {"report", log, "--format", "json"}},
        {"report-csv", {"report", log, "--format", "csv"}},
        {"resume", {"resume", log}},
        {"delete-contacts", {"delete-contacts", log}},
    };
    const auto it = all.find(command);
    REQUIRE_MESSAGE(it != all.end(), "unknown command ", command);
    return it->second;
}

// Whether `text` is valid UTF-8 with no control character but line ends: each message on its
// own line, nothing that a terminal would act on.
bool clean(std::string_view text) {
    const auto* p = reinterpret_cast<const unsigned char*>(text.data());
    const auto* end = p + text.size();
    while (p < end) {
        const unsigned c = *p;
        const std::ptrdiff_t n =
            c < 0x80 ? 1
                     : (c >= 0xC2 && c <= 0xDF ? 2 : (c >= 0xE0 && c <= 0xEF ? 3 : (c >= 0xF0 && c <= 0xF4 ? 4 : 0)));
        if (n == 0 || end - p < n || (c < 0x20 && c != '\n') || c == 0x7F) {
            return false;
        }
        for (std::ptrdiff_t i = 1; i < n; ++i) {
            if ((p[i] & 0xC0) != 0x80) {
                return false;
            }
        }
        p += n;
    }
    return true;
}

int sends_received(const Sandbox& sandbox) {
    const auto journal = sandbox.journal();
    return static_cast<int>(std::count_if(journal.begin(), journal.end(), [](const nlohmann::json& j) {
        return j.value("path", "") == "/whatsapp-automation/wa/send-message";
    }));
}

// Returns the records of the result log of a real run under `dir` (wherever `results:` put it).
std::vector<nlohmann::json> send_log(const fs::path& dir) {
    for (const auto& file : fs::recursive_directory_iterator(dir)) {
        const std::string name = file.path().filename().string();
        if (name.ends_with(".jsonl") && !name.ends_with(".dry-run.jsonl")) {
            return read_jsonl(file.path());
        }
    }
    return {};
}

// The result of each row in the log at `path`, by row: its last `result` record.
std::map<long long, nlohmann::json> results_by_row(const fs::path& path) {
    std::map<long long, nlohmann::json> out;
    for (auto& r : read_jsonl(path)) {
        if (r.value("event", "") == "result") {
            out[r["row"].get<long long>()] = r;
        }
    }
    return out;
}

// Checks what became of each row of a CSV with an `expect` column, after a dry run and a run.
void check_rows(const TempDir& dir, const ProcessResult& validate, const Sandbox& sandbox) {
    auto reader = campaign::CsvReader::open((dir.path() / "recipients.csv").string(), ',');
    REQUIRE(reader.ok());
    const auto expect = reader->column("expect");
    if (!expect) {
        CHECK(sends_received(sandbox) == 0);  // the lists where no row can go
        return;
    }
    const auto sent = results_by_row(dir.path() / "results" / "hostile.jsonl");
    const auto rehearsed = results_by_row(dir.path() / "results" / "hostile.dry-run.jsonl");
    const auto delivered_to = delivered(sandbox);
    int expected_sends = 0;
    campaign::CsvRecord record;
    while (*reader->next(record)) {
        const std::string& want = record.fields[*expect];
        INFO("row ", record.row, " expects \"", want, "\"");
        REQUIRE(sent.count(record.row) == 1);
        REQUIRE(rehearsed.count(record.row) == 1);
        const auto& result = sent.at(record.row);
        if (want == "skipped") {
            CHECK(result["status"] == "skipped");
            CHECK(rehearsed.at(record.row)["status"] == "skipped");
        } else if (want.empty() || want.starts_with("invalid")) {
            CHECK(result["status"] == "invalid");
            CHECK(result["cause"] == "invalid");
            CHECK(rehearsed.at(record.row)["status"] == "invalid");
            const std::string reason = want.empty() ? "" : want.substr(std::string("invalid:").size());
            CHECK(result.value("error", "").find(reason) != std::string::npos);
            CHECK(validate.out.find(fmt::format("recipients.csv:{}: row {}: ", record.line, record.row)) !=
                  std::string::npos);
        } else {
            ++expected_sends;
            CHECK(result["status"] == "sent");
            CHECK(result["wa_id"] == want);
            CHECK(rehearsed.at(record.row)["status"] == "dry_run");
            CHECK((delivered_to.count(want) == 1 && delivered_to.at(want) == 1));
        }
    }
    CHECK(sends_received(sandbox) == expected_sends);
}

// Runs every command of `e` and checks its exit code, its output and what reached the sandbox.
void check_entry(const CorpusEntry& e) {
    INFO(e.name, " (tests/hostile/expectations.txt:", e.line, ")");
    REQUIRE_FALSE(e.commands.empty());
    Sandbox sandbox;
    TempDir dir;
    prepare_entry(e, dir);
    const EnvOverrides env = {
        {"WACAMP_BASE_URL", sandbox.url()}, {"WACAMP_API_KEY", k_api_key}, {"WACAMP_ACCESS_TOKEN", k_access_token}};
    std::map<std::string, TimedResult> results;
    for (const auto& [command, exit_code] : e.commands) {
        INFO("wacamp ", command);
        const auto r = run_wacamp_within(k_limit, arguments(command, dir), env);
        INFO("stdout: ", r.out.substr(0, 2000));
        INFO("stderr: ", r.err.substr(0, 2000));
        CHECK_FALSE(r.timed_out);
        CHECK(r.exit_code == exit_code);
        if (exit_code != 0) {
            for (const auto& text : e.texts) {
                CHECK_MESSAGE((r.out + r.err).find(text) != std::string::npos, "missing: ", text);
            }
        }
        CHECK(clean(r.err));
        results[command] = r;
    }
    const auto run = std::find_if(e.commands.begin(), e.commands.end(), [](const auto& c) { return c.first == "run"; });
    if (e.kind() == CorpusKind::log || run == e.commands.end()) {
        CHECK(sends_received(sandbox) == 0);
    } else if (run->second != 0) {
        CHECK(sends_received(sandbox) == 0);  // an unusable campaign sends nothing
    } else if (e.kind() == CorpusKind::csv) {
        check_rows(dir, results["validate"], sandbox);
    } else {
        const std::map<std::string, int> once_each = {
            {numbers_wa_id(0), 1}, {numbers_wa_id(1), 1}, {numbers_wa_id(2), 1}};
        CHECK(delivered(sandbox) == once_each);
        CHECK(sends_received(sandbox) == 3);
        const auto log = send_log(dir.path());
        REQUIRE(log.size() > 2);
        CHECK(log.front()["event"] == "campaign");
        CHECK(log.back()["event"] == "end");
    }
}

}  // namespace

TEST_SUITE("e2e: hostile input") {
    TEST_CASE("every corpus file is listed in expectations.txt, and every generated entry exists") {
        std::set<std::string> listed;
        const auto entries = corpus_entries();
        CHECK(entries.size() > 90);
        for (const auto& e : entries) {
            listed.insert(e.name);
            if (e.name.starts_with("gen/")) {
                CHECK_MESSAGE(is_generated(e.name.substr(4)), e.name);
            } else {
                CHECK_MESSAGE(fs::is_regular_file(corpus_dir() / e.name), e.name);
            }
        }
        for (const char* folder : {"yaml", "csv", "logs"}) {
            for (const auto& file : fs::directory_iterator(corpus_dir() / folder)) {
                const std::string name = std::string(folder) + "/" + file.path().filename().string();
                CHECK_MESSAGE(listed.count(name) == 1, name, " is not in tests/hostile/expectations.txt");
            }
        }
    }
    TEST_CASE(
        "campaign files: an unusable one fails with its file, line and key and sends nothing; "
        "odd but valid ones run") {
        for (const auto& e : entries_of(CorpusKind::campaign)) {
            check_entry(e);
        }
    }
    TEST_CASE(
        "recipient lists: an unusable one stops before sending; bad rows are invalid with "
        "their reason and the others go out once") {
        for (const auto& e : entries_of(CorpusKind::csv)) {
            check_entry(e);
        }
    }
    TEST_CASE("result logs: read or refused with a message, never a crash") {
        for (const auto& e : entries_of(CorpusKind::log)) {
            check_entry(e);
        }
    }
}
