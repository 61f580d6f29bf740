#include "util/disk_array.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <optional>
#include <vector>

#include "util/temp_file.hpp"

namespace util::detail {

struct DiskPages::Impl {
    struct Page {
        std::uint64_t number = 0;
        std::uint64_t last_use = 0;
        bool changed = false;
        std::vector<char> bytes;
    };

    TempFile file;
    std::size_t record_bytes = 0;
    std::size_t records_per_page = 0;
    std::vector<char> blank_page;  // a page of never-written records
    std::vector<Page> pages;       // at most `cached_pages`
    std::size_t cached_pages = 0;
    std::vector<bool> in_file;  // by page number: written to the file at least once
    std::uint64_t uses = 0;
    std::size_t last = 0;  // the page used last, checked first
    std::optional<std::string> broken;

    std::size_t page_bytes() const { return records_per_page * record_bytes; }

    Result<void> write_back(Page& page) {
        if (!page.changed) {
            return {};
        }
        TRY(file.write_at(page.number * page_bytes(), page.bytes.data(), page.bytes.size()));
        if (page.number >= in_file.size()) {
            in_file.resize(page.number + 1, false);
        }
        in_file[page.number] = true;
        page.changed = false;
        return {};
    }

    Result<void> load(Page& page, std::uint64_t number) {
        page.number = number;
        page.changed = false;
        page.bytes.resize(page_bytes());
        if (number < in_file.size() && in_file[number]) {
            return file.read_at(number * page_bytes(), page.bytes.data(), page.bytes.size());
        }
        std::copy(blank_page.begin(), blank_page.end(), page.bytes.begin());
        return {};
    }

    // Returns the cached page `number`, reading it (and writing back the page it replaces).
    Result<Page*> page(std::uint64_t number) {
        if (last < pages.size() && pages[last].number == number) {
            return &pages[last];
        }
        for (std::size_t i = 0; i < pages.size(); ++i) {
            if (pages[i].number == number) {
                last = i;
                return &pages[i];
            }
        }
        if (pages.size() < cached_pages) {
            pages.emplace_back();
            last = pages.size() - 1;
        } else {
            last = static_cast<std::size_t>(
                std::min_element(pages.begin(), pages.end(),
                                 [](const Page& a, const Page& b) { return a.last_use < b.last_use; }) -
                pages.begin());
            TRY(write_back(pages[last]));
        }
        TRY(load(pages[last], number));
        return &pages[last];
    }
};

Result<DiskPages> DiskPages::create(std::size_t record_bytes, const void* blank, const DiskArrayOptions& options) {
    TRY_ASSIGN(TempFile file, TempFile::create({options.temp_dir, options.fail_reads_after_bytes}));
    auto impl = std::make_unique<Impl>();
    impl->file = std::move(file);
    impl->record_bytes = record_bytes;
    impl->records_per_page = std::max<std::size_t>(1, options.page_bytes / record_bytes);
    impl->cached_pages = std::max<std::size_t>(1, options.cached_pages);
    impl->blank_page.resize(impl->page_bytes());
    for (std::size_t at = 0; at < impl->blank_page.size(); at += record_bytes) {
        std::memcpy(impl->blank_page.data() + at, blank, record_bytes);
    }
    return DiskPages(std::move(impl));
}

DiskPages::DiskPages() = default;
DiskPages::DiskPages(std::unique_ptr<Impl> impl) : m_impl(std::move(impl)) {}
DiskPages::DiskPages(DiskPages&&) noexcept = default;
DiskPages& DiskPages::operator=(DiskPages&&) noexcept = default;
DiskPages::~DiskPages() = default;

Result<char*> DiskPages::locate(std::uint64_t index, Access access) {
    if (!m_impl) {
        return fail("a disk array used before it was created");
    }
    Impl& impl = *m_impl;
    if (impl.broken) {
        return fail(*impl.broken);
    }
    auto page = impl.page(index / impl.records_per_page);
    if (!page) {
        impl.broken = page.error().message;
        return fail(page.error().message);
    }
    Impl::Page& p = **page;
    p.last_use = ++impl.uses;
    if (access == Access::write) {
        p.changed = true;
        m_size = std::max(m_size, index + 1);
    }
    return p.bytes.data() + (index % impl.records_per_page) * impl.record_bytes;
}

}  // namespace util::detail
