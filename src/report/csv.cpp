#include "report/csv.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <limits>
#include <optional>
#include <ostream>
#include <variant>

#include "report/open_log.hpp"
#include "results/replay.hpp"
#include "util/text.hpp"
#include "util/time.hpp"

namespace report {

namespace {

constexpr std::size_t k_flush_at = 64 * 1024;
constexpr std::string_view k_in_flight_error =
    "request in flight when the run stopped: it may or may not have been delivered";

// The row an attempt or a result names; nothing for other records.
std::optional<std::int64_t> row_of(const results::Record& record) {
    if (const auto* a = std::get_if<results::AttemptRecord>(&record)) {
        return a->row;
    }
    if (const auto* r = std::get_if<results::ResultRecord>(&record)) {
        return r->row;
    }
    if (const auto* u = std::get_if<results::UnsentRecord>(&record)) {
        return u->row;  // the row is as before that attempt: see the replay
    }
    return std::nullopt;
}

// Whether a spreadsheet would read `field` as a formula (OWASP's "CSV injection"): a name from
// the CSV or an error text from the service could run as one when the report is opened.
bool formula_like(std::string_view field) {
    return !field.empty() && std::string_view("=+-@\t\r").find(field.front()) != std::string_view::npos;
}

void append_field(fmt::memory_buffer& out, std::string_view field) {
    const bool formula = formula_like(field);
    const bool quote = formula || field.find_first_of(",\"\r\n") != std::string_view::npos;
    if (!quote) {
        out.append(field);
        return;
    }
    out.push_back('"');
    if (formula) {
        out.push_back('\'');  // shown as text, as OWASP recommends
    }
    for (char c : field) {
        if (c == '"') {
            out.push_back('"');
        }
        out.push_back(c);
    }
    out.push_back('"');
}

// A text from the CSV or the service (a name, an error, an id) for a spreadsheet cell: line
// breaks kept, other control characters, escape sequences and bidirectional overrides escaped.
void append_text_field(fmt::memory_buffer& out, std::string_view text) {
    const bool plain =
        std::all_of(text.begin(), text.end(), [](char c) { return (c >= 0x20 && c < 0x7F) || c == '\n'; });
    append_field(out, plain ? text : std::string_view(util::printable(text, util::LineBreaks::keep)));
}

// A rendered message's text for a spreadsheet cell: line breaks kept, other control
// characters escaped (they would be invisible, or reorder the text, in the cell).
void append_content_field(fmt::memory_buffer& out, std::string_view text) {
    out.push_back(',');
    append_field(out, util::printable(text, util::LineBreaks::keep));
}

void append_content(fmt::memory_buffer& out, CsvContent content, const results::ResultRecord* r) {
    if (content == CsvContent::none) {
        return;
    }
    const results::MessageContent* m = r != nullptr && r->message ? &*r->message : nullptr;
    if (content == CsvContent::preview) {
        append_content_field(out, m != nullptr ? results::readable_text(*m) : std::string());
    } else if (content == CsvContent::text) {
        append_content_field(out, m != nullptr ? std::string_view(m->text) : std::string_view());
    } else {
        append_content_field(out, m != nullptr && m->label ? std::string_view(*m->label) : std::string_view());
        append_content_field(out, m != nullptr ? std::string_view(m->source) : std::string_view());
    }
    out.push_back(',');
    if (r != nullptr) {
        append_text_field(out, fmt::format("{}", fmt::join(r->defaults, " ")));
    }
}

void append_line(fmt::memory_buffer& out, const results::AttemptRecord& a, CsvContent content) {
    fmt::format_to(std::back_inserter(out), "{},", a.row);
    append_field(out, a.wa_id);
    fmt::format_to(std::back_inserter(out), ",,unknown,{},,,,,", a.attempt);
    append_field(out, k_in_flight_error);
    fmt::format_to(std::back_inserter(out), ",{}", util::format_timestamp(a.at));
    append_content(out, content, nullptr);
    out.push_back('\n');
}

void append_line(fmt::memory_buffer& out, const results::ResultRecord& r, CsvContent content) {
    fmt::format_to(std::back_inserter(out), "{},", r.row);
    append_field(out, r.wa_id);
    out.push_back(',');
    append_text_field(out, r.user_name);
    fmt::format_to(std::back_inserter(out), ",{},{},", results::to_string(r.status), r.attempts);
    if (r.http_status) {
        fmt::format_to(std::back_inserter(out), "{}", *r.http_status);
    }
    out.push_back(',');
    append_text_field(out, r.message_id.value_or(""));
    out.push_back(',');
    if (r.cause != results::Cause::none) {
        out.append(results::to_string(r.cause));
    }
    out.push_back(',');
    if (r.error_code) {
        fmt::format_to(std::back_inserter(out), "{}", *r.error_code);
    }
    out.push_back(',');
    append_text_field(out, r.error);
    fmt::format_to(std::back_inserter(out), ",{}", util::format_timestamp(r.at));
    append_content(out, content, &r);
    out.push_back('\n');
}

// A row whose latest request was answered without being acted on: a later run sends it.
void append_line(fmt::memory_buffer& out, const results::UnsentRecord& u, CsvContent content) {
    fmt::format_to(std::back_inserter(out), "{},", u.row);
    append_field(out, u.wa_id);
    fmt::format_to(std::back_inserter(out), ",,unsent,{},", u.attempt);
    if (u.http_status) {
        fmt::format_to(std::back_inserter(out), "{}", *u.http_status);
    }
    out.append(std::string_view(",,endpoint,,"));
    append_text_field(out, u.error);
    fmt::format_to(std::back_inserter(out), ",{}", util::format_timestamp(u.at));
    append_content(out, content, nullptr);
    out.push_back('\n');
}

bool flush(fmt::memory_buffer& buffer, std::ostream& out) {
    out.write(buffer.data(), static_cast<std::streamsize>(buffer.size()));
    buffer.clear();
    return static_cast<bool>(out);
}

}  // namespace

std::string csv_field(std::string_view field) {
    fmt::memory_buffer out;
    append_field(out, field);
    return fmt::to_string(out);
}

util::Result<CsvIndex> index_log(const std::string& path, const util::DiskArrayOptions& scratch) {
    CsvContent content = CsvContent::none;
    results::ReplayOptions options;
    options.observe = [&content](const results::Record& record) -> std::uint32_t {
        if (const auto* r = std::get_if<results::ResultRecord>(&record); r != nullptr && r->message) {
            if (r->message->image) {
                content = CsvContent::image;
            } else if (r->message->is_template()) {
                content = CsvContent::preview;
            }
        }
        return 0;
    };
    options.records = scratch;
    auto replayed = results::replay(path, options);
    if (!replayed) {
        return cannot_report(replayed.error());
    }
    if (replayed->records - 1 > std::numeric_limits<std::uint32_t>::max()) {
        return util::fail(fmt::format("{}: too many records for a CSV report (over {})", path,
                                      std::numeric_limits<std::uint32_t>::max()));
    }
    CsvIndex index;
    index.path = path;
    index.records = static_cast<std::uint32_t>(replayed->records - 1);
    index.rows = replayed->named_rows;
    index.warnings = shown_warnings(*replayed);
    index.warning_count = replayed->warning_count;
    index.content =
        content == CsvContent::none && replayed->header.mode == results::Mode::dry_run ? CsvContent::text : content;
    index.state = std::move(*replayed);
    return index;
}

util::Result<void> write_csv(CsvIndex& index, std::ostream& out) {
    TRY_ASSIGN(auto opened, open_log(index.path));
    fmt::memory_buffer buffer;
    buffer.append(k_csv_header);
    switch (index.content) {
    case CsvContent::none: break;
    case CsvContent::text: buffer.append(std::string_view(",text,defaults")); break;
    case CsvContent::image: buffer.append(std::string_view(",caption,source,defaults")); break;
    case CsvContent::preview: buffer.append(std::string_view(",preview,defaults")); break;
    }
    buffer.push_back('\n');
    results::Record record;
    std::uint32_t ordinal = 0;
    while (ordinal < index.records) {
        TRY_ASSIGN(const bool more, opened.reader.next(record));
        if (!more) {
            return util::fail(fmt::format("{}: the log shrank while it was being read", index.path));
        }
        ++ordinal;
        const auto row = row_of(record);
        if (!row || *row < 1 || *row > index.state.max_row()) {
            continue;
        }
        auto latest = index.state.record(*row);
        if (!latest) {
            return scratch_failed(index.path, latest.error());
        }
        if (latest->latest_record != ordinal) {
            continue;
        }
        std::visit(
            [&](const auto& r) {
                using R = std::decay_t<decltype(r)>;
                if constexpr (std::is_same_v<R, results::AttemptRecord> || std::is_same_v<R, results::ResultRecord> ||
                              std::is_same_v<R, results::UnsentRecord>) {
                    append_line(buffer, r, index.content);
                }
            },
            record);
        if (buffer.size() >= k_flush_at && !flush(buffer, out)) {
            return util::fail("write error");
        }
    }
    if (!flush(buffer, out) || !out.flush()) {
        return util::fail("write error");
    }
    return {};
}

}  // namespace report
