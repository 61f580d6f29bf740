#include "util/external_sort.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fmt/format.h>
#include <queue>
#include <unistd.h>

namespace util {

namespace {

constexpr std::size_t k_min_chunk_pairs = 256;

// An unnamed temporary file: gone when closed, whatever happens to the process.
class TempFile {
public:
    static Result<TempFile> create(const ExternalSortOptions& options) {
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
            return fail(fmt::format("cannot create a temporary file in {} (set TMPDIR to another directory): {}",
                                    dir, std::strerror(errno)));
        }
        TempFile file(fd);
        file.m_fail_reads_after = options.fail_reads_after_bytes;
        return file;
    }

    TempFile() = default;
    explicit TempFile(int fd) : m_fd(fd) {}
    TempFile(TempFile&& other) noexcept
        : m_fd(std::exchange(other.m_fd, -1)), m_size(other.m_size),
          m_fail_reads_after(other.m_fail_reads_after), m_read(other.m_read) {}
    TempFile& operator=(TempFile&& other) noexcept {
        if (this != &other) {
            close();
            m_fd = std::exchange(other.m_fd, -1);
            m_size = other.m_size;
            m_fail_reads_after = other.m_fail_reads_after;
            m_read = other.m_read;
        }
        return *this;
    }
    ~TempFile() { close(); }

    // Appends `count` pairs; returns the offset they start at.
    Result<std::uint64_t> append(const SortPair* pairs, std::size_t count) {
        const auto start = m_size;
        const char* data = reinterpret_cast<const char*>(pairs);
        std::size_t left = count * sizeof(SortPair);
        while (left > 0) {
            ssize_t n = ::pwrite(m_fd, data, left, static_cast<off_t>(m_size));
            if (n < 0 && errno == EINTR) {
                continue;
            }
            if (n <= 0) {
                return fail(fmt::format("cannot write a temporary file (set TMPDIR to a directory with more space): {}",
                                        std::strerror(errno)));
            }
            data += n;
            left -= static_cast<std::size_t>(n);
            m_size += static_cast<std::uint64_t>(n);
        }
        return start;
    }

