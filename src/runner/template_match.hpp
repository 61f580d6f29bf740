#pragma once
// A template campaign checked against the template itself, before anything is sent: the
// template found by name (and language, and `_id` when several records share them) in the
// account's list, APPROVED, and given exactly the variables its header and body take (SPEC
// "Template campaigns"). Pure: the list is read by the caller.

#include <cstddef>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "campaign/campaign.hpp"
#include "service/templates.hpp"
#include "util/result.hpp"

namespace runner {

// The names of a template list's records, for a message that says which the account has: the
// first 20 in order, and how many records there are. Bounded, whatever the list's size.
class ListedNames {
public:
    // Takes note of the name of one record.
    void add(const std::string& name);
    // "a, b, c", or "a, b, … (the first 20 names of 2,000 templates; `wacamp templates` lists them)".
    std::string text() const;

private:
    static constexpr std::size_t k_shown = 20;
    std::set<std::string> m_first;
    long long m_records = 0;
    bool m_more = false;
};

// What match_template needs of a template list, gathered record by record as it is read: the
// records named as the campaign's template (at most 1,000) and the list's names.
class TemplateShortlist {
public:
    explicit TemplateShortlist(std::string name) : m_name(std::move(name)) {}
    // Takes note of `info`, one record of the list.
    void add(const service::TemplateInfo& info);
    // The records named as the template, in the list's order.
    const std::vector<service::TemplateInfo>& named() const { return m_named; }
    // Whether more records bore the name than were kept.
    bool overflowed() const { return m_overflowed; }
    const ListedNames& names() const { return m_names; }

private:
    static constexpr std::size_t k_max_named = 1000;
    std::string m_name;
    std::vector<service::TemplateInfo> m_named;
    bool m_overflowed = false;
    ListedNames m_names;
};

// Finds the template `campaign.message.templated` names in `list` and fills in what the send
// needs of it (id, category, its header and body text). Several records of its name and language
// (message.language, or the only language of the name) are one only by message.template_id, or
// when exactly one of them is APPROVED: the returned note then says which was used (else it is
// empty). Fails, naming the template and the difference, when it is missing (or in another
// language), not APPROVED, named in several languages without message.language, several records
// that message.template_id does not tell apart (naming each `_id`, status and category), or when
// the campaign's header or body does not give what the template takes. Button variables are not
// checked (the list does not show them).
util::Result<std::string> match_template(campaign::Campaign& campaign, const TemplateShortlist& list);

}  // namespace runner
