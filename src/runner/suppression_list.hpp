#pragma once
// Numbers for the account's suppression list from outside a run: a do-not-contact CSV
// (suppression.files, `wacamp suppress import`), read as a stream and normalised as the
// campaign's CSV is, and numbers typed on a command line (`wacamp suppress add|remove`).

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "account/ledger.hpp"
#include "campaign/phone.hpp"
#include "util/clock.hpp"
#include "util/result.hpp"

namespace runner {

struct ListReading {
    std::int64_t numbers = 0;           // numbers passed to `each`
    std::int64_t problems = 0;          // rows skipped: not a number, a malformed row
    std::vector<std::string> examples;  // the first few problems, "FILE:LINE: why"
};

// Calls `each` with the wa_id of every number in the CSV at `path`: the column `wa_id`, else
// `phone`, else the first. Rows whose number cannot be read are counted, not fatal (a list
// meant to stop messages must not stop at a typo). Fails when the file cannot be opened or
// read on, naming it; `each` failing stops the reading with its error.
util::Result<ListReading> read_suppression_list(const std::string& path, const campaign::PhoneNormalizer& phones,
                                                const std::function<util::Result<void>(std::string)>& each);

// Returns the source of the entries the list at `path` adds: "file:NAME", NAME its base name.
std::string list_source(const std::string& path);

// What a list's numbers are entered with.
struct ListEntry {
    std::string reason;  // "listed", or a person's text
    std::string source;  // list_source(path)
    util::TimePoint since;
};

struct ListImport {
    ListReading reading;
    std::int64_t added = 0;  // numbers that were not on the suppression list yet
};

// Adds the numbers of the CSV at `path` to `ledger`'s suppression list as `entry` says, in
// batches of 10,000 (one transaction each; the file is never held in memory). A number already
// listed keeps its entry. Fails as read_suppression_list does, or with the ledger's error;
// the batches written before stay written (importing again is harmless).
util::Result<ListImport> import_suppression_list(account::Ledger& ledger, const std::string& path,
                                                 const campaign::PhoneNormalizer& phones, const ListEntry& entry);

enum class NumberForm {
    as_csv,         // as the campaign's CSV is read (its default country applying)
    international,  // must start with "+": there is no default country to assume
};

// Returns the wa_ids of `numbers` normalised by `phones`, each once, in the order first given.
// Fails, naming every number that is unusable (one per line), when any is: then none is
// returned, so that a typo never lets the others through half done.
util::Result<std::vector<std::string>> normalize_numbers(const std::vector<std::string>& numbers,
                                                         const campaign::PhoneNormalizer& phones, NumberForm form);

}  // namespace runner
