#pragma once
// The hostile corpus (tests/hostile/) for end-to-end tests: what its expectations.txt says of
// each entry, and the entries generated here rather than committed (too big, or not files).

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "harness.hpp"

namespace e2e {

enum class CorpusKind { campaign, csv, log };

struct CorpusEntry {
    std::string name;                                   // "yaml/empty.yaml", or "gen/csv-fifo" for a generated one
    int line = 0;                                       // in expectations.txt
    std::vector<std::pair<std::string, int>> commands;  // command → exit code, in file order
    std::vector<std::string> texts;                     // what a failing command must print

    // Returns what the entry is: a campaign file, a CSV or a result log.
    CorpusKind kind() const;
};

// Returns the corpus folder, tests/hostile/ of the source tree.
std::filesystem::path corpus_dir();

// Returns every entry of expectations.txt in file order; throws std::runtime_error on a line
// it cannot read.
std::vector<CorpusEntry> corpus_entries();

// Returns whether the test can generate the entry gen/`name`.
bool is_generated(const std::string& name);

// Writes `entry` into `dir` as campaign.yaml, recipients.csv or results.jsonl, with the
// standard partner it runs beside: a CSV of 3 good rows (numbers_csv(3)) for a campaign file,
// a standard campaign.yaml for a CSV. Throws std::runtime_error when it cannot.
void prepare_entry(const CorpusEntry& entry, const TempDir& dir);

}  // namespace e2e
