// The SQLite wrapper's statements, kept prepared per connection and lent out: a statement in use
// is never lent twice, and one given back keeps nothing of its last use.
#include <doctest/doctest.h>

#include "account/sqlite.hpp"

namespace {

using account::sqlite::Database;
using account::sqlite::Statement;

constexpr const char* k_select = "SELECT n FROM numbers WHERE n >= ?1 ORDER BY n";

}  // namespace

TEST_SUITE("account::sqlite") {
    TEST_CASE("two statements of one text in use at once step on their own") {
        Database db("", Database::Mode::memory);
        db.exec("CREATE TABLE numbers (n INTEGER); INSERT INTO numbers VALUES (1), (2), (3);");
        Statement first(db, k_select);
        first.bind(1, std::int64_t{2});
        REQUIRE(first.step());
        CHECK(first.integer(0) == 2);
        Statement second(db, k_select);
        second.bind(1, std::int64_t{1});
        REQUIRE(second.step());
        CHECK(second.integer(0) == 1);
        REQUIRE(first.step());
        CHECK(first.integer(0) == 3);
        CHECK_FALSE(first.step());
        REQUIRE(second.step());
        CHECK(second.integer(0) == 2);
    }
    TEST_CASE("a statement given back mid-way starts afresh, with nothing bound, for its next user") {
        Database db("", Database::Mode::memory);
        db.exec("CREATE TABLE numbers (n INTEGER); INSERT INTO numbers VALUES (1), (2), (3);");
        {
            Statement used(db, k_select);
            used.bind(1, std::int64_t{3});
            REQUIRE(used.step());
        }
        Statement again(db, k_select);
        // Unbound, ?1 is NULL: no row is >= NULL.
        CHECK_FALSE(again.step());
        again.rewind();
        again.bind(1, std::int64_t{1});
        REQUIRE(again.step());
        CHECK(again.integer(0) == 1);
    }
}
