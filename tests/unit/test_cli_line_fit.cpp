#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "cli/line_fit.hpp"
#include "util/utf8.hpp"

using cli::fit_line;
using cli::k_always;
using cli::LinePart;

TEST_SUITE("cli::fit_line") {
    TEST_CASE("every part at its first form when the line fits") {
        const std::vector<LinePart> parts{{{"sent 3", k_always}}, {{"in flight 2/4", 10}, {"in flight 2", 20}}};
        CHECK(fit_line(parts, " · ", 100) == "sent 3 · in flight 2/4");
        CHECK(fit_line(parts, " · ", 22) == "sent 3 · in flight 2/4");  // "·" is one column
    }
    TEST_CASE("the form of lowest rank is given up first, for its part's next form or for nothing") {
        const std::vector<LinePart> parts{{{"sent 3", k_always}},
                                          {{"remaining 7", 30}, {"left 7", 50}},
                                          {{"9.0s", 10}},
                                          {{"in flight 2/4", 20}, {"in flight 2", 40}}};
        CHECK(fit_line(parts, " · ", 40) == "sent 3 · remaining 7 · in flight 2/4");
        CHECK(fit_line(parts, " · ", 35) == "sent 3 · remaining 7 · in flight 2");
        CHECK(fit_line(parts, " · ", 29) == "sent 3 · left 7 · in flight 2");
        CHECK(fit_line(parts, " · ", 28) == "sent 3 · left 7");
        CHECK(fit_line(parts, " · ", 9) == "sent 3");
    }
    TEST_CASE("among equal ranks the later part gives way") {
        const std::vector<LinePart> parts{{{"a", k_always}}, {{"first", 10}}, {{"second", 10}}};
        CHECK(fit_line(parts, " ", 8) == "a first");
    }
    TEST_CASE("a part with no forms is not shown, and leaves no separator behind") {
        const std::vector<LinePart> parts{{{"sent 3", k_always}}, {}, {{"2.0/s", 10}}};
        CHECK(fit_line(parts, " · ", 80) == "sent 3 · 2.0/s");
    }
    TEST_CASE("what must stay is clipped with an ellipsis when nothing else can give way") {
        const std::vector<LinePart> parts{{{"sent 12 · failed 0", k_always}}, {{"7.0s", 10}}};
        CHECK(fit_line(parts, " · ", 10) == "sent 12 ·…");
        CHECK(fit_line(parts, " · ", 1) == "…");
        CHECK(fit_line(parts, " · ", 0).empty());
    }
    TEST_CASE("never wider than asked, at any width") {
        const std::vector<LinePart> parts{{{"sent 12 · failed 0", k_always}},
                                          {{"paused: outside the send window until 10:00 Asia/Kolkata", 20},
                                           {"paused until 10:00", 30},
                                           {"paused", 40}},
                                          {{"日本語 wide", 5}}};
        for (std::size_t columns = 0; columns <= 120; ++columns) {
            const std::string line = fit_line(parts, " — ", columns);
            CAPTURE(columns);
            CAPTURE(line);
            CHECK(util::display_width(line) <= columns);
        }
    }
}
