#include "util/sort_runs.hpp"

#include <algorithm>

namespace util::detail {

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
    if (auto read = m_file->read_at(c.next_offset, c.chunk.data(), n * sizeof(SortPair)); !read) {
        c.chunk.clear();
        return read;
    }
    c.next_offset += n * sizeof(SortPair);
    c.left_in_file -= n;
    return {};
}

}  // namespace util::detail
