#include "util/sort_runs.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>
#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>

namespace util::detail {

Result<TempFile> TempFile::create(const ExternalSortOptions& options) {
    std::error_code ec;
    const std::string& dir_option = options.temp_dir;
    std::string dir = dir_option.empty() ? std::filesystem::temp_directory_path(ec).string() : dir_option;
    if (dir.empty() || ec) {
        dir = "/tmp";
    }
    int fd = ::open(dir.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (fd < 0) {
        // Some file systems have no O_TMPFILE: a named file, unlinked at once.
        std::string name = dir + "/wacamp-sort-XXXXXX";
        fd = ::mkstemp(name.data());
        if (fd >= 0) {
            ::unlink(name.c_str());
        }
    }
    if (fd < 0) {
        return fail(fmt::format("cannot create a temporary file in {} (set TMPDIR to another directory): {}", dir,
                                std::strerror(errno)));
    }
    TempFile file(fd);
    file.m_fail_reads_after = options.fail_reads_after_bytes;
    return file;
}

Result<std::uint64_t> TempFile::append(const SortPair* pairs, std::size_t count) {
    const auto start = m_size;
    TRY(write_at(start, pairs, count * sizeof(SortPair)));
    return start;
}

Result<void> TempFile::read(std::uint64_t offset, SortPair* out, std::size_t count) const {
    return read_at(offset, out, count * sizeof(SortPair));
}

Result<void> TempFile::write_at(std::uint64_t offset, const void* data, std::size_t bytes) {
    const char* from = static_cast<const char*>(data);
    std::size_t left = bytes;
    while (left > 0) {
        ssize_t n = ::pwrite(m_fd.get(), from, left, static_cast<off_t>(offset));
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            return fail(fmt::format("cannot write a temporary file (set TMPDIR to a directory with more space): {}",
                                    n == 0 ? std::strerror(ENOSPC) : std::strerror(errno)));
        }
        from += n;
        left -= static_cast<std::size_t>(n);
        offset += static_cast<std::uint64_t>(n);
    }
    m_size = std::max(m_size, offset);
    return {};
}

Result<void> TempFile::read_at(std::uint64_t offset, void* out, std::size_t bytes) const {
    char* data = static_cast<char*>(out);
    std::size_t left = bytes;
    m_read += left;
    if (m_fail_reads_after > 0 && m_read > m_fail_reads_after) {
        return fail(fmt::format("cannot read back a temporary file: {}", std::strerror(EIO)));
    }
    while (left > 0) {
        ssize_t n = ::pread(m_fd.get(), data, left, static_cast<off_t>(offset));
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            return fail(fmt::format("cannot read back a temporary file: {}",
                                    n == 0 ? "it is shorter than written" : std::strerror(errno)));
        }
        data += n;
        left -= static_cast<std::size_t>(n);
        offset += static_cast<std::uint64_t>(n);
    }
    return {};
}

RunMerger::RunMerger(const TempFile& file, const std::vector<Run>& runs, std::size_t chunk_pairs)
    : m_file(&file), m_cursors(runs.size()), m_chunk_pairs(chunk_pairs) {
    for (std::size_t i = 0; i < runs.size(); ++i) {
        m_cursors[i].next_offset = runs[i].offset;
        m_cursors[i].left_in_file = runs[i].count;
    }
}

Result<void> RunMerger::start() {
    for (std::size_t i = 0; i < m_cursors.size(); ++i) {
        TRY(refill(m_cursors[i]));
        if (!m_cursors[i].empty()) {
            m_heap.push({m_cursors[i].front(), i});
        }
    }
    return {};
}

Result<bool> RunMerger::next(SortPair& out) {
    // The run of the pair returned last moves on only now, so that a read error comes with the
    // call that needs what it was reading.
    if (m_taken) {
        const std::size_t index = *m_taken;
        m_taken.reset();
        Cursor& c = m_cursors[index];
        ++c.pos;
        if (c.pos == c.chunk.size()) {
            TRY(refill(c));
        }
        if (!c.empty()) {
            m_heap.push({c.front(), index});
        }
    }
    if (m_heap.empty()) {
        return false;
    }
    const auto [pair, index] = m_heap.top();
    m_heap.pop();
    out = pair;
    m_taken = index;
    return true;
}

Result<void> RunMerger::refill(Cursor& c) {
    const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(m_chunk_pairs, c.left_in_file));
    c.chunk.resize(n);
    c.pos = 0;
    if (n == 0) {
        return {};
    }
    if (auto read = m_file->read(c.next_offset, c.chunk.data(), n); !read) {
        c.chunk.clear();
        return read;
    }
    c.next_offset += n * sizeof(SortPair);
    c.left_in_file -= n;
    return {};
}

}  // namespace util::detail