    // Reads `count` pairs at `offset` into `out`.
    Result<void> read(std::uint64_t offset, SortPair* out, std::size_t count) const {
        char* data = reinterpret_cast<char*>(out);
        std::size_t left = count * sizeof(SortPair);
        m_read += left;
        if (m_fail_reads_after > 0 && m_read > m_fail_reads_after) {
            return fail(fmt::format("cannot read back a temporary file: {}", std::strerror(EIO)));
        }
        while (left > 0) {
            ssize_t n = ::pread(m_fd, data, left, static_cast<off_t>(offset));
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

private:
    void close() {
        if (m_fd >= 0) {
            ::close(m_fd);
            m_fd = -1;
        }
    }

    int m_fd = -1;
    std::uint64_t m_size = 0;
    std::uint64_t m_fail_reads_after = 0;  // ExternalSortOptions::fail_reads_after_bytes
    mutable std::uint64_t m_read = 0;      // bytes asked for so far
};

struct Run {
    std::uint64_t offset = 0;  // bytes
    std::uint64_t count = 0;   // pairs
};

// Merges sorted runs of one file, reading each a chunk at a time.
class RunMerger {
public:
    RunMerger(const TempFile& file, const std::vector<Run>& runs, std::size_t chunk_pairs)
        : m_file(&file), m_cursors(runs.size()), m_chunk_pairs(chunk_pairs) {
        for (std::size_t i = 0; i < runs.size(); ++i) {
            m_cursors[i].next_offset = runs[i].offset;
            m_cursors[i].left_in_file = runs[i].count;
        }
    }

    // Reads the first chunk of every run; call once before next().
    Result<void> start() {
        for (std::size_t i = 0; i < m_cursors.size(); ++i) {
            if (auto filled = refill(m_cursors[i]); !filled) {
                return filled;
            }
            if (!m_cursors[i].empty()) {
                m_heap.push({m_cursors[i].front(), i});
            }
        }
        return {};
    }

    bool next(SortPair& out, std::string& error) {
        if (m_heap.empty()) {
            return false;
        }
        auto [pair, index] = m_heap.top();
        m_heap.pop();
        out = pair;
        Cursor& c = m_cursors[index];
        ++c.pos;
        if (c.pos == c.chunk.size()) {
            if (auto filled = refill(c); !filled) {
                error = filled.error().message;
                m_heap = {};
                return true;  // `out` is still good; the next call ends
            }
        }
        if (!c.empty()) {
            m_heap.push({c.front(), index});
        }
        return true;
    }

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

    Result<void> refill(Cursor& c) {
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

    const TempFile* m_file;
    std::vector<Cursor> m_cursors;
    std::size_t m_chunk_pairs;
    std::priority_queue<Entry, std::vector<Entry>, std::greater<>> m_heap;
};

} // namespace

struct SortedPairs::Impl {
    std::vector<SortPair> memory;  // everything fitted in the buffer
    std::size_t pos = 0;
    TempFile file;
    std::unique_ptr<RunMerger> merger;
    std::string error;
};

struct ExternalSorter::Impl {
    ExternalSortOptions options;
    std::vector<SortPair> buffer;
    TempFile file;
    bool file_open = false;
    std::vector<Run> runs;

    std::size_t chunk_pairs(std::size_t fan_in) const {
        return std::max(k_min_chunk_pairs, options.buffer_pairs / std::max<std::size_t>(fan_in, 1));
    }

    Result<void> spill() {
        if (!file_open) {
            auto created = TempFile::create(options);
            if (!created) {
                return created.error();
            }
            file = std::move(*created);
            file_open = true;
        }
        std::sort(buffer.begin(), buffer.end());
        auto offset = file.append(buffer.data(), buffer.size());
        if (!offset) {
            return offset.error();
        }
        runs.push_back({*offset, buffer.size()});
        buffer.clear();
        return {};
    }

    // Merges groups of runs into a new file until at most max_fan_in runs are left.
    Result<void> reduce_runs() {
        const std::size_t fan_in = std::max<std::size_t>(options.max_fan_in, 2);
        while (runs.size() > fan_in) {
            auto created = TempFile::create(options);
            if (!created) {
                return created.error();
            }
            TempFile next_file = std::move(*created);
            std::vector<Run> next_runs;
            std::vector<SortPair> out;
            out.reserve(chunk_pairs(fan_in));
            for (std::size_t first = 0; first < runs.size(); first += fan_in) {
                std::vector<Run> group(runs.begin() + static_cast<std::ptrdiff_t>(first),
                                       runs.begin() + static_cast<std::ptrdiff_t>(std::min(first + fan_in, runs.size())));
                RunMerger merger(file, group, chunk_pairs(fan_in));
                if (auto started = merger.start(); !started) {
                    return started;
                }
                Run merged;
                std::string error;
                SortPair pair;
                bool first_chunk = true;
                const auto flush = [&]() -> Result<void> {
                    auto offset = next_file.append(out.data(), out.size());
                    if (!offset) {
                        return offset.error();
                    }
                    if (first_chunk) {
                        merged.offset = *offset;
                        first_chunk = false;
                    }
                    merged.count += out.size();
                    out.clear();
                    return {};
                };
                while (merger.next(pair, error)) {
                    out.push_back(pair);
                    if (out.size() == out.capacity()) {
                        if (auto flushed = flush(); !flushed) {
                            return flushed;
                        }
                    }
                }
                if (!error.empty()) {
                    return fail(error);
                }
                if (auto flushed = flush(); !flushed) {
                    return flushed;
                }
                next_runs.push_back(merged);
            }
            file = std::move(next_file);
            runs = std::move(next_runs);
        }
        return {};
    }
};

ExternalSorter::ExternalSorter(ExternalSortOptions options) : m_impl(std::make_unique<Impl>()) {
    m_impl->options = std::move(options);
    m_impl->options.buffer_pairs = std::max<std::size_t>(m_impl->options.buffer_pairs, 2);
}
ExternalSorter::ExternalSorter(ExternalSorter&&) noexcept = default;
ExternalSorter& ExternalSorter::operator=(ExternalSorter&&) noexcept = default;
ExternalSorter::~ExternalSorter() = default;

Result<void> ExternalSorter::add(SortPair pair) {
    Impl& impl = *m_impl;
    if (impl.buffer.capacity() == 0) {
        impl.buffer.reserve(impl.options.buffer_pairs);  // once: growing by doubling would copy
    }
    impl.buffer.push_back(pair);
    if (impl.buffer.size() >= impl.options.buffer_pairs) {
        return impl.spill();
    }
    return {};
}

Result<SortedPairs> ExternalSorter::finish() {
    Impl& impl = *m_impl;
    auto sorted = std::make_unique<SortedPairs::Impl>();
    if (impl.runs.empty()) {
        std::sort(impl.buffer.begin(), impl.buffer.end());
        sorted->memory = std::move(impl.buffer);
        return SortedPairs(std::move(sorted));
    }
    if (!impl.buffer.empty()) {
        if (auto spilled = impl.spill(); !spilled) {
            return spilled.error();
        }
    }
    std::vector<SortPair>().swap(impl.buffer);  // the merge needs the memory
    if (auto reduced = impl.reduce_runs(); !reduced) {
        return reduced.error();
    }
    sorted->file = std::move(impl.file);
    sorted->merger = std::make_unique<RunMerger>(sorted->file, impl.runs, impl.chunk_pairs(impl.runs.size()));
    if (auto started = sorted->merger->start(); !started) {
        return started.error();
    }
    return SortedPairs(std::move(sorted));
}

SortedPairs::SortedPairs() : m_impl(std::make_unique<Impl>()) {}
SortedPairs::SortedPairs(std::unique_ptr<Impl> impl) : m_impl(std::move(impl)) {}
SortedPairs::SortedPairs(SortedPairs&&) noexcept = default;
SortedPairs& SortedPairs::operator=(SortedPairs&&) noexcept = default;
SortedPairs::~SortedPairs() = default;

bool SortedPairs::next(SortPair& out) {
    Impl& impl = *m_impl;
    if (impl.merger) {
        return impl.merger->next(out, impl.error);
    }
    if (impl.pos < impl.memory.size()) {
        out = impl.memory[impl.pos++];
        return true;
    }
    return false;
}

const std::string& SortedPairs::error() const {
    return m_impl->error;
}

} // namespace util
