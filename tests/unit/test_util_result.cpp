#include <doctest/doctest.h>

#include <memory>
#include <string>
#include <vector>

#include "util/result.hpp"

namespace {

util::Result<int> number(bool good) {
    if (!good) {
        return util::fail("no number");
    }
    return 7;
}

util::Result<void> step(bool good, int& calls) {
    ++calls;
    if (!good) {
        return util::fail("step failed");
    }
    return {};
}

// Two steps through TRY; `reached` tells whether the code after them ran.
util::Result<void> two_steps(bool first, bool second, int& calls, bool& reached) {
    TRY(step(first, calls));
    TRY(step(second, calls));
    reached = true;
    return {};
}

util::Result<std::string> doubled(bool good) {
    TRY_ASSIGN(const int n, number(good));
    return std::to_string(n * 2);
}

util::Result<int> sum_into_existing(bool first, bool second) {
    int total = 0;
    TRY_ASSIGN(total, number(first));
    TRY_ASSIGN(const int more, number(second));
    return total + more;
}

util::Result<std::unique_ptr<int>> boxed(bool good) {
    if (!good) {
        return util::fail("no box");
    }
    return std::make_unique<int>(5);
}

util::Result<int> unboxed(bool good) {
    TRY_ASSIGN(auto box, boxed(good));  // a move-only value is moved out
    return *box;
}

// A stream of `items` that fails after `fail_after` of them (never when negative).
struct Stream {
    std::vector<int> items;
    int fail_after = -1;
    std::size_t pos = 0;
    util::Result<bool> next(int& out) {
        if (fail_after >= 0 && pos == static_cast<std::size_t>(fail_after)) {
            return util::fail("cannot read on");
        }
        if (pos == items.size()) {
            return false;
        }
        out = items[pos++];
        return true;
    }
};

// Sums a stream with the read loop the readers are used with.
util::Result<int> sum(Stream stream) {
    int total = 0;
    int item = 0;
    for (;;) {
        TRY_ASSIGN(const bool more, stream.next(item));
        if (!more) {
            break;
        }
        total += item;
    }
    return total;
}

}  // namespace

TEST_SUITE("util::TRY") {
    TEST_CASE("goes on when every step succeeds") {
        int calls = 0;
        bool reached = false;
        CHECK(two_steps(true, true, calls, reached));
        CHECK(calls == 2);
        CHECK(reached);
    }

    TEST_CASE("returns the first error and runs nothing after it") {
        int calls = 0;
        bool reached = false;
        auto r = two_steps(false, true, calls, reached);
        REQUIRE_FALSE(r);
        CHECK(r.error().message == "step failed");
        CHECK(calls == 1);
        CHECK_FALSE(reached);
    }

    TEST_CASE("converts the error to the caller's Result type") {
        auto r = doubled(false);
        REQUIRE_FALSE(r);
        CHECK(r.error().message == "no number");
    }
}

TEST_SUITE("util::TRY_ASSIGN") {
    TEST_CASE("declares the value") {
        auto r = doubled(true);
        REQUIRE(r);
        CHECK(*r == "14");
    }

    TEST_CASE("assigns to a variable declared before, and two on different lines do not clash") {
        CHECK(*sum_into_existing(true, true) == 14);
        CHECK(sum_into_existing(true, false).error().message == "no number");
        CHECK(sum_into_existing(false, true).error().message == "no number");
    }

    TEST_CASE("moves a move-only value out") {
        CHECK(*unboxed(true) == 5);
        CHECK(unboxed(false).error().message == "no box");
    }

    TEST_CASE("reads a stream to its end: true is an item, false the end") {
        CHECK(*sum(Stream{{1, 2, 3}}) == 6);
        CHECK(*sum(Stream{{}}) == 0);
    }

    TEST_CASE("stops a stream's read loop at its error") {
        auto r = sum(Stream{{1, 2, 3}, 2});
        REQUIRE_FALSE(r);
        CHECK(r.error().message == "cannot read on");
    }

    TEST_CASE("evaluates its expression once, whether it holds a value or an error") {
        int calls = 0;
        const auto counted = [&calls](bool good) -> util::Result<int> {
            ++calls;
            return number(good);
        };
        const auto twice = [&counted](bool good) -> util::Result<int> {
            TRY_ASSIGN(const int n, counted(good));
            return n * 2;
        };
        CHECK(*twice(true) == 14);
        CHECK(calls == 1);
        CHECK(twice(false).error().message == "no number");
        CHECK(calls == 2);
    }
}

TEST_SUITE("util::Error") {
    TEST_CASE("is of the general kind unless it says otherwise; TRY keeps the kind") {
        CHECK(util::fail("x").kind == util::ErrorKind::general);
        const auto write_failed = []() -> util::Result<void> {
            return util::Error{"disk full", util::ErrorKind::write};
        };
        const auto passed_on = [&write_failed]() -> util::Result<int> {
            TRY(write_failed());
            return 1;
        };
        const auto r = passed_on();
        REQUIRE_FALSE(r);
        CHECK(r.error().kind == util::ErrorKind::write);
        CHECK(r.error().message == "disk full");
    }
}
