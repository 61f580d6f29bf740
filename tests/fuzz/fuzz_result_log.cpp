// libFuzzer harness: the result-log reader. Each input is parsed line by line with
// results::parse_record, and written to a file (in /dev/shm when there is one) that
// results::replay folds, as resume, report and cleanup do. Besides "no crash, no UB, no
// leak", a record that parses must survive being written and read again: after one round
// trip (which normalises: times to milliseconds, invalid UTF-8 to U+FFFD, fields a status
// does not carry dropped) a second one changes nothing.

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>
#include <string_view>

#include "results/log_reader.hpp"
#include "results/records.hpp"
#include "results/replay.hpp"
#include "scratch.hpp"

namespace {

// The private file, removed when the fuzzer exits normally.
class Workspace {
public:
    Workspace() { m_path = (scratch_base() / ("wacamp-fuzz-log-" + std::to_string(::getpid()) + ".jsonl")).string(); }
    ~Workspace() { std::remove(m_path.c_str()); }
    Workspace(const Workspace&) = delete;
    Workspace& operator=(const Workspace&) = delete;
    const std::string& path() const { return m_path; }

private:
    std::string m_path;
};

void check_round_trip(std::string_view line) {
    auto first = results::parse_record(line);
    if (!first) {
        if (first.error().message.empty()) {
            __builtin_trap();
        }
        return;
    }
    auto second = results::parse_record(results::to_line(*first));
    if (!second) {
        __builtin_trap();  // the writer wrote what the reader refuses
    }
    auto third = results::parse_record(results::to_line(*second));
    if (!third || !(*third == *second)) {
        __builtin_trap();
    }
}

void check_replay(const std::string& path) {
    results::ReplayOptions options;
    options.now = util::TimePoint(std::chrono::hours(24 * 365 * 56));
    auto state = results::replay(path, options);
    if (!state) {
        return;
    }
    std::int64_t settled = 0;
    for (std::int64_t i = 1; i <= state->max_row(); ++i) {
        auto row = state->row(i);
        if (!row) {
            __builtin_trap();
        }
        settled += row->pending() ? 0 : 1;
    }
    // Warnings are capped, plus one line saying how many more there were.
    if (state->counts.total() != settled || state->max_row() > results::k_max_row ||
        state->warnings.size() > results::LogReader::k_max_warnings + 1) {
        __builtin_trap();
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static const Workspace ws;
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    for (std::size_t start = 0; start < text.size();) {
        const std::size_t end = std::min(text.find('\n', start), text.size());
        check_round_trip(text.substr(start, end - start));
        start = end + 1;
    }
    std::FILE* file = std::fopen(ws.path().c_str(), "wb");
    if (file == nullptr || (size > 0 && std::fwrite(data, 1, size, file) != size)) {
        __builtin_trap();
    }
    std::fclose(file);
    check_replay(ws.path());
    return 0;
}
