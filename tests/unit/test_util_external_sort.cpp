#include <doctest/doctest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "fakes.hpp"
#include "util/external_sort.hpp"

using util::ExternalSorter;
using util::SortPair;

namespace {

// Adds `input` to a sorter with the given buffer and fan-in and reads everything back.
std::vector<SortPair> sort_all(const std::vector<SortPair>& input, std::size_t buffer, std::size_t fan_in,
                               const std::string& dir) {
    ExternalSorter sorter({.buffer_pairs = buffer, .max_fan_in = fan_in, .temp_dir = dir});
    for (const auto& p : input) {
        REQUIRE(sorter.add(p));
    }
    auto sorted = sorter.finish();
    REQUIRE(sorted);
    std::vector<SortPair> out;
    SortPair p;
    for (;;) {
        auto more = sorted->next(p);
        REQUIRE(more);
        if (!*more) {
            break;
        }
        out.push_back(p);
    }
    return out;
}

std::vector<SortPair> random_pairs(std::size_t n, std::uint64_t seed) {
    std::mt19937_64 random(seed);
    std::vector<SortPair> pairs(n);
    for (auto& p : pairs) {
        p = {random() % 1000, random() % 50};  // many equal firsts: ties are ordered by second
    }
    return pairs;
}

}  // namespace

TEST_SUITE("util::ExternalSorter") {
    TEST_CASE("what fits the buffer is sorted in memory, ordered by first then second") {
        fakes::TempDir dir;
        auto out = sort_all({{3, 1}, {1, 9}, {3, 0}, {2, 5}}, 16, 4, dir.path.string());
        CHECK(out == std::vector<SortPair>{{1, 9}, {2, 5}, {3, 0}, {3, 1}});
    }

    TEST_CASE("nothing added reads back nothing") {
        fakes::TempDir dir;
        CHECK(sort_all({}, 16, 4, dir.path.string()).empty());
    }

    TEST_CASE("runs spilled to disk merge into the same order as std::sort") {
        fakes::TempDir dir;
        auto input = random_pairs(10'000, 7);
        auto expected = input;
        std::sort(expected.begin(), expected.end());
        CHECK(sort_all(input, 1000, 64, dir.path.string()) == expected);  // 10 runs, one merge
    }

    TEST_CASE("more runs than the fan-in are merged in passes") {
        fakes::TempDir dir;
        auto input = random_pairs(20'011, 11);  // 79 runs of 256 (the last one short) with fan-in 3
        auto expected = input;
        std::sort(expected.begin(), expected.end());
        CHECK(sort_all(input, 256, 3, dir.path.string()) == expected);
    }

    TEST_CASE("a temporary directory that does not exist is an error naming it") {
        ExternalSorter sorter({.buffer_pairs = 2, .max_fan_in = 4, .temp_dir = "/nonexistent/wacamp-sort"});
        CHECK(sorter.add({1, 1}));
        auto spilled = sorter.add({2, 2});  // the buffer is full: the first run is written
        REQUIRE_FALSE(spilled);
        CHECK(spilled.error().message.find("/nonexistent/wacamp-sort") != std::string::npos);
    }

    TEST_CASE("a read error while merging stops the pairs and says why") {
        fakes::TempDir dir;
        // Two runs of 300; the merge reads 256 of each at once (8192 bytes), then the first
        // run's refill fails.
        ExternalSorter sorter({.buffer_pairs = 300, .temp_dir = dir.path.string(), .fail_reads_after_bytes = 8192});
        for (std::uint64_t i = 0; i < 600; ++i) {
            REQUIRE(sorter.add({i, i}));
        }
        auto sorted = sorter.finish();
        REQUIRE(sorted);
        std::uint64_t count = 0;
        SortPair pair;
        auto more = sorted->next(pair);
        for (; more && *more; more = sorted->next(pair)) {
            CHECK(pair.first == count);
            ++count;
        }
        CHECK(count == 256);
        REQUIRE_FALSE(more);
        CHECK(more.error().message == "cannot read back a temporary file: Input/output error");
    }
}
