#pragma once
// An array too large to hold in memory: fixed-size records in an unnamed temporary file, a few
// pages of it cached. Memory stays near `cached_pages` × `page_bytes` however many records it
// holds, so per-row state of a ten-million-row campaign costs disk (and the page cache), not
// the process's memory. Access is fastest in order; any order works.
//
// A failed read or write leaves the array broken: every later call fails too, so that a caller
// never mistakes an unreadable record for a never-set one.

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <type_traits>

#include "util/result.hpp"

namespace util {

struct DiskArrayOptions {
    std::size_t page_bytes = std::size_t{64} << 10;  // rounded down to whole records
    std::size_t cached_pages = 16;
    std::string temp_dir;  // empty: the system's (TMPDIR or /tmp)
    // For tests of callers: reads fail once this many bytes have been read back, as a failing
    // disk would (EIO). Zero: never.
    std::uint64_t fail_reads_after_bytes = 0;
};

namespace detail {

// Whether a record is located to be read or to be written (its page then written back).
enum class Access { read, write };

// The untyped part of DiskArray: records of `record_bytes` in cached pages of a temporary file.
class DiskPages {
public:
    // `blank` (record_bytes long) is what a record never written holds.
    static Result<DiskPages> create(std::size_t record_bytes, const void* blank, const DiskArrayOptions& options);

    DiskPages();
    DiskPages(DiskPages&&) noexcept;
    DiskPages& operator=(DiskPages&&) noexcept;
    ~DiskPages();

    // Returns where record `index` is in memory, its page loaded (and marked changed for
    // Access::write); valid until the next call.
    Result<char*> locate(std::uint64_t index, Access access);

    std::uint64_t size() const { return m_size; }

private:
    struct Impl;
    explicit DiskPages(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> m_impl;
    std::uint64_t m_size = 0;  // one past the highest index written
};

}  // namespace detail

template <class T>
class DiskArray {
    static_assert(std::is_trivially_copyable_v<T>, "DiskArray keeps records as bytes");

public:
    static Result<DiskArray> create(const DiskArrayOptions& options = {}) {
        const T blank{};
        TRY_ASSIGN(auto pages, detail::DiskPages::create(sizeof(T), &blank, options));
        return DiskArray(std::move(pages));
    }

    DiskArray() = default;

    // Returns record `index`; one never set reads as a value-initialised T.
    Result<T> get(std::uint64_t index) {
        TRY_ASSIGN(const char* at, m_pages.locate(index, detail::Access::read));
        T value;
        std::memcpy(&value, at, sizeof(T));
        return value;
    }

    Result<void> set(std::uint64_t index, const T& value) {
        TRY_ASSIGN(char* at, m_pages.locate(index, detail::Access::write));
        std::memcpy(at, &value, sizeof(T));
        return {};
    }

    // One past the highest index set (zero when none was).
    std::uint64_t size() const { return m_pages.size(); }

private:
    explicit DiskArray(detail::DiskPages pages) : m_pages(std::move(pages)) {}
    detail::DiskPages m_pages;
};

}  // namespace util
