#pragma once
// What both backends' schemas share (docs/ledger.md "What it holds"). `bigint` is an integer in
// SQLite as in PostgreSQL.

#include <string>
#include <string_view>

namespace account::tables {

// The columns of `sends`, every version of it so far, each line ending with a comma: the table's
// key follows.
inline constexpr std::string_view k_send_columns = R"(
    account  text NOT NULL,
    campaign text NOT NULL,
    csv_row  bigint NOT NULL,
    wa_id    text NOT NULL,
    at       bigint NOT NULL,
    state    text NOT NULL CHECK (state IN ('reserved', 'sent')),)";

// CREATE TABLE `name` with the columns of `sends` and the key `key` ("PRIMARY KEY (…)"), then
// `options` (" WITHOUT ROWID", or nothing).
inline std::string create_sends(std::string_view name, std::string_view key, std::string_view options) {
    std::string sql = "CREATE TABLE ";
    sql.append(name).append(" (").append(k_send_columns).append("\n    ").append(key).append("\n)");
    return sql.append(options).append(";\n");
}

// The accounts named in the tables `prefix` + suppressions, sends, undeliverable,
// marketing_holds and folds, each walked by a loose index scan: from one account to the next by
// the table's key (which starts with the account), so the call costs a seek an account and table,
// not a read of every send (4.4 s at 10 million sends in PostgreSQL). Every key's first column is
// `account`. `order` closes the statement ("ORDER BY 1", or a collation).
inline std::string accounts_sql(std::string_view prefix, std::string_view order) {
    std::string with = "WITH RECURSIVE ";
    std::string select;
    int n = 0;
    for (std::string_view table : {"suppressions", "sends", "undeliverable", "marketing_holds", "folds"}) {
        const std::string name = std::string(prefix).append(table);
        const std::string t = "t" + std::to_string(++n);
        with += (n > 1 ? ", " : "") + t + "(a) AS (SELECT (SELECT account FROM " + name +
                " ORDER BY account LIMIT 1) UNION ALL SELECT (SELECT account FROM " + name + " WHERE account > " + t +
                ".a ORDER BY account LIMIT 1) FROM " + t + " WHERE " + t + ".a IS NOT NULL)";
        select += (n > 1 ? " UNION " : "") + std::string("SELECT a FROM ") + t + " WHERE a IS NOT NULL";
    }
    return with + " SELECT a FROM (" + select + ") AS known " + std::string(order);
}

}  // namespace account::tables
