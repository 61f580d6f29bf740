#include "util/external_sort.hpp"

#include <algorithm>

#include "util/sort_runs.hpp"

namespace util {

namespace {

using detail::Run;
using detail::RunMerger;

constexpr std::size_t k_min_chunk_pairs = 256;

}  // namespace

struct SortedPairs::Impl {
    std::vector<SortPair> memory;  // everything fitted in the buffer
    std::size_t pos = 0;
    TempFile file;
    std::unique_ptr<RunMerger> merger;
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
            TRY_ASSIGN(file, TempFile::create({options.temp_dir, options.fail_reads_after_bytes}));
            file_open = true;
        }
        std::sort(buffer.begin(), buffer.end());
        TRY_ASSIGN(const std::uint64_t offset, file.append(buffer.data(), buffer.size() * sizeof(SortPair)));
        runs.push_back({offset, buffer.size()});
        buffer.clear();
        return {};
    }

    // Merges groups of runs into a new file until at most max_fan_in runs are left.
    Result<void> reduce_runs() {
        const std::size_t fan_in = std::max<std::size_t>(options.max_fan_in, 2);
        while (runs.size() > fan_in) {
            TRY_ASSIGN(TempFile next_file, TempFile::create({options.temp_dir, options.fail_reads_after_bytes}));
            std::vector<Run> next_runs;
            std::vector<SortPair> out;
            out.reserve(chunk_pairs(fan_in));
            for (std::size_t first = 0; first < runs.size(); first += fan_in) {
                std::vector<Run> group(
                    runs.begin() + static_cast<std::ptrdiff_t>(first),
                    runs.begin() + static_cast<std::ptrdiff_t>(std::min(first + fan_in, runs.size())));
                RunMerger merger(file, group, chunk_pairs(fan_in));
                TRY(merger.start());
                Run merged;
                SortPair pair;
                bool first_chunk = true;
                const auto flush = [&]() -> Result<void> {
                    TRY_ASSIGN(const std::uint64_t offset, next_file.append(out.data(), out.size() * sizeof(SortPair)));
                    if (first_chunk) {
                        merged.offset = offset;
                        first_chunk = false;
                    }
                    merged.count += out.size();
                    out.clear();
                    return {};
                };
                for (;;) {
                    TRY_ASSIGN(const bool found, merger.next(pair));
                    if (!found) {
                        break;
                    }
                    out.push_back(pair);
                    if (out.size() == out.capacity()) {
                        TRY(flush());
                    }
                }
                TRY(flush());
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
        TRY(impl.spill());
    }
    std::vector<SortPair>().swap(impl.buffer);  // the merge needs the memory
    TRY(impl.reduce_runs());
    sorted->file = std::move(impl.file);
    sorted->merger = std::make_unique<RunMerger>(sorted->file, impl.runs, impl.chunk_pairs(impl.runs.size()));
    TRY(sorted->merger->start());
    return SortedPairs(std::move(sorted));
}

SortedPairs::SortedPairs() : m_impl(std::make_unique<Impl>()) {}
SortedPairs::SortedPairs(std::unique_ptr<Impl> impl) : m_impl(std::move(impl)) {}
SortedPairs::SortedPairs(SortedPairs&&) noexcept = default;
SortedPairs& SortedPairs::operator=(SortedPairs&&) noexcept = default;
SortedPairs::~SortedPairs() = default;

Result<bool> SortedPairs::next(SortPair& out) {
    Impl& impl = *m_impl;
    if (impl.merger) {
        return impl.merger->next(out);
    }
    if (impl.pos < impl.memory.size()) {
        out = impl.memory[impl.pos++];
        return true;
    }
    return false;
}

}  // namespace util
