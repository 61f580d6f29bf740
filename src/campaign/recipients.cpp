#include "campaign/recipients.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <map>
#include <optional>

#include "campaign/content_rules.hpp"
#include "campaign/csv_reader.hpp"
#include "campaign/duplicates.hpp"
#include "campaign/phone.hpp"
#include "campaign/reason_groups.hpp"
#include "campaign/render.hpp"
#include "util/disk_array.hpp"
#include "util/redact.hpp"
#include "util/text.hpp"

namespace campaign {

namespace {

// Why a row whose message would carry a secret is not sent (the value itself is never repeated).
constexpr std::string_view k_holds_secret =
    "the message would hold the value of a secret (service.api_key, service.access_token, a "
    "service.headers value or a password): not sent";

// Where `key` sits in the campaign file, as "FILE:LINE: ".
std::string at(const Campaign& c, const std::string& key) {
    return where(c, key) + ": ";
}

std::string column_list(const std::vector<std::string>& header) {
    return fmt::format("{}", fmt::join(header, ", "));
}

// Counts rows and invalid rows by kind of reason, in memory bounded whatever the list.
class SurveyCounter {
public:
    void add(const Recipient& r) {
        ++m_survey.rows;
        if (r.verdict != Verdict::invalid) {
            return;
        }
        ++m_survey.invalid;
        m_reasons.add(r.reason, r.row);
    }

    ListSurvey finish(std::string dominant_country) {
        constexpr std::size_t k_kept = 5;
        auto groups = m_reasons.most_common();
        groups.resize(std::min(groups.size(), k_kept));
        for (auto& group : groups) {
            m_survey.reasons.emplace_back(std::move(group.reason), group.count);
        }
        m_survey.dominant_country = std::move(dominant_country);
        return std::move(m_survey);
    }

private:
    ListSurvey m_survey;
    ReasonGroups m_reasons;
};

std::string percent(double share) {
    return fmt::format("{:.1f}%", share * 100);
}

// A row's number as the first pass read and normalised it, kept for the second pass by row:
// normalising costs more than the rest of a row's reading. The second uses it only where the
// CSV still holds the very same text (a list rewritten between the passes is normalised
// afresh). A number too long to keep here is normalised twice.
struct KeptNumber {
    std::uint8_t raw_size = 0;  // 0: nothing kept for the row
    std::uint8_t wa_id_size = 0;
    std::array<char, 30> raw{};
    std::array<char, 16> wa_id{};
};

// The first pass's numbers, in a temporary file (DiskArray): memory stays flat. Only ever a
// shortcut: when the file cannot be written or read, the numbers are normalised again.
class NumberMemo {
public:
    // Starts keeping; stays off when the temporary file cannot be made.
    void start() {
        if (auto kept = util::DiskArray<KeptNumber>::create()) {
            m_kept = std::move(*kept);
        }
    }

    // The number the first pass found for `raw` in row `row`, if it kept it.
    std::optional<std::string> find(long long row, std::string_view raw) {
        if (!m_kept || raw.empty() || raw.size() > KeptNumber{}.raw.size()) {
            return std::nullopt;
        }
        const auto kept = m_kept->get(static_cast<std::uint64_t>(row));
        if (!kept) {
            m_kept.reset();  // unreadable: normalise from here on
            return std::nullopt;
        }
        if (std::string_view(kept->raw.data(), kept->raw_size) != raw) {
            return std::nullopt;
        }
        return std::string(kept->wa_id.data(), kept->wa_id_size);
    }

