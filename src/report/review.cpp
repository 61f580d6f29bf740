#include "report/review.hpp"

#include <algorithm>

#include "campaign/content_rules.hpp"

namespace report {

namespace {

bool longer(const ReviewedMessage& a, const ReviewedMessage& b) {
    return a.characters != b.characters ? a.characters > b.characters : a.row < b.row;
}

}  // namespace

void Review::add(const results::ResultRecord& record) {
    if (!record.message) {
        return;
    }
    ++messages;
    const auto& m = *record.message;
    // A template's limit is its body's (1,024); a text's its text; an image's its caption.
    const std::size_t characters = campaign::code_points(m.is_template() ? m.preview.body
                                                         : m.image       ? m.label.value_or("")
                                                                         : m.text);
    const bool keep_first = first.size() < k_messages_kept;
    // `longest` is a min-heap by length while folding: its front is the one to drop.
    const bool keep_longest = longest.size() < k_longest_kept || characters > longest.front().characters;
    if (keep_first || keep_longest) {
        ReviewedMessage reviewed{record.row, record.wa_id, record.user_name, record.status, record.error,
                                 m,          characters};
        if (keep_longest) {
            if (longest.size() == k_longest_kept) {
                std::pop_heap(longest.begin(), longest.end(), longer);
                longest.pop_back();
            }
            longest.push_back(reviewed);
            std::push_heap(longest.begin(), longest.end(), longer);
        }
        if (keep_first) {
            first.push_back(std::move(reviewed));
        }
    }
    if (!record.defaults.empty()) {
        ++rows_with_defaults;
    }
    for (const auto& name : record.defaults) {
        auto it = std::find_if(defaults.begin(), defaults.end(),
                               [&](const DefaultCount& d) { return d.placeholder == name; });
        if (it != defaults.end()) {
            ++it->rows;
        } else if (defaults.size() < k_placeholders_kept) {
            defaults.push_back({name, 1});
        } else {
            ++other_placeholders;
        }
    }
}

void Review::finish() {
    std::sort_heap(longest.begin(), longest.end(), longer);
    std::stable_sort(defaults.begin(), defaults.end(),
                     [](const DefaultCount& a, const DefaultCount& b) { return a.rows > b.rows; });
}

}  // namespace report
