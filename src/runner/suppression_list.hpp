#pragma once
// A do-not-contact CSV (suppression.files, `wacamp suppress import`): its numbers, normalised
// as the campaign's CSV is, read as a stream.

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "campaign/phone.hpp"
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

}  // namespace runner
