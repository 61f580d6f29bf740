#pragma once
// An unnamed temporary file: gone when closed, whatever happens to the process. Where the
// external sort keeps its runs, DiskArray its pages, and SpillQueue what memory does not hold.

#include <cstddef>
#include <cstdint>
#include <string>

#include "util/result.hpp"
#include "util/unique_fd.hpp"

namespace util {

struct TempFileOptions {
    std::string dir;  // empty: the system's (TMPDIR as it is, else /tmp)
    // For tests of callers: reads fail once this many bytes have been asked for, as a failing
    // disk would (EIO). Zero: never.
    std::uint64_t fail_reads_after_bytes = 0;
};

class TempFile {
public:
    // A new file in `options.dir`, else TMPDIR (a TMPDIR that is missing or no folder is an error,
    // not a reason to use /tmp), else /tmp. Every error of the file (ErrorKind::temp_file) names
    // its folder, and whether it is TMPDIR's, and the system's reason.
    static Result<TempFile> create(const TempFileOptions& options = {});

    TempFile() = default;

    // Writes `bytes` bytes at `offset` (the file grows to hold them; a gap reads as zeros).
    // Fails when the disk is full or a file size limit is reached.
    Result<void> write_at(std::uint64_t offset, const void* data, std::size_t bytes);

    // Appends `bytes` bytes; returns the offset they start at. Fails as write_at().
    Result<std::uint64_t> append(const void* data, std::size_t bytes);

    // Reads `bytes` bytes at `offset`; fails when the file is shorter.
    Result<void> read_at(std::uint64_t offset, void* out, std::size_t bytes) const;

    // One past the last byte written.
    std::uint64_t size() const { return m_size; }

private:
    explicit TempFile(int fd) : m_fd(fd) {}

    UniqueFd m_fd;
    std::string m_dir;  // for messages: the folder, and whether it is TMPDIR's
    std::uint64_t m_size = 0;
    std::uint64_t m_fail_reads_after = 0;  // TempFileOptions::fail_reads_after_bytes
    mutable std::uint64_t m_read = 0;      // bytes asked for so far
};

}  // namespace util