    void keep(long long row, std::string_view raw, std::string_view wa_id) {
        KeptNumber kept;
        if (!m_kept || raw.empty() || raw.size() > kept.raw.size() || wa_id.size() > kept.wa_id.size()) {
            return;
        }
        kept.raw_size = static_cast<std::uint8_t>(raw.size());
        kept.wa_id_size = static_cast<std::uint8_t>(wa_id.size());
        std::copy(raw.begin(), raw.end(), kept.raw.begin());
        std::copy(wa_id.begin(), wa_id.end(), kept.wa_id.begin());
        if (!m_kept->set(static_cast<std::uint64_t>(row), kept)) {
            m_kept.reset();  // the second pass normalises every number
        }
    }

private:
    std::optional<util::DiskArray<KeptNumber>> m_kept;
};

}  // namespace

struct RecipientStream::Impl {
    CsvReader reader;
    ListSurvey survey;
    PhoneNormalizer phones;
    DuplicateRows duplicates;
    std::string reader_name;  // the CSV's path, for messages
    MessageType type = MessageType::text;
    bool dedupe = true;
    std::size_t wa_id_col = 0;
    std::size_t name_col = 0;
    std::optional<std::size_t> user_id_col;
    std::optional<std::size_t> subscriber_id_col;
    std::string wa_id_name;
    std::string name_name;
    std::optional<BoundTemplate> text;
    std::optional<BoundTemplate> source;
    std::optional<BoundTemplate> label;
    // A template campaign's: the header, a document's file name, the body's and buttons' values.
    std::shared_ptr<const service::TemplateForm> form;
    std::optional<BoundTemplate> header;
    std::optional<BoundTemplate> filename;
    std::vector<BoundTemplate> body;
    std::vector<BoundTemplate> buttons;
    const MediaVerdicts* media = nullptr;  // images refused by a check before sending
    std::optional<RecipientZones> zones;   // each row's zone, with a window per recipient
    CsvRecord record;
    // The first pass keeps each row's number in `numbers` (keep_numbers), the second finds it there.
    NumberMemo numbers;
    bool keep_numbers = false;
    util::Redactor secrets;  // a row's values must not carry one to its recipient

    Impl(CsvReader r, PhoneNormalizer p) : reader(std::move(r)), phones(std::move(p)) {}

    // Fills the message of `out` from the record; returns the reason when the row is unusable.
    std::optional<std::string> fill(Recipient& out) {
        const auto& fields = record.fields;
        out.message = {};  // `out` is reused: nothing of the previous row may stay
        out.rendered = false;
        out.defaults.clear();
        // Cleanup ids first: `cleanup.only: all` needs them even for unusable rows.
        out.user_id = user_id_col ? fields[*user_id_col] : std::string();
        out.subscriber_id = subscriber_id_col ? fields[*subscriber_id_col] : std::string();
        out.raw_phone = fields[wa_id_col];
        auto wa_id = normalized(out.raw_phone);
        if (!wa_id) {
            return fmt::format("column \"{}\": {}", wa_id_name, wa_id.error().message);
        }
        out.message.wa_id = std::move(*wa_id);
        out.message.user_name = fields[name_col];
        if (out.message.user_name.find_first_not_of(" \t") == std::string::npos) {
            return fmt::format("column \"{}\" is empty", name_name);
        }
        if (type == MessageType::template_message) {
            return fill_template(out);
        }
        out.message.kind = type == MessageType::text ? service::MessageKind::text : service::MessageKind::image;
        const std::pair<std::optional<BoundTemplate>*, std::string*> parts[] = {
            {&text, &out.message.text}, {&source, &out.message.source}, {&label, &out.message.label}};
        for (auto [tmpl, target] : parts) {
            if (tmpl->has_value()) {
                if (auto r = (*tmpl)->render_into(fields, *target, &out.defaults); !r) {
                    return r.error().message;
                }
            } else {
                target->clear();
            }
        }
        out.message.has_label = label.has_value();
        out.rendered = true;
        if (auto problem = content_problem(out.message)) {
            return problem;
        }
        return refused_image(out);
    }

    // `raw`, the number of the current row, normalised (or found as the first pass left it).
    util::Result<std::string> normalized(const std::string& raw) {
        if (!keep_numbers) {
            if (auto kept = numbers.find(record.row, raw)) {
                return std::move(*kept);
            }
        }
        auto wa_id = phones.normalize(raw);
        if (keep_numbers && wa_id) {
            numbers.keep(record.row, raw, *wa_id);
        }
        return wa_id;
    }

