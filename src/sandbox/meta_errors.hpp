#pragma once
// `--meta-error WA_ID=CODE[xN]`: Meta's answers about one recipient, on demand. The option's
// syntax, the answers' texts and statuses, and the count of answers left per number.

#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "sandbox/options.hpp"
#include "sandbox/responses.hpp"
#include "util/result.hpp"

namespace sandbox {

// Returns the rule `text` spells: "919812345678=131056" or "919812345678=131056x2". Fails
// saying what is wrong: a wa_id that is not 8 to 15 digits, a code that is not a positive
// number of at most 9 digits, a count that is not a whole number from 1 to 1,000,000.
util::Result<MetaErrorRule> parse_meta_error(std::string_view text);

// Returns the error Meta answers with `code` (its title and details; a generic one for codes
// it does not know).
MetaError meta_error_for(int code);

// Returns the HTTP status the sandbox answers `code` with: 429 for the pair rate (131056), 400
// for the others.
int meta_error_status(int code);

// Which sends get which error, and how many times more. Not thread-safe.
class MetaErrors {
public:
    // `rules` with at most one rule per wa_id (the last one counts).
    explicit MetaErrors(const std::vector<MetaErrorRule>& rules);
    // Returns the code to answer a send to `wa_id` with, using up one of its answers; 0 when
    // the send is to go on as usual.
    int next(std::string_view wa_id);

private:
    struct Left {
        int code = 0;
        long remaining = -1;  // -1: always
    };
    std::unordered_map<std::string, Left> m_left;
};

}  // namespace sandbox
