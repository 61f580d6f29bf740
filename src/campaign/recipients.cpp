#include "campaign/recipients.hpp"

#include <fmt/format.h>
#include <optional>

#include "campaign/content_rules.hpp"
#include "campaign/csv_reader.hpp"
#include "campaign/duplicates.hpp"
#include "campaign/phone.hpp"
#include "campaign/render.hpp"
#include "util/text.hpp"

namespace campaign {

namespace {

// Where `key` sits in the campaign file, as "FILE:LINE: ".
std::string at(const Campaign& c, const std::string& key) {
    auto it = c.lines.find(key);
    if (it == c.lines.end()) {
        return c.file + ": ";
    }
    return fmt::format("{}:{}: ", c.file, it->second);
}

std::string column_list(const std::vector<std::string>& header) {
    return fmt::format("{}", fmt::join(header, ", "));
}

}  // namespace

struct RecipientStream::Impl {
    CsvReader reader;
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
    const MediaVerdicts* media = nullptr;  // images refused by a check before sending
    CsvRecord record;

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
        auto wa_id = phones.normalize(out.raw_phone);
        if (!wa_id) {
            return fmt::format("column \"{}\": {}", wa_id_name, wa_id.error().message);
        }
        out.message.wa_id = std::move(*wa_id);
        out.message.user_name = fields[name_col];
        if (out.message.user_name.find_first_not_of(" \t") == std::string::npos) {
            return fmt::format("column \"{}\" is empty", name_name);
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

    // Why the image of `r`, rendered, fails the check before sending; nothing when it passed
    // or was not checked.
    std::optional<std::string> refused_image(const Recipient& r) const {
        const std::string* reason =
            media != nullptr && type == MessageType::image ? media->refusal(r.message.source) : nullptr;
        if (reason == nullptr) {
            return std::nullopt;
        }
        return fmt::format("image {}: {}", r.message.source, *reason);
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
        return true;
    }
};

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
    impl->dedupe = rc.dedupe;
    impl->media = checks.media;
    const auto& header = impl->reader.header();
    std::vector<std::string> problems;

    const auto column = [&](const std::string& key, const std::string& name) -> std::optional<std::size_t> {
        auto index = impl->reader.column(name);
        if (!index) {
            problems.push_back(fmt::format("{}{}: column \"{}\" is not in {} (columns: {})", at(c, key), key, name,
                                           rc.file, column_list(header)));
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
    if (c.message.type == MessageType::text) {
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

util::Result<RecipientStream> RecipientStream::open(const Campaign& c, const DuplicateOptions& options,
                                                    const RowChecks& checks) {
    TRY_ASSIGN(auto impl, make_impl(c, checks));
    if (impl->dedupe) {
        // A first pass over the list finds the repeats, so that the second (the one that
        // sends) knows them without holding every number in memory.
        // The same checks: a row they make invalid is no first of its number either.
        TRY_ASSIGN(auto scan, make_impl(c, checks));
        DuplicateFinder finder(options);
        Recipient r;
        for (;;) {
            TRY_ASSIGN(const bool found, scan->read(r));
            if (!found) {
                break;
            }
            if (r.verdict == Verdict::ok) {
                if (auto added = finder.add(r.message.wa_id, r.row); !added) {
                    return util::fail(at(c, "recipients.dedupe") + "recipients.dedupe: " + added.error().message);
                }
            }
        }
        auto found = finder.finish();
        if (!found) {
            return util::fail(at(c, "recipients.dedupe") + "recipients.dedupe: " + found.error().message);
        }
        impl->duplicates = std::move(*found);
    }
    return RecipientStream(std::move(impl));
}

RecipientStream::RecipientStream(std::unique_ptr<Impl> impl) : m_impl(std::move(impl)) {}
RecipientStream::RecipientStream(RecipientStream&&) noexcept = default;
RecipientStream& RecipientStream::operator=(RecipientStream&&) noexcept = default;
RecipientStream::~RecipientStream() = default;

const std::vector<std::string>& RecipientStream::header() const {
    return m_impl->reader.header();
}

util::Result<bool> RecipientStream::next(Recipient& out) {
    Impl& impl = *m_impl;
    TRY_ASSIGN(const bool found, impl.read(out));
    if (!found) {
        return false;
    }
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
