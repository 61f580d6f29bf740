#include <doctest/doctest.h>

#include <cstdint>
#include <random>
#include <unordered_map>

#include "fakes.hpp"
#include "util/disk_array.hpp"

namespace {

struct Record {
    std::uint8_t status = 7;  // not zero: a never-set record must read as Record{}
    std::uint8_t flags = 0;
    std::uint16_t count = 0;
    std::int64_t at = -1;
};

util::DiskArray<Record> make_array(const fakes::TempDir& dir, util::DiskArrayOptions options = {}) {
    options.temp_dir = dir.path.string();
    auto array = util::DiskArray<Record>::create(options);
    REQUIRE(array);
    return std::move(*array);
}

}  // namespace

TEST_CASE("util::DiskArray: a record never set reads as a value-initialised one") {
    fakes::TempDir dir;
    auto array = make_array(dir, {.page_bytes = 64, .cached_pages = 2, .temp_dir = {}, .fail_reads_after_bytes = 0});
    CHECK(array.size() == 0);
    auto r = array.get(1'000'000);
    REQUIRE(r);
    CHECK(r->status == 7);
    CHECK(r->at == -1);
    CHECK(array.size() == 0);  // reading does not grow it
    REQUIRE(array.set(5, Record{1, 2, 3, 4}));
    CHECK(array.size() == 6);
    // Pages around a written one, and a gap of pages never written, read as blank.
    for (std::uint64_t i : {0, 4, 6, 100, 5000}) {
        auto blank = array.get(i);
        REQUIRE(blank);
        CHECK(blank->status == 7);
    }
}

TEST_CASE("util::DiskArray: holds far more records than its cache, in any order") {
    fakes::TempDir dir;
    // Four pages of four records cached: everything else goes to the file and back.
    auto array = make_array(dir, {.page_bytes = 64, .cached_pages = 4, .temp_dir = {}, .fail_reads_after_bytes = 0});
    std::mt19937_64 random(42);
    std::unordered_map<std::uint64_t, Record> expected;
    for (int n = 0; n < 20'000; ++n) {
        const std::uint64_t index = random() % 50'000;
        Record r{static_cast<std::uint8_t>(n % 200), static_cast<std::uint8_t>(index % 256),
                 static_cast<std::uint16_t>(n), static_cast<std::int64_t>(index) * 3};
        REQUIRE(array.set(index, r));
        expected[index] = r;
    }
    std::uint64_t highest = 0;
    for (const auto& [index, r] : expected) {
        highest = std::max(highest, index);
        auto got = array.get(index);
        REQUIRE(got);
        CHECK(got->status == r.status);
        CHECK(got->count == r.count);
        CHECK(got->at == r.at);
    }
    CHECK(array.size() == highest + 1);
    // In order, every index: set ones as set, the others blank.
    for (std::uint64_t i = 0; i < 50'000; ++i) {
        auto got = array.get(i);
        REQUIRE(got);
        const auto it = expected.find(i);
        CHECK(got->at == (it == expected.end() ? -1 : it->second.at));
    }
}

TEST_CASE("util::DiskArray: a failed read breaks it for good, never reading as blank") {
    fakes::TempDir dir;
    auto array = make_array(dir, {.page_bytes = 64, .cached_pages = 1, .temp_dir = {}, .fail_reads_after_bytes = 64});
    for (std::uint64_t i = 0; i < 12; ++i) {
        REQUIRE(array.set(i, Record{1, 1, 1, static_cast<std::int64_t>(i)}));
    }
    // Page 0 went to the file and comes back once; the second read back fails.
    auto first = array.get(0);
    REQUIRE(first);
    CHECK(first->at == 0);
    auto second = array.get(4);
    REQUIRE_FALSE(second);
    CHECK(second.error().message.find("temporary file") != std::string::npos);
    // Every later call fails, even one for a page that is in the cache or was never written.
    CHECK_FALSE(array.get(0));
    CHECK_FALSE(array.get(1'000));
    CHECK_FALSE(array.set(3, Record{}));
}

TEST_CASE("util::DiskArray: a folder it cannot create its file in is an error naming it") {
    auto array = util::DiskArray<Record>::create(
        {.page_bytes = 64, .cached_pages = 1, .temp_dir = "/nonexistent/wacamp-dir", .fail_reads_after_bytes = 0});
    REQUIRE_FALSE(array);
    CHECK(array.error().message.find("/nonexistent/wacamp-dir") != std::string::npos);
}
