#include "runner/template_match.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
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

util::Result<void> match_template(campaign::Campaign& c, const std::vector<service::TemplateInfo>& list) {
    campaign::TemplateMessage& t = c.message.templated;
    std::vector<const service::TemplateInfo*> named;
    std::set<std::string> all_names;
    for (const auto& info : list) {
        all_names.insert(info.name);
        if (info.name == t.name) {
            named.push_back(&info);
        }
    }
    if (named.empty()) {
        return util::fail(fmt::format("{}: the account has no template \"{}\" (it has: {}); nothing was sent", c.file,
                                      t.name, fmt::join(all_names, ", ")));
    }
    std::vector<std::string> languages;
    for (const auto* info : named) {
        languages.push_back(info->language);
    }
    const service::TemplateInfo* found = nullptr;
    if (t.language.empty()) {
        if (named.size() > 1) {
            return util::fail(
                fmt::format("{}: template \"{}\" exists in several languages ({}): set "
                            "message.language; nothing was sent",
                            c.file, t.name, fmt::join(languages, ", ")));
        }
        found = named.front();
    } else {
        auto it =
            std::find_if(named.begin(), named.end(), [&](const auto* info) { return info->language == t.language; });
        if (it == named.end()) {
            return util::fail(fmt::format("{}: template \"{}\" has no language \"{}\" (it has: {}); nothing was sent",
                                          c.file, t.name, t.language, fmt::join(languages, ", ")));
        }
        found = *it;
    }
    const std::string what = fmt::format("template \"{}\" ({})", t.name, found->language);
    if (found->status != "APPROVED") {
        return util::fail(fmt::format("{}: {} has status {}, not APPROVED; nothing was sent", c.file, what,
                                      found->status.empty() ? "(none)" : found->status));
    }
    if (auto header = check_header(t, *found, what); !header) {
        return util::fail(fmt::format("{}: {}; nothing was sent", c.file, header.error().message));
    }
    if (auto body = check_body(t, *found, what); !body) {
        return util::fail(fmt::format("{}: {}; nothing was sent", c.file, body.error().message));
    }
    t.id = found->id;
    t.category = found->category;
    t.header_text = found->text_header;
    t.body_text = found->body;
    t.footer = found->footer;
    t.button_labels = found->buttons;
    return {};
}

}  // namespace runner
