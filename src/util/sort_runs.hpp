#pragma once
// The external sort's files, internal to util/: an unnamed temporary file of sorted runs, and
// the merge that reads them back a chunk at a time.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <queue>
#include <string>
#include <utility>
#include <vector>

#include "util/external_sort.hpp"
#include "util/result.hpp"
#include "util/unique_fd.hpp"

namespace util::detail {

// An unnamed temporary file: gone when closed, whatever happens to the process. Also where
// queue::SetAside keeps the jobs waiting for their recipients' windows.
class TempFile {
public:
    // In `options.temp_dir`, else TMPDIR, else /tmp.
    static Result<TempFile> create(const ExternalSortOptions& options);

    TempFile() = default;
    explicit TempFile(int fd) : m_fd(fd) {}

    // Appends `count` pairs; returns the offset they start at.
    Result<std::uint64_t> append(const SortPair* pairs, std::size_t count);

    // Reads `count` pairs at `offset` into `out`.
    Result<void> read(std::uint64_t offset, SortPair* out, std::size_t count) const;

    // Writes `bytes` bytes at `offset` (the file grows to hold them; a gap reads as zeros).
    Result<void> write_at(std::uint64_t offset, const void* data, std::size_t bytes);

    // Reads `bytes` bytes at `offset`; fails when the file is shorter.
    Result<void> read_at(std::uint64_t offset, void* out, std::size_t bytes) const;

    // One past the last byte written.
    std::uint64_t size() const { return m_size; }

private:
    UniqueFd m_fd;
    std::uint64_t m_size = 0;
    std::uint64_t m_fail_reads_after = 0;  // ExternalSortOptions::fail_reads_after_bytes
    mutable std::uint64_t m_read = 0;      // bytes asked for so far
};

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
