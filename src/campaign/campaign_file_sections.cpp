// The `message`, `template`, `rate`, `retry`, `abort` and `cleanup` sections of a campaign file.

#include "campaign/campaign_file_sections.hpp"
#include "campaign/rate_card.hpp"
#include "util/text.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <set>

namespace campaign::detail {

namespace {

constexpr std::string_view k_message_keys[] = {"type",        "text",           "source",   "label",  "check_media",
                                               "template",    "language",       "header",   "body",   "buttons",
                                               "template_id", "paused_regions", "category", "recheck"};
constexpr std::string_view k_message_types[] = {"text", "image", "template"};
constexpr std::string_view k_template_only_keys[] = {"template",    "language",       "header",   "body",   "buttons",
                                                     "template_id", "paused_regions", "category", "recheck"};
constexpr std::string_view k_categories[] = {"MARKETING", "UTILITY", "AUTHENTICATION"};
constexpr std::string_view k_header_keys[] = {"text", "image", "video", "document", "filename"};
constexpr std::string_view k_button_keys[] = {"index", "text"};
constexpr long long k_max_button_index = 9;  // WhatsApp allows at most 10 buttons
constexpr std::string_view k_template_keys[] = {"name"};
constexpr std::string_view k_rate_keys[] = {"per_second",      "burst",   "concurrency",
                                            "max_concurrency", "per_day", "per_recipient"};
constexpr std::string_view k_per_recipient_keys[] = {"max", "per"};
constexpr std::string_view k_retry_keys[] = {"max_attempts", "initial_backoff", "max_backoff", "ambiguous"};
constexpr std::string_view k_ambiguous[] = {"retry", "hold"};
constexpr std::string_view k_abort_keys[] = {"max_consecutive_failures", "max_throttled", "max_invalid_share"};
constexpr std::string_view k_cleanup_keys[] = {"delete_contacts", "only", "batch_size"};
constexpr std::string_view k_cleanup_scopes[] = {"sent", "all"};

// Bounds that catch typos and overflow ("per_day: 1e12") rather than express policy.
constexpr double k_max_per_second = 100'000;
constexpr long long k_max_burst = 100'000;
constexpr long long k_max_concurrency = 1024;  // also the bound of max_concurrency
constexpr long long k_max_per_day = 1'000'000'000;
constexpr long long k_max_attempts = 100;
constexpr long long k_max_failures = 1'000'000;
constexpr long long k_max_batch = 1000;  // ids per status-update request

void refuse(const Section& m, std::string_view key, std::string_view why) {
    if (m.has(key)) {
        m.problem(key, std::string(why));
    }
}

// What a key that takes a number or one word (`unlimited`, `auto`) holds.
enum class Holds { nothing, word, number };

// Reads `key` as far as telling `word` from a number: nothing when it is absent or wrong (a
// wrong type, or another word, is reported with a "did you mean"); number when the caller's
// number reader should take it (and report a bad number in its own words).
Holds word_or_number(const Section& s, std::string_view key, std::string_view word, std::string_view number) {
    if (!s.has(key)) {
        return Holds::nothing;
    }
    auto text = s.text(key);
    if (!text) {
        return Holds::nothing;
    }
    if (*text == word) {
        return Holds::word;
    }
    const char first = text->empty() ? '0' : (*text)[0];
    if ((first >= 'a' && first <= 'z') || (first >= 'A' && first <= 'Z')) {
        // The number readers would say only "expected a number" to "unlimted" or "inf".
        const std::string_view words[] = {word};
        s.problem(key, with_suggestion(fmt::format("expected {} or {}, got {}", word, number, in_quotes(*text)), *text,
                                       words));
        return Holds::nothing;
    }
    return Holds::number;
}

void read_rate(const Section& rate, Rate& out) {
    switch (word_or_number(rate, "per_second", "unlimited", "a number")) {
    case Holds::word: out.per_second = Rate::k_unlimited; break;
    case Holds::number:
        out.per_second = rate.positive_number("per_second", k_max_per_second).value_or(out.per_second);
        break;
    case Holds::nothing: break;
    }
    out.burst = static_cast<int>(rate.integer("burst", 0, k_max_burst).value_or(out.burst));
    const Holds concurrency = word_or_number(rate, "concurrency", "auto", "a whole number");
    if (concurrency == Holds::word) {
        out.concurrency.reset();
    } else if (concurrency == Holds::number) {
        if (auto fixed = rate.integer("concurrency", 1, k_max_concurrency)) {
            out.concurrency = static_cast<int>(*fixed);
        }
    }
    if (auto cap = rate.integer("max_concurrency", 1, k_max_concurrency)) {
        out.max_concurrency = static_cast<int>(*cap);
        // A cap that caps nothing is a misunderstanding worth saying, like `label` on a text message.
        if (concurrency == Holds::number) {
            rate.problem("max_concurrency", "only applies to concurrency: auto (a fixed concurrency is its own cap)");
        }
    }
    if (auto per_day = rate.integer("per_day", 1, k_max_per_day)) {
        out.per_day = *per_day;
    }
    if (auto per_recipient = rate.section("per_recipient", Need::optional, k_per_recipient_keys)) {
        using std::chrono::hours, std::chrono::minutes;
        PerRecipient limit;
        limit.max = per_recipient->integer("max", 1, k_max_per_day).value_or(limit.max);
        limit.per =
            per_recipient->duration("per", {minutes(1), hours(24 * 366), "between 1m and 366d"}).value_or(limit.per);
        out.per_recipient = limit;
    }
}

void read_template(const Section& root, Campaign& out) {
    auto section = root.section("template", Need::optional, k_template_keys);
    if (!section) {
        return;
    }
    if (auto name = section->text("name", Need::required)) {
        out.template_check = TemplateCheck{std::move(*name)};
    }
}

// A template's header: exactly one of text, image, video or document (with an optional filename).
void read_template_header(const Section& m, TemplateMessage& out) {
    auto header = m.section("header", Need::optional, k_header_keys);
    if (!header) {
        return;
    }
    constexpr std::pair<std::string_view, HeaderKind> kinds[] = {{"text", HeaderKind::text},
                                                                 {"image", HeaderKind::image},
                                                                 {"video", HeaderKind::video},
                                                                 {"document", HeaderKind::document}};
    std::vector<std::string_view> given;
    for (const auto& [key, kind] : kinds) {
        if (auto value = header->text(key)) {
            given.push_back(key);
            out.header = kind;
            out.header_value = std::move(*value);
        }
    }
    if (given.size() != 1) {
        m.problem("header", given.empty()
                                ? "needs one of text, image, video or document"
                                : fmt::format("has {}: a template has one header", fmt::join(given, " and ")));
    }
    if (auto filename = header->text("filename")) {
        if (out.header != HeaderKind::document) {
            header->problem("filename", "only applies to a document header");
        }
        out.filename = std::move(*filename);
    }
}

// A template's body: a list fills {{1}}, {{2}} … in order; a mapping fills named variables.
void read_template_body(const Section& m, TemplateMessage& out) {
    if (!m.has("body")) {
        return;
    }
    if (m.holds_list("body")) {
        if (auto values = m.list("body")) {
            for (auto& value : *values) {
                // Each value's own line, for a placeholder in it that names no column.
                m.context().lines[fmt::format("{}[{}]", m.path_of("body"), out.body.size())] = value.line;
                out.body.push_back({std::string(), std::move(value.text)});
            }
        }
        return;
    }
    auto named = m.string_map("body");
    if (!named) {
        return;
    }
    out.named = true;
    for (auto& [name, value] : *named) {
        const bool word = !name.text.empty() && std::all_of(name.text.begin(), name.text.end(), [](char c) {
            return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
        });
        if (!word) {
            m.context().problem(name.line, fmt::format("{}: variable name {} must be lower-case letters, digits and _ "
                                                       "(as the template writes {{{{name}}}})",
                                                       m.path_of("body"), in_quotes(name.text)));
        }
        out.body.push_back({std::move(name.text), std::move(value.text)});
    }
}

// A template's buttons: the variable part of URL buttons, each by its index.
void read_template_buttons(const Section& m, TemplateMessage& out) {
    auto buttons = m.sections("buttons", k_button_keys);
    if (!buttons) {
        return;
    }
    std::set<long long> seen;
    for (const auto& button : *buttons) {
        auto index = button.integer("index", 0, k_max_button_index);
        auto text = button.text("text", Need::required);
        if (!button.has("index")) {
            button.missing("index");
        }
        if (index && !seen.insert(*index).second) {
            button.problem("index", fmt::format("button {} is given twice", *index));
        }
        if (index && text) {
            out.buttons.push_back({static_cast<int>(*index), std::move(*text)});
        }
    }
}

// message.template_id: a record's `_id`, as the template list gives it.
void read_template_id(const Section& m, TemplateMessage& t) {
    auto id = m.text("template_id");
    if (!id) {
        return;
    }
    const bool hex = id->size() == 24 && std::all_of(id->begin(), id->end(), [](char c) {
                         return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
                     });
    if (!hex) {
        m.problem("template_id",
                  "must be a template record's _id: 24 hex digits, as `wacamp templates --json` shows it");
        return;
    }
    t.template_id = util::ascii_lower(*id);
}

// message.paused_regions: a list of ISO 3166-1 alpha-2 codes, possibly empty.
void read_paused_regions(const Section& m, TemplateMessage& t) {
    if (!m.has("paused_regions")) {
        return;
    }
    auto items = m.list("paused_regions");
    if (!items) {
        return;  // not a list: reported
    }
    t.paused_regions.clear();
    for (std::size_t i = 0; i < items->size(); ++i) {
        const std::string code = util::ascii_upper((*items)[i].text);
        if (!known_country(code)) {
            m.problem("paused_regions",
                      fmt::format("item {}: expected an ISO 3166-1 alpha-2 region code like US, got {}", i + 1,
                                  in_quotes((*items)[i].text)));
        } else if (std::find(t.paused_regions.begin(), t.paused_regions.end(), code) == t.paused_regions.end()) {
            t.paused_regions.push_back(std::move(code));
        }
    }
}

// message.recheck: how often the template list is read again while sending; `off`: never.
void read_recheck(const Section& m, TemplateMessage& t) {
    const auto text = m.text("recheck");
    if (!text) {
        return;  // absent: the default; not a scalar: reported
    }
    if (*text == "off") {
        t.recheck.reset();
        return;
    }
    if (auto every =
            m.duration("recheck", {std::chrono::seconds(10), std::chrono::hours(24), "between 10s and 24h, or off"})) {
        t.recheck = *every;
    }
}

void read_template_message(const Section& root, const Section& m, Campaign& out) {
    out.message.type = MessageType::template_message;
    TemplateMessage& t = out.message.templated;
    t.name = m.text("template", Need::required).value_or("");
    t.language = m.text("language").value_or("");
    read_template_id(m, t);
    read_paused_regions(m, t);
    read_recheck(m, t);
    if (auto category = m.text("category")) {
        std::string upper = util::ascii_upper(*category);
        if (std::find(std::begin(k_categories), std::end(k_categories), upper) == std::end(k_categories)) {
            m.problem("category",
                      fmt::format("expected MARKETING, UTILITY or AUTHENTICATION, got {}", in_quotes(*category)));
        } else {
            t.pinned_category = std::move(upper);
        }
    }
    read_template_header(m, t);
    read_template_body(m, t);
    read_template_buttons(m, t);
    const std::string why =
        "not allowed with type template (the template holds the text: fill its variables "
        "with header, body and buttons)";
    for (const auto key : {"text", "source", "label"}) {
        refuse(m, key, why);
    }
    out.message.check_media = m.boolean("check_media").value_or(false);
    if (out.message.check_media && t.header != HeaderKind::image && t.header != HeaderKind::video &&
        t.header != HeaderKind::document) {
        m.problem("check_media",
                  "only applies to a template with an image, video or document header (this one has no media to "
                  "check)");
    }
    if (root.has("template")) {
        root.problem("template",
                     "a template campaign names its template in message.template: use message.template "
                     "(the top-level template: key checks a text or image campaign's template)");
    }
}

}  // namespace

void read_message(const Section& root, Campaign& out) {
    read_template(root, out);
    auto section = root.section("message", Need::required, k_message_keys);
    if (!section) {
        return;
    }
    const Section& m = *section;
    auto type = m.choice("type", k_message_types, Need::required);
    if (!type) {
        // Unknown type: still check the fields' values, not which of them are allowed.
        (void)m.text("text");
        (void)m.text("source");
        (void)m.text("label");
        (void)m.boolean("check_media");
        return;
    }
    if (*type == 2) {
        read_template_message(root, m, out);
        return;
    }
    for (const auto key : k_template_only_keys) {
        refuse(m, key, "only applies to type template");
    }
    if (*type == 0) {
        out.message.type = MessageType::text;
        out.message.text = m.text("text", Need::required).value_or("");
        refuse(m, "source", "not allowed with type text (an image message has a source)");
        refuse(m, "label", "not allowed with type text (it is an image's caption)");
        if (m.boolean("check_media").value_or(false)) {
            m.problem("check_media", "only applies to type image (a text message has no image to check)");
        }
        return;
    }
    out.message.type = MessageType::image;
    out.message.source = m.text("source", Need::required).value_or("");
    refuse(m, "text", "not allowed with type image (use label for a caption)");
    if (auto label = m.text("label"); label && !label->empty()) {
        out.message.label = std::move(*label);
    }
    out.message.check_media = m.boolean("check_media").value_or(false);
}

void read_pacing(const Section& root, Campaign& out) {
    if (auto rate = root.section("rate", Need::optional, k_rate_keys)) {
        read_rate(*rate, out.rate);
    }
    if (auto retry = root.section("retry", Need::optional, k_retry_keys)) {
        using std::chrono::hours, std::chrono::milliseconds;
        out.retry.max_attempts =
            static_cast<int>(retry->integer("max_attempts", 1, k_max_attempts).value_or(out.retry.max_attempts));
        auto initial = retry->duration("initial_backoff", {milliseconds(1), hours(1), "between 1ms and 1h"});
        auto max = retry->duration("max_backoff", {milliseconds(1), hours(24), "between 1ms and 24h"});
        out.retry.initial_backoff = initial.value_or(out.retry.initial_backoff);
        out.retry.max_backoff = max.value_or(out.retry.max_backoff);
        if ((initial || max) && out.retry.initial_backoff > out.retry.max_backoff) {
            if (initial) {
                retry->problem("initial_backoff", "must not be longer than retry.max_backoff");
            } else {
                retry->problem("max_backoff", "must not be shorter than retry.initial_backoff");
            }
        }
        if (auto ambiguous = retry->choice("ambiguous", k_ambiguous)) {
            out.retry.ambiguous = *ambiguous == 0 ? Ambiguous::retry : Ambiguous::hold;
        }
    }
    if (auto abort = root.section("abort", Need::optional, k_abort_keys)) {
        out.abort.max_consecutive_failures = static_cast<int>(
            abort->integer("max_consecutive_failures", 1, k_max_failures).value_or(out.abort.max_consecutive_failures));
        using std::chrono::hours, std::chrono::seconds;
        out.abort.max_throttled = abort->duration("max_throttled", {seconds(1), hours(24 * 7), "between 1s and 7d"})
                                      .value_or(out.abort.max_throttled);
        out.abort.max_invalid_share = abort->fraction("max_invalid_share").value_or(out.abort.max_invalid_share);
    }
}

void read_cleanup(const Section& root, Cleanup& out) {
    auto section = root.section("cleanup", Need::optional, k_cleanup_keys);
    if (!section) {
        return;
    }
    out.delete_contacts = section->boolean("delete_contacts").value_or(out.delete_contacts);
    if (auto only = section->choice("only", k_cleanup_scopes)) {
        out.only = *only == 0 ? CleanupScope::sent : CleanupScope::all;
    }
    out.batch_size = static_cast<int>(section->integer("batch_size", 1, k_max_batch).value_or(out.batch_size));
}

}  // namespace campaign::detail
