#include "runner/template_match.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <iterator>
#include <set>

#include "campaign/template_text.hpp"
#include "util/text.hpp"

namespace runner {

namespace {

using campaign::HeaderKind;

std::string_view name_of(HeaderKind kind) {
    switch (kind) {
    case HeaderKind::none: return "no header";
    case HeaderKind::text: return "a text header";
    case HeaderKind::image: return "an image header";
    case HeaderKind::video: return "a video header";
    case HeaderKind::document: return "a document header";
    }
    return "a header";
}

// What the template's header takes from the campaign, by the list's `header`.
struct HeaderNeed {
    bool known = true;
    HeaderKind kind = HeaderKind::none;
};

HeaderNeed header_need(const service::TemplateInfo& t) {
    const std::string header = util::ascii_lower(t.header);
    if (header.empty() || header == "none") {
        return {true, HeaderKind::none};
    }
    if (header == "text") {
        // A text header without variables is fixed: the campaign gives nothing.
        return {true, campaign::variables_of(t.text_header).empty() ? HeaderKind::none : HeaderKind::text};
    }
    if (header == "image") {
        return {true, HeaderKind::image};
    }
    if (header == "video") {
        return {true, HeaderKind::video};
    }
    if (header == "document") {
        return {true, HeaderKind::document};
    }
    return {false, HeaderKind::none};
}

// "{{1}}, {{2}}" or "{{customer}}, {{order_id}}".
std::string variable_list(const campaign::TemplateVariables& v) {
    std::vector<std::string> names;
    for (int n = 1; n <= v.positional; ++n) {
        names.push_back(fmt::format("{{{{{}}}}}", n));
    }
    for (const auto& name : v.named) {
        names.push_back(fmt::format("{{{{{}}}}}", name));
    }
    return fmt::format("{}", fmt::join(names, ", "));
}

util::Result<void> check_header(const campaign::TemplateMessage& given, const service::TemplateInfo& t,
                                const std::string& what) {
    const HeaderNeed need = header_need(t);
    if (!need.known) {
        return {};  // a header kind the list shows but the documentation does not: not checked
    }
    if (need.kind == HeaderKind::text && campaign::variables_of(t.text_header).positional > 1) {
        return util::fail(fmt::format("{}'s header \"{}\" takes {} variables; a template header takes at most one",
                                      what, util::printable(t.text_header),
                                      variable_list(campaign::variables_of(t.text_header))));
    }
    if (need.kind != given.header) {
        return util::fail(fmt::format(
            "{} has {}{}; message.header gives {}", what, name_of(need.kind),
            need.kind == HeaderKind::text ? fmt::format(" (\"{}\")", util::printable(t.text_header)) : std::string(),
            name_of(given.header)));
    }
    return {};
}

util::Result<void> check_body(const campaign::TemplateMessage& given, const service::TemplateInfo& t,
                              const std::string& what) {
    const auto takes = campaign::variables_of(t.body);
    const auto gives = given.body.size();
    if (takes.empty()) {
        if (gives > 0) {
            return util::fail(fmt::format("{}'s body has no variables; message.body gives {}", what,
                                          util::counted(static_cast<long long>(gives), "value")));
        }
        return {};
    }
    if (!takes.named.empty()) {
        std::set<std::string> expected(takes.named.begin(), takes.named.end());
        std::set<std::string> names;
        for (const auto& v : given.body) {
            names.insert(v.name);
        }
        if (!given.named || names != expected) {
            return util::fail(
                fmt::format("{}'s body takes the named variables {}; message.body must be a mapping of "
                            "exactly these names{}",
                            what, variable_list(takes),
                            given.named ? fmt::format(" (it gives {})", fmt::join(names, ", "))
                                        : std::string(" (it gives a list)")));
        }
        return {};
    }
    if (given.named || static_cast<int>(gives) != takes.positional) {
        return util::fail(fmt::format(
            "{}'s body takes {} ({}); message.body gives {}", what, util::counted(takes.positional, "variable"),
            variable_list(takes),
            given.named ? std::string("a mapping of names") : util::counted(static_cast<long long>(gives), "value")));
    }
    return {};
}

}  // namespace

void ListedNames::add(const std::string& name) {
    ++m_records;
    m_first.insert(name);
    if (m_first.size() > k_shown) {
        m_first.erase(std::prev(m_first.end()));
        m_more = true;
    }
}

std::string ListedNames::text() const {
    std::vector<std::string> shown;
    for (const auto& name : m_first) {
        shown.push_back(util::printable(name));
    }
    if (!m_more) {
        return fmt::format("{}", fmt::join(shown, ", "));
    }
    return fmt::format("{}, … (the first {} names of {} records; `wacamp templates` lists them)",
                       fmt::join(shown, ", "), k_shown, m_records);
}

void TemplateShortlist::add(const service::TemplateInfo& info) {
    m_names.add(info.name);
    if (info.name != m_name) {
        return;
    }
    if (m_named.size() < k_max_named) {
        m_named.push_back(info);
    } else {
        m_overflowed = true;
    }
}

namespace {

using Records = std::vector<const service::TemplateInfo*>;

// "65f0… (APPROVED, MARKETING), 65f1… (APPROVED, UTILITY)": each record's `_id`, status and category.
std::string describe(const Records& records) {
    std::vector<std::string> each;
    for (const auto* r : records) {
        each.push_back(fmt::format("_id {} ({}, {})", util::printable(r->id.empty() ? "(none)" : r->id),
                                   util::printable(r->status.empty() ? "no status" : r->status),
                                   util::printable(r->category.empty() ? "no category" : r->category)));
    }
    return fmt::format("{}", fmt::join(each, ", "));
}

// The records of the template's name in its language: message.language's, or the name's only
// one (or all of them, for message.template_id to pick from).
util::Result<Records> in_language(const campaign::Campaign& c, const std::vector<service::TemplateInfo>& named) {
    const campaign::TemplateMessage& t = c.message.templated;
    std::vector<std::string> languages;  // each once, in the list's order
    Records records;
    for (const auto& info : named) {
        if (std::find(languages.begin(), languages.end(), info.language) == languages.end()) {
            languages.push_back(info.language);
        }
        if (info.language == t.language) {
            records.push_back(&info);
        }
    }
    for (auto& language : languages) {
        language = util::printable(language);
    }
    // message.template_id names one record whatever its language.
    if (t.language.empty() && languages.size() > 1 && t.template_id.empty()) {
        return util::fail(
            fmt::format("{}: template \"{}\" exists in several languages ({}): set "
                        "message.language; nothing was sent",
                        campaign::where(c, "message.template"), t.name, fmt::join(languages, ", ")));
    }
    if (t.language.empty()) {
        for (const auto& info : named) {
            records.push_back(&info);
        }
    }
    if (records.empty()) {
        return util::fail(fmt::format("{}: template \"{}\" has no language \"{}\" (it has: {}); nothing was sent",
                                      campaign::where(c, "message.language"), t.name, t.language,
                                      fmt::join(languages, ", ")));
    }
    return records;
}

// The template's record among `records` (its name's, in its language), and a note when it was
// chosen among several because it alone is APPROVED.
struct Chosen {
    const service::TemplateInfo* record = nullptr;
    std::string note;
};

util::Result<Chosen> choose(const campaign::Campaign& c, const Records& records, const std::string& what) {
    const campaign::TemplateMessage& t = c.message.templated;
    if (!t.template_id.empty()) {
        for (const auto* r : records) {
            if (util::ascii_lower(r->id) == t.template_id) {
                return Chosen{r, {}};
            }
        }
        return util::fail(fmt::format("{}: message.template_id {} is none of {}'s records ({}); nothing was sent",
                                      campaign::where(c, "message.template_id"), t.template_id, what,
                                      describe(records)));
    }
    if (records.size() == 1) {
        return Chosen{records.front(), {}};
    }
    Records approved;
    std::copy_if(records.begin(), records.end(), std::back_inserter(approved),
                 [](const auto* r) { return r->status == "APPROVED"; });
    if (approved.size() == 1) {
        return Chosen{approved.front(),
                      fmt::format("{} has {} records; using _id {}, the only one APPROVED (message.template_id "
                                  "picks a record)",
                                  what, records.size(), util::printable(approved.front()->id))};
    }
    return util::fail(
        fmt::format("{}: {} has {} records ({}): set message.template_id to the _id of the one to "
                    "send; nothing was sent",
                    campaign::where(c, "message.template"), what, records.size(), describe(records)));
}

}  // namespace

util::Result<std::string> match_template(campaign::Campaign& c, const TemplateShortlist& list) {
    campaign::TemplateMessage& t = c.message.templated;
    if (list.named().empty()) {
        return util::fail(fmt::format("{}: the account has no template \"{}\" (it has: {}); nothing was sent",
                                      campaign::where(c, "message.template"), t.name, list.names().text()));
    }
    if (list.overflowed()) {
        return util::fail(fmt::format("{}: the template list has more than {} records named \"{}\"; nothing was sent",
                                      campaign::where(c, "message.template"), list.named().size(), t.name));
    }
    TRY_ASSIGN(const Records records, in_language(c, list.named()));
    const auto what_in = [&](const std::string& language) {
        return fmt::format("template \"{}\" ({})", t.name, util::printable(language));
    };
    TRY_ASSIGN(const Chosen chosen,
               choose(c, records,
                      t.language.empty() && !t.template_id.empty() ? fmt::format("template \"{}\"", t.name)
                                                                   : what_in(records.front()->language)));
    const service::TemplateInfo* found = chosen.record;
    const std::string what = what_in(found->language);
    if (found->status != "APPROVED") {
        return util::fail(fmt::format("{}: {} has status {}, not APPROVED; nothing was sent",
                                      campaign::where(c, "message.template"), what,
                                      found->status.empty() ? "(none)" : found->status));
    }
    if (auto header = check_header(t, *found, what); !header) {
        return util::fail(
            fmt::format("{}: {}; nothing was sent", campaign::where(c, "message.header"), header.error().message));
    }
    if (auto body = check_body(t, *found, what); !body) {
        return util::fail(
            fmt::format("{}: {}; nothing was sent", campaign::where(c, "message.body"), body.error().message));
    }
    t.id = found->id;
    t.category = found->category;
    t.header_text = found->text_header;
    t.body_text = found->body;
    t.footer = found->footer;
    t.button_labels = found->buttons;
    return chosen.note;
}

}  // namespace runner
