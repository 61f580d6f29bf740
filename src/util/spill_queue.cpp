#include "util/spill_queue.hpp"

#include <algorithm>
#include <cstring>
#include <utility>

namespace util {

ByteSpillQueue::ByteSpillQueue(std::size_t memory_bytes, TempFileOptions options)
    : m_memory_bytes(std::max<std::size_t>(memory_bytes, 1)), m_options(std::move(options)) {}

Result<void> ByteSpillQueue::push(const void* data, std::size_t bytes) {
    m_tail.append(static_cast<const char*>(data), bytes);
    m_size += bytes;
    if (m_tail.size() < m_memory_bytes) {
        return {};
    }
    if (!m_file) {
        TRY_ASSIGN(auto created, TempFile::create(m_options));
        m_file.emplace(std::move(created));
    }
    TRY(m_file->append(m_tail.data(), m_tail.size()));
    m_tail.clear();
    return {};
}

Result<void> ByteSpillQueue::pop(void* out, std::size_t bytes) {
    if (bytes > m_size) {
        return fail("a temporary queue was asked for more than it holds");
    }
    char* to = static_cast<char*>(out);
    while (bytes > 0) {
        if (m_head_at == m_head.size()) {
            TRY(refill());
        }
        const std::size_t n = std::min(bytes, m_head.size() - m_head_at);
        std::memcpy(to, m_head.data() + m_head_at, n);
        to += n;
        bytes -= n;
        m_head_at += n;
        m_size -= n;
    }
    if (m_size == 0) {
        m_file.reset();  // closed, and gone with it
        m_read = 0;
        m_head.clear();
        m_head_at = 0;
    }
    return {};
}

// Takes the next bytes in line into m_head (all read): the file's, else the tail's.
Result<void> ByteSpillQueue::refill() {
    m_head.clear();
    m_head_at = 0;
    if (m_file && m_read < m_file->size()) {
        const auto bytes = static_cast<std::size_t>(std::min<std::uint64_t>(m_memory_bytes, m_file->size() - m_read));
        m_head.resize(bytes);
        if (auto read = m_file->read_at(m_read, m_head.data(), bytes); !read) {
            m_head.clear();
            return read;
        }
        m_read += bytes;
    } else {
        m_head.swap(m_tail);
    }
    return {};
}

}  // namespace util
