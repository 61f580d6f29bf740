#pragma once
// Sorting more pairs than memory should hold: pairs collect in a fixed buffer; each full buffer
// is sorted and written to an unnamed temporary file as a run; reading merges the runs. Memory
// stays near `buffer_pairs` × 16 bytes (about as much again while merging) however many pairs
// come, so that a million-row recipient list costs disk, not RAM.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "util/result.hpp"

namespace util {

// Sorted by `first`, then `second`.
struct SortPair {
    std::uint64_t first = 0;
    std::uint64_t second = 0;
    friend auto operator<=>(const SortPair&, const SortPair&) = default;
};

struct ExternalSortOptions {
    std::size_t buffer_pairs = std::size_t{1} << 15;  // 512 KiB
    std::size_t max_fan_in = 64;                      // runs merged at once
    std::string temp_dir;                             // empty: the system's (TMPDIR or /tmp)
    // For tests of callers: each temporary file fails to be read back once this many bytes
    // have been read from it, as a failing disk would (EIO). Zero: never.
    std::uint64_t fail_reads_after_bytes = 0;
};

class SortedPairs;

class ExternalSorter {
public:
    explicit ExternalSorter(ExternalSortOptions options = {});
    ExternalSorter(ExternalSorter&&) noexcept;
    ExternalSorter& operator=(ExternalSorter&&) noexcept;
    ~ExternalSorter();

    // Adds a pair; fails when a run cannot be written to the temporary file.
    Result<void> add(SortPair pair);

    // Returns every pair added, in order. The sorter is spent afterwards.
    Result<SortedPairs> finish();

private:
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

// The merged, sorted pairs, read once from the start.
class SortedPairs {
public:
    SortedPairs();
    SortedPairs(SortedPairs&&) noexcept;
    SortedPairs& operator=(SortedPairs&&) noexcept;
    ~SortedPairs();

    // Reads the next pair into `out`: true, or false at the end. Fails when the temporary file
    // cannot be read back.
    Result<bool> next(SortPair& out);

    struct Impl;

private:
    friend class ExternalSorter;
    explicit SortedPairs(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> m_impl;
};

}  // namespace util
