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

}  // namespace account::tables
