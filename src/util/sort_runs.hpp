#pragma once
// The external sort's runs, internal to util/: sorted runs in a temporary file, and the merge
// that reads them back a chunk at a time.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <queue>
#include <string>
#include <utility>
#include <vector>

#include "util/external_sort.hpp"
#include "util/result.hpp"
#include "util/temp_file.hpp"

namespace util::detail {

// A sorted run in a TempFile.
struct Run {
    std::uint64_t offset = 0;  // bytes
    std::uint64_t count = 0;   // pairs
};

// Merges sorted runs of one file, reading each a chunk at a time.
class RunMerger {
public:
    RunMerger(const TempFile& file, const std::vector<Run>& runs, std::size_t chunk_pairs);

    // Reads the first chunk of every run; call once before next().
    Result<void> start();

    // The next pair in order into `out`: true, or false at the end. Fails when a run cannot be
    // read back.
    Result<bool> next(SortPair& out);

private:
    struct Cursor {
        std::uint64_t next_offset = 0;
        std::uint64_t left_in_file = 0;
        std::vector<SortPair> chunk;
        std::size_t pos = 0;
        bool empty() const { return pos >= chunk.size(); }
        const SortPair& front() const { return chunk[pos]; }
    };
    using Entry = std::pair<SortPair, std::size_t>;

    Result<void> refill(Cursor& c);

    const TempFile* m_file;
    std::vector<Cursor> m_cursors;
    std::size_t m_chunk_pairs;
    std::priority_queue<Entry, std::vector<Entry>, std::greater<>> m_heap;
    std::optional<std::size_t> m_taken;  // the cursor of the pair returned last: it moves on next time
};

}  // namespace util::detail
