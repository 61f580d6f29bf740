// The SQLite wrapper's statements, kept prepared per connection and lent out: a statement in use
// is never lent twice, and one given back keeps nothing of its last use.
#include <doctest/doctest.h>

#include "account/sqlite.hpp"

namespace {

using account::sqlite::Database;
using account::sqlite::Statement;

constexpr const char* k_select = "SELECT n FROM numbers WHERE n >= ?1 ORDER BY n";

// A database in memory holding the numbers 1, 2 and 3.
struct Numbers {
    Database db{"", Database::Mode::memory};
    Numbers() { db.exec("CREATE TABLE numbers (n INTEGER); INSERT INTO numbers VALUES (1), (2), (3);"); }
};

// Binds the lower bound and steps to the first row: its number.
std::int64_t first_from(Statement& select, std::int64_t from) {
    select.bind(1, from);
    REQUIRE(select.step());
    return select.integer(0);
}

}  // namespace

TEST_SUITE("account::sqlite") {
    TEST_CASE("two statements of one text in use at once step on their own") {
        Numbers numbers;
        Statement first(numbers.db, k_select);
        CHECK(first_from(first, 2) == 2);
        Statement second(numbers.db, k_select);
        CHECK(first_from(second, 1) == 1);
        REQUIRE(first.step());
        CHECK(first.integer(0) == 3);
        CHECK_FALSE(first.step());
        REQUIRE(second.step());
        CHECK(second.integer(0) == 2);
    }
    TEST_CASE("a statement given back mid-way starts afresh, with nothing bound, for its next user") {
        Numbers numbers;
        {
            Statement used(numbers.db, k_select);
            CHECK(first_from(used, 3) == 3);
        }
        Statement again(numbers.db, k_select);
        // Unbound, ?1 is NULL: no row is >= NULL.
        CHECK_FALSE(again.step());
        again.rewind();
        CHECK(first_from(again, 1) == 1);
    }
}