    // Renders the template's values of the row into `out`; returns the reason when unusable.
    std::optional<std::string> fill_template(Recipient& out) {
        const auto& fields = record.fields;
        auto& m = out.message;
        m.kind = service::MessageKind::template_message;
        m.form = form;
        const auto render = [&](const BoundTemplate& tmpl, std::string& into) -> std::optional<std::string> {
            if (auto r = tmpl.render_into(fields, into, &out.defaults); !r) {
                return r.error().message;
            }
            return std::nullopt;
        };
        const auto render_all = [&](const std::vector<BoundTemplate>& from,
                                    std::vector<std::string>& into) -> std::optional<std::string> {
            into.resize(from.size());
            for (std::size_t i = 0; i < from.size(); ++i) {
                if (auto problem = render(from[i], into[i])) {
                    return problem;
                }
            }
            return std::nullopt;
        };
        if (header) {
            if (auto problem = render(*header, m.header_value)) {
                return problem;
            }
        }
        if (filename) {
            if (auto problem = render(*filename, m.filename)) {
                return problem;
            }
        }
        if (auto problem = render_all(body, m.body_values)) {
            return problem;
        }
        if (auto problem = render_all(buttons, m.button_texts)) {
            return problem;
        }
        out.rendered = true;
        if (auto problem = content_problem(m)) {
            return problem;
        }
        return refused_image(out);
    }

    // Why the image of `r`, rendered, fails the check before sending; nothing when it passed
    // or was not checked.
    std::optional<std::string> refused_image(const Recipient& r) const {
        const bool template_media = type == MessageType::template_message && form &&
                                    form->header != service::TemplateHeader::none &&
                                    form->header != service::TemplateHeader::text;
        const std::string& link = template_media ? r.message.header_value : r.message.source;
        const std::string* reason =
            media != nullptr && (type == MessageType::image || template_media) ? media->refusal(link) : nullptr;
        if (reason == nullptr) {
            return std::nullopt;
        }
        return fmt::format("{} {}: {}", template_media ? "header media" : "image", link, *reason);
    }

    // Whether the rendered `m` would carry a secret's value (a CSV cell holding the API key) to
    // its recipient, in any form the log would mask.
    bool holds_secret(const service::OutgoingMessage& m) const {
        if (secrets.empty()) {
            return false;
        }
        const auto any = [this](const std::vector<std::string>& values) {
            return std::any_of(values.begin(), values.end(), [this](const auto& v) { return secrets.holds(v); });
        };
        return secrets.holds(m.text) || secrets.holds(m.source) || secrets.holds(m.label) ||
               secrets.holds(m.header_value) || secrets.holds(m.filename) || any(m.body_values) || any(m.button_texts);
    }

