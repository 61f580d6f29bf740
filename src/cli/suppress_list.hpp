#pragma once
// `wacamp suppress list`: the account's suppression list printed as it is read, as a table for
// people or as JSON Lines for programs.

#include <cstddef>
#include <string>

#include "account/types.hpp"

namespace cli {

class Output;

// The widths of the table's columns that vary (the time's is fixed; the source, last, is not
// padded), in characters.
struct ListWidths {
    std::size_t number = 6;  // "NUMBER"
    std::size_t reason = 6;  // "REASON"
};

// Returns `widths` widened to fit `entry`'s cells.
ListWidths widen(ListWidths widths, const account::Suppression& entry);

// Returns the table's heading line for `widths`.
std::string table_heading(const ListWidths& widths);

// Returns `entry` as one line of the table: "+NUMBER  REASON  SINCE  SOURCE", the columns
// padded to `widths`, each cell printable (a reason a person typed may hold control characters
// or line breaks).
std::string table_row(const account::Suppression& entry, const ListWidths& widths);

// Returns `entry` as one JSON line: {"wa_id", "reason", "since", "source"}; always valid JSON
// (bytes that are not UTF-8 become U+FFFD), with nothing a terminal would act on.
std::string json_row(const account::Suppression& entry);

enum class ListFormat { table, json };

// Whose list, in which ledger (a path or a PostgreSQL URL, and that URL's password when kept apart).
struct ListTarget {
    std::string account;
    std::string ledger;
    std::string password;
};

// Prints the suppression list of `target` on stdout as `format` says, one entry at a time:
// memory does not grow with the list (the table reads it twice, the first time for the widths).
// Opens the ledger read-only: a missing file (or PostgreSQL schema) is an empty list and is not
// created. Reports a failure through `out`; returns the exit code.
int list_suppressions(const ListTarget& target, ListFormat format, Output& out);

}  // namespace cli
