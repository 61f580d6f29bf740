#pragma once
// A first-in first-out queue that spills to an unnamed temporary file: what is pushed gathers in
// memory, goes to the file each time `memory_bytes` of it have gathered, and is read back
// `memory_bytes` at a time. Memory stays near twice `memory_bytes` however much waits; the file
// is made on the first spill and closed (gone) whenever the queue empties.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>

#include "util/result.hpp"
#include "util/temp_file.hpp"

namespace util {

// Bytes in, the same bytes out in the same order, in pieces of any length.
class ByteSpillQueue {
public:
    explicit ByteSpillQueue(std::size_t memory_bytes, TempFileOptions options = {});

    // Appends `bytes` bytes from `data`. Fails when the temporary file cannot be made or written;
    // what was pushed, this call's bytes too, then waits in memory, in order.
    Result<void> push(const void* data, std::size_t bytes);

    // Moves the first `bytes` bytes into `out`. Fails when fewer wait, or when the temporary
    // file cannot be read back.
    Result<void> pop(void* out, std::size_t bytes);

    // Bytes waiting.
    std::uint64_t size() const { return m_size; }
    bool empty() const { return m_size == 0; }

private:
    Result<void> refill();

    std::size_t m_memory_bytes;
    TempFileOptions m_options;
    std::optional<TempFile> m_file;
    std::uint64_t m_read = 0;  // bytes of the file read back
    std::string m_head;        // read back (or taken from m_tail) ahead of need; first in line
    std::size_t m_head_at = 0;
    std::string m_tail;  // pushed after the file's last byte; last in line
    std::uint64_t m_size = 0;
};

// Records of a trivially copyable `T`, as their bytes.
template <class T>
class SpillQueue {
    static_assert(std::is_trivially_copyable_v<T>, "SpillQueue keeps records as bytes");

public:
    // Keeps about `memory_records` records in memory before it spills, as many on reading back.
    explicit SpillQueue(std::size_t memory_records, TempFileOptions options = {})
        : m_bytes(memory_records * sizeof(T), std::move(options)) {}

    // Appends `record`; fails as ByteSpillQueue::push.
    Result<void> push(const T& record) { return m_bytes.push(&record, sizeof(T)); }

    // Moves the first record into `out`: true, or false when none waits. Fails when the
    // temporary file cannot be read back.
    Result<bool> pop(T& out) {
        if (m_bytes.empty()) {
            return false;
        }
        TRY(m_bytes.pop(&out, sizeof(T)));
        return true;
    }

    // Records waiting.
    std::uint64_t size() const { return m_bytes.size() / sizeof(T); }
    bool empty() const { return m_bytes.empty(); }

private:
    ByteSpillQueue m_bytes;
};

}  // namespace util
