#include <doctest/doctest.h>

#include <string>

#include "report/review.hpp"

namespace {

results::ResultRecord dry(std::int64_t row, std::string text, std::vector<std::string> defaults = {}) {
    results::ResultRecord r;
    r.row = row;
    r.wa_id = "9198123" + std::to_string(row);
    r.status = results::Status::dry_run;
    r.message.emplace().text = std::move(text);
    r.defaults = std::move(defaults);
    return r;
}

}  // namespace

TEST_SUITE("report::Review") {
    TEST_CASE("keeps the first messages, counts every one, and ignores results without a message") {
        report::Review review;
        for (int i = 1; i <= 1500; ++i) {
            review.add(dry(i, "m" + std::to_string(i)));
        }
        results::ResultRecord sent;
        sent.status = results::Status::sent;
        review.add(sent);
        review.finish();
        CHECK(review.messages == 1500);
        REQUIRE(review.first.size() == report::Review::k_messages_kept);
        CHECK(review.first.front().row == 1);
        CHECK(review.first.back().row == 1000);
    }
    TEST_CASE("the longest, longest first, counted in code points; ties go to the earlier row") {
        report::Review review;
        review.add(dry(1, "aaaa"));
        review.add(dry(2, "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"));  // 5 characters, 10 bytes
        for (int i = 3; i <= 50; ++i) {
            review.add(dry(i, std::string(static_cast<std::size_t>(i % 7), 'x')));
        }
        review.add(dry(51, std::string(6, 'y')));  // ties with rows 6, 13, … : not kept
        review.finish();
        REQUIRE(review.longest.size() == report::Review::k_longest_kept);
        CHECK(review.longest[0].characters == 6);
        CHECK(review.longest[0].row == 6);
        CHECK(review.longest[1].row == 13);
        for (const auto& m : review.longest) {
            CHECK(m.row != 51);
        }
    }
    TEST_CASE("counts each placeholder's fallbacks, most frequent first, and bounds how many it names") {
        report::Review review;
        review.add(dry(1, "a", {"date"}));
        review.add(dry(2, "b", {"date", "name"}));
        review.add(dry(3, "c"));
        for (int i = 0; i < 150; ++i) {
            review.add(dry(10 + i, "d", {"p" + std::to_string(i)}));
        }
        review.finish();
        CHECK(review.rows_with_defaults == 152);
        REQUIRE(review.defaults.size() == report::Review::k_placeholders_kept);
        CHECK(review.defaults[0].placeholder == "date");
        CHECK(review.defaults[0].rows == 2);
        CHECK(review.other_placeholders == 52);  // p98 … p149
    }
}