    // Reads the next row into `out`, without looking for duplicates; false at the end.
    util::Result<bool> read(Recipient& out) {
        TRY_ASSIGN(const bool found, reader.next(record));
        if (!found) {
            return false;
        }
        out.row = record.row;
        out.line = record.line;
        out.verdict = Verdict::ok;
        out.reason.clear();
        if (!record.problem.empty()) {
            out.verdict = Verdict::invalid;
            out.reason = record.problem;
            // The reader says "row 7 has …" or "row 7: column …"; callers name the row themselves.
            if (std::string prefix = fmt::format("row {}: ", out.row); out.reason.rfind(prefix, 0) == 0) {
                out.reason = out.reason.substr(prefix.size());
            } else if (prefix = fmt::format("row {} ", out.row); out.reason.rfind(prefix, 0) == 0) {
                out.reason = "the row " + out.reason.substr(prefix.size());
            }
            out.raw_phone.clear();
            out.message = {};
            out.rendered = false;
            out.defaults.clear();
            out.user_id.clear();
            out.subscriber_id.clear();
            return true;
        }
        if (auto problem = fill(out)) {
            out.verdict = Verdict::invalid;
            out.reason = util::printable(*problem);  // it may quote raw CSV values
            return true;
        }
        if (holds_secret(out.message)) {
            out.verdict = Verdict::invalid;
            out.reason = k_holds_secret;
        }
        return true;
    }
};

namespace {

service::TemplateHeader header_of(HeaderKind kind) {
    switch (kind) {
    case HeaderKind::none: return service::TemplateHeader::none;
    case HeaderKind::text: return service::TemplateHeader::text;
    case HeaderKind::image: return service::TemplateHeader::image;
    case HeaderKind::video: return service::TemplateHeader::video;
    case HeaderKind::document: return service::TemplateHeader::document;
    }
    return service::TemplateHeader::none;
}

// The form every row of template campaign `t` shares.
std::shared_ptr<const service::TemplateForm> form_of(const TemplateMessage& t) {
    auto form = std::make_shared<service::TemplateForm>();
    form->id = t.id;
    form->header = header_of(t.header);
    if (t.named) {
        for (const auto& variable : t.body) {
            form->body_names.push_back(variable.name);
        }
    }
    for (const auto& button : t.buttons) {
        form->button_indexes.push_back(button.index);
    }
    form->header_text = t.header_text;
    form->body_text = t.body_text;
    form->category = t.category;
    return form;
}

}  // namespace

template <typename Bind>
void RecipientStream::bind_template(const Campaign& c, const Bind& bind, Impl& impl) {
    const TemplateMessage& t = c.message.templated;
    impl.form = form_of(t);
    if (t.header != HeaderKind::none) {
        bind("message.header", t.header_value, impl.header);
    }
    if (!t.filename.empty()) {
        bind("message.header.filename", t.filename, impl.filename);
    }
    std::optional<BoundTemplate> bound;
    for (std::size_t i = 0; i < t.body.size(); ++i) {
        bind(t.named ? "message.body." + t.body[i].name : fmt::format("message.body[{}]", i), t.body[i].value, bound);
        impl.body.push_back(bound ? std::move(*bound) : BoundTemplate{});
        bound.reset();
    }
    for (std::size_t i = 0; i < t.buttons.size(); ++i) {
        bind(fmt::format("message.buttons[{}].text", i), t.buttons[i].text, bound);
        impl.buttons.push_back(bound ? std::move(*bound) : BoundTemplate{});
        bound.reset();
    }
}

util::Result<std::unique_ptr<RecipientStream::Impl>> RecipientStream::make_impl(const Campaign& c,
                                                                                const RowChecks& checks) {
    const Recipients& rc = c.recipients;
    auto reader = CsvReader::open(rc.file, rc.delimiter);
    if (!reader) {
        return util::fail(at(c, "recipients.file") + "recipients.file: " + reader.error().message);
    }
    auto phones = PhoneNormalizer::create(rc.default_country);
    if (!phones) {
        return util::fail(at(c, "recipients.default_country") +
                          "recipients.default_country: " + phones.error().message);
    }
    auto impl = std::make_unique<Impl>(std::move(*reader), std::move(*phones));
    impl->reader_name = rc.file;
    impl->type = c.message.type;
    impl->secrets = redactor_for(c);
    impl->dedupe = rc.dedupe;
    impl->media = checks.media;
    const auto& header = impl->reader.header();
    std::vector<std::string> problems;

    const auto column = [&](const std::string& key, const std::string& name) -> std::optional<std::size_t> {
        if (name.empty()) {
            return std::nullopt;  // not read from the campaign file, which said why (read_campaign)
        }
        auto index = impl->reader.column(name);
        if (!index) {
            const auto near = nearest_column(name, header);
            problems.push_back(fmt::format("{}{}: column \"{}\" is not in {}{} (columns: {})", at(c, key), key, name,
                                           rc.file, near ? fmt::format(" (did you mean \"{}\"?)", *near) : "",
                                           column_list(header)));
        }
        return index;
    };
    impl->wa_id_name = rc.columns.wa_id;
    impl->name_name = rc.columns.user_name;
    impl->wa_id_col = column("recipients.columns.wa_id", rc.columns.wa_id).value_or(0);
    impl->name_col = column("recipients.columns.user_name", rc.columns.user_name).value_or(0);
    if (!rc.columns.user_id.empty()) {
        impl->user_id_col = column("recipients.columns.user_id", rc.columns.user_id);
    }
    if (!rc.columns.subscriber_id.empty()) {
        impl->subscriber_id_col = column("recipients.columns.subscriber_id", rc.columns.subscriber_id);
    }
    const auto zone_col =
        rc.columns.time_zone.empty() ? std::nullopt : column("recipients.columns.time_zone", rc.columns.time_zone);
    if (auto zones = RecipientZones::create(c, zone_col, checks.zones)) {
        impl->zones = std::move(*zones);
    } else {
        problems.push_back(at(c, "schedule.window.timezone") + zones.error().message);
    }

    const auto bind = [&](const std::string& key, const std::string& text, std::optional<BoundTemplate>& into) {
        auto parsed = Template::parse(text);
        if (!parsed) {
            problems.push_back(at(c, key) + key + ": " + parsed.error().message);
            return;
        }
        auto bound = parsed->bind(header);
        if (!bound) {
            problems.push_back(at(c, key) + key + ": " + bound.error().message);
            return;
        }
        into = std::move(*bound);
    };
    if (c.message.type == MessageType::template_message) {
        bind_template(c, bind, *impl);
    } else if (c.message.type == MessageType::text) {
        bind("message.text", c.message.text, impl->text);
    } else {
        bind("message.source", c.message.source, impl->source);
        if (c.message.label) {
            bind("message.label", *c.message.label, impl->label);
        }
    }
    if (!problems.empty()) {
        return util::fail(fmt::format("{}", fmt::join(problems, "\n")));
    }
    return impl;
}

std::optional<std::string> RecipientStream::check_columns(const Campaign& c) {
    if (c.recipients.file.empty()) {
        return std::nullopt;  // not read from the campaign file, which said why
    }
    auto impl = make_impl(c, {});
    return impl ? std::nullopt : std::optional(impl.error().message);
}

util::Result<std::unique_ptr<RecipientStream::Impl>> RecipientStream::make_impl_for_country(const Campaign& c,
                                                                                            const RowChecks& checks,
                                                                                            std::string& dominant) {
    TRY_ASSIGN(auto impl, make_impl(c, checks));
    dominant.clear();
    if (c.recipients.default_country.empty()) {
        TRY_ASSIGN(dominant, dominant_country(*impl));
        TRY_ASSIGN(impl, make_impl(c, checks));  // from the first row again
        impl->phones.set_dominant_country(dominant);
    }
    return impl;
}

util::Result<RecipientStream> RecipientStream::open_unsurveyed(const Campaign& c, const RowChecks& checks) {
    std::string dominant;
    TRY_ASSIGN(auto impl, make_impl_for_country(c, checks, dominant));
    impl->dedupe = false;
    impl->survey.dominant_country = std::move(dominant);
    return RecipientStream(std::move(impl));
}

util::Result<RecipientStream> RecipientStream::open(const Campaign& c, const DuplicateOptions& options,
                                                    const RowChecks& checks) {
    std::string dominant;
    TRY_ASSIGN(auto impl, make_impl_for_country(c, checks, dominant));
    // A first pass over the list counts the invalid rows (nothing is sent when too many are)
    // and finds the repeats, so that the second (the one that sends) knows them without
    // holding every number in memory. The same checks: a row they make invalid is no first
    // of its number either.
    TRY_ASSIGN(auto scan, make_impl(c, checks));
    scan->phones.set_dominant_country(dominant);
    scan->numbers.start();
    scan->keep_numbers = true;
    std::optional<DuplicateFinder> finder;
    if (impl->dedupe) {
        finder.emplace(options);
    }
    SurveyCounter counter;
    Recipient r;
    for (;;) {
        TRY_ASSIGN(const bool found, scan->read(r));
        if (!found) {
            break;
        }
        scan->zones->assign(r, scan->record.fields, scan->phones);
        counter.add(r);
        if (finder && r.verdict == Verdict::ok) {
            if (auto added = finder->add(r.message.wa_id, r.row); !added) {
                return util::fail(at(c, "recipients.dedupe") + "recipients.dedupe: " + added.error().message);
            }
        }
    }
    if (finder) {
        auto found = finder->finish();
        if (!found) {
            return util::fail(at(c, "recipients.dedupe") + "recipients.dedupe: " + found.error().message);
        }
        impl->duplicates = std::move(*found);
    }
    impl->survey = counter.finish(std::move(dominant));
    impl->numbers = std::move(scan->numbers);
    return RecipientStream(std::move(impl));
}

util::Result<std::string> RecipientStream::dominant_country(Impl& impl) {
    // Only counts per country are kept: memory stays flat in the length of the list.
    std::map<std::string, long long> counts;
    CsvRecord& record = impl.record;
    for (;;) {
        TRY_ASSIGN(const bool found, impl.reader.next(record));
        if (!found) {
            break;
        }
        if (!record.problem.empty()) {
            continue;
        }
        // A non-geographic code ("+800") has no local numbers.
        if (std::string region = impl.phones.country_of(record.fields[impl.wa_id_col]);
            !region.empty() && !region.starts_with('+')) {
            ++counts[region];
        }
    }
    const auto most = std::max_element(counts.begin(), counts.end(),
                                       [](const auto& a, const auto& b) { return a.second < b.second; });
    return most == counts.end() ? std::string() : most->first;
}

RecipientStream::RecipientStream(std::unique_ptr<Impl> impl) : m_impl(std::move(impl)) {}
RecipientStream::RecipientStream(RecipientStream&&) noexcept = default;
RecipientStream& RecipientStream::operator=(RecipientStream&&) noexcept = default;
RecipientStream::~RecipientStream() = default;

const std::vector<std::string>& RecipientStream::header() const {
    return m_impl->reader.header();
}

const ListSurvey& RecipientStream::survey() const {
    return m_impl->survey;
}

std::optional<std::string> too_many_invalid(const Campaign& c, const ListSurvey& survey) {
    constexpr long long k_always_allowed = 10;
    const double allowed = c.abort.max_invalid_share;
    if (survey.invalid <= k_always_allowed || static_cast<double>(survey.invalid) <= allowed * survey.rows) {
        return std::nullopt;
    }
    std::string out = fmt::format(
        "{}{} of {} rows of {} ({}) are invalid, more than abort.max_invalid_share ({}) allows: nothing is sent. "
        "The most common reasons:",
        at(c, "abort.max_invalid_share"), survey.invalid, survey.rows, c.recipients.file,
        percent(static_cast<double>(survey.invalid) / survey.rows), percent(allowed));
    for (const auto& [reason, count] : survey.reasons) {
        out += fmt::format("\n  {} × {}", count, reason);
    }
    if (c.recipients.default_country.empty() && !survey.dominant_country.empty()) {
        out += fmt::format(
            "\nMost of the list's numbers are in {0}: if its numbers without + are local numbers, set "
            "recipients.default_country: {0}.",
            survey.dominant_country);
    }
    out += fmt::format("\nFix the list, or raise abort.max_invalid_share in {} to leave these rows out.", c.file);
    return out;
}

util::Result<bool> RecipientStream::next(Recipient& out) {
    Impl& impl = *m_impl;
    TRY_ASSIGN(const bool found, impl.read(out));
    if (!found) {
        return false;
    }
    impl.zones->assign(out, impl.record.fields, impl.phones);
    if (impl.dedupe && out.verdict == Verdict::ok) {
        auto first = impl.duplicates.first_row_of(out.row);
        if (!first) {
            // This row and every later one may be a repeat: none of them is handed out.
            return util::fail(fmt::format("{}: stopped at row {} (line {}): the index of repeated numbers: {}",
                                          impl.reader_name, out.row, out.line, first.error().message));
        }
        if (*first) {
            out.verdict = Verdict::duplicate;
            out.reason = fmt::format("duplicate of row {}", **first);
        }
    }
    return true;
}

}  // namespace campaign
