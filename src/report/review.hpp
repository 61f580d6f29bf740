#pragma once
// What a dry run's log shows a reviewer about its messages (docs/result-log.md, `message`):
// the first messages, which placeholders fell back to their default and how often, and the
// longest messages. Folded in one pass; memory is bounded whatever the number of rows.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "results/records.hpp"

namespace report {

struct ReviewedMessage {
    std::int64_t row = 0;
    std::string wa_id;
    std::string user_name;
    results::Status status = results::Status::dry_run;
    std::string error;                // why a content rule refused it; empty otherwise
    results::MessageContent message;  // as it would be sent
    std::size_t characters = 0;       // code points of its text, or of its caption
};

struct DefaultCount {
    std::string placeholder;
    std::int64_t rows = 0;  // rows where it took its default
};

struct Review {
    static constexpr std::size_t k_messages_kept = 1000;
    static constexpr std::size_t k_longest_kept = 5;
    static constexpr std::size_t k_placeholders_kept = 100;  // a log names at most this many

    std::int64_t messages = 0;             // result records that carry a message
    std::int64_t rows_with_defaults = 0;   // of those, rows where a placeholder fell back
    std::vector<ReviewedMessage> first;    // the first k_messages_kept, in log order
    std::vector<ReviewedMessage> longest;  // the longest, longest first (ties: earlier row)
    std::vector<DefaultCount> defaults;    // most frequent first
    std::int64_t other_placeholders = 0;   // fallbacks of placeholders past k_placeholders_kept

    // Adds the message of `record`, if it has one.
    void add(const results::ResultRecord& record);
    // Puts `longest` and `defaults` in order; call once, after the last add().
    void finish();
};

}  // namespace report
