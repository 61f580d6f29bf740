// parse_record: one log line → Record, through util::JsonScanner (no DOM).
#include <fmt/format.h>
#include <array>
#include <cmath>

#include "results/record_fields.hpp"
#include "results/records.hpp"
#include "util/json_scan.hpp"
#include "util/time.hpp"

namespace results {

namespace {

using detail::Fields;
using detail::k_key_names;
using detail::Key;
using detail::read_member;
using util::JsonScanner;

// Returns `text` in quotes for a message, cut short, with control characters and bytes
// beyond ASCII escaped: a log line is not to be trusted to print.
std::string quoted(std::string_view text) {
    constexpr std::size_t k_max = 60;
    std::string out = "\"";
    for (std::size_t i = 0; i < text.size() && i < k_max; ++i) {
        const auto c = static_cast<unsigned char>(text[i]);
        if (c >= 0x20 && c < 0x7F) {
            out.push_back(static_cast<char>(c));
        } else {
            out += fmt::format("\\x{:02x}", c);
        }
    }
    out += text.size() > k_max ? "...\"" : "\"";
    return out;
}

util::Error missing(Key key) {
    return util::fail(fmt::format("missing \"{}\"", k_key_names[static_cast<std::size_t>(key)]));
}

// Checks that every key in `keys` is present; fails naming the first missing one.
util::Result<void> require(const Fields& f, std::initializer_list<Key> keys) {
    for (const Key k : keys) {
        if (!f.has(k)) {
            return missing(k);
        }
    }
    return {};
}

util::Result<util::TimePoint> time_field(const Fields& f, Key key) {
    auto t = util::parse_timestamp(f.str(key), util::TimestampSyntax::rfc3339);
    if (!t) {
        return util::fail(fmt::format("\"{}\" is not an ISO 8601 time: {}", k_key_names[static_cast<std::size_t>(key)],
                                      quoted(f.str(key))));
    }
    return *t;
}

template <typename T>
std::optional<T> optional_int(const Fields& f, Key key) {
    return f.has(key) ? std::optional<T>(static_cast<T>(f.num(key))) : std::nullopt;
}

util::Result<Record> build_campaign(Fields& f) {
    TRY(require(f, {Key::name, Key::campaign_file, Key::campaign_sha256, Key::recipients_file, Key::recipients_sha256,
                    Key::started_at, Key::version}));
    TRY_ASSIGN(const util::TimePoint started, time_field(f, Key::started_at));
    CampaignHeader h;
    h.name = f.str(Key::name);
    h.campaign_file = f.str(Key::campaign_file);
    h.campaign_sha256 = f.str(Key::campaign_sha256);
    h.recipients_file = f.str(Key::recipients_file);
    h.recipients_sha256 = f.str(Key::recipients_sha256);
    h.started_at = started;
    h.version = f.str(Key::version);
    if (f.has(Key::mode)) {
        const auto mode = parse_mode(f.str(Key::mode));
        if (!mode) {
            return util::fail(fmt::format("unknown mode {}", quoted(f.str(Key::mode))));
        }
        h.mode = *mode;
    }
    h.rate_card = std::move(f.rate_card);
    return Record(std::move(h));
}

util::Result<Record> build_attempt(Fields& f) {
    TRY(require(f, {Key::row, Key::wa_id, Key::attempt, Key::at}));
    TRY_ASSIGN(const util::TimePoint at, time_field(f, Key::at));
    return Record(
        AttemptRecord{f.num(Key::row), std::string(f.str(Key::wa_id)), static_cast<int>(f.num(Key::attempt)), at});
}

util::Result<Record> build_unsent(Fields& f) {
    TRY(require(f, {Key::row, Key::wa_id, Key::attempt, Key::at}));
    TRY_ASSIGN(const util::TimePoint at, time_field(f, Key::at));
    return Record(UnsentRecord{f.num(Key::row), std::string(f.str(Key::wa_id)), static_cast<int>(f.num(Key::attempt)),
                               optional_int<int>(f, Key::http_status), std::string(f.str(Key::error)), at});
}

util::Result<Record> build_result(Fields& f) {
    TRY(require(f, {Key::row, Key::wa_id, Key::status, Key::attempts, Key::at}));
    TRY_ASSIGN(const util::TimePoint at, time_field(f, Key::at));
    const auto status = parse_status(f.str(Key::status));
    if (!status) {
        return util::fail(fmt::format("unknown status {}", quoted(f.str(Key::status))));
    }
    ResultRecord r;
    r.row = f.num(Key::row);
    r.wa_id = f.str(Key::wa_id);
    r.user_name = f.str(Key::user_name);
    r.status = *status;
    r.attempts = static_cast<int>(f.num(Key::attempts));
    r.http_status = optional_int<int>(f, Key::http_status);
    r.error_code = optional_int<std::int64_t>(f, Key::error_code);
    if (f.has(Key::message_id)) {
        r.message_id = f.str(Key::message_id);
    }
    r.error = f.str(Key::error);
    // An unknown cause (from a later version) is not worth losing the outcome over.
    r.cause = f.has(Key::cause) ? parse_cause(f.str(Key::cause)).value_or(Cause::none) : Cause::none;
    r.latency_ms = optional_int<std::int64_t>(f, Key::latency_ms);
    if (f.has(Key::template_name)) {
        r.template_name = f.str(Key::template_name);
    }
    if (f.has(Key::category)) {
        r.category = f.str(Key::category);
    }
    if (f.has(Key::recovered)) {
        r.recovered = f.str(Key::recovered);
    }
    // A price that is no price (negative; not finite: not read) is none: the row counts as unpriced.
    if (f.price && *f.price >= 0) {
        r.price = f.price;
    }
    r.message = std::move(f.message);
    if (r.message && r.message->is_template() && f.preview) {
        r.message->preview = std::move(*f.preview);
    }
    r.defaults = std::move(f.defaults);
    r.at = at;
    return Record(std::move(r));
}

util::Result<Record> build_delete(Fields& f) {
    TRY(require(f, {Key::ids, Key::status, Key::at}));
    TRY_ASSIGN(const util::TimePoint at, time_field(f, Key::at));
    DeleteRecord d;
    d.batch = static_cast<int>(f.num(Key::batch));
    d.ids = std::move(f.ids);
    d.subscriber_ids = std::move(f.subscriber_ids);
    if (f.str(Key::status) == "deleted") {
        d.status = DeleteStatus::deleted;
    } else if (f.str(Key::status) == "failed") {
        d.status = DeleteStatus::failed;
    } else {
        return util::fail(fmt::format("unknown delete status {}", quoted(f.str(Key::status))));
    }
    d.http_status = optional_int<int>(f, Key::http_status);
    d.error = f.str(Key::error);
    d.at = at;
    return Record(std::move(d));
}

util::Result<Record> build_end(Fields& f) {
    TRY(require(f, {Key::reason, Key::at}));
    TRY_ASSIGN(const util::TimePoint at, time_field(f, Key::at));
    return Record(EndRecord{std::string(f.str(Key::reason)), f.counts, at, std::move(f.plan)});
}

}  // namespace

util::Result<Record> parse_record(std::string_view line) {
    Fields f;
    JsonScanner in(line);
    if (!in.read_object([&](std::string_view name) { return read_member(in, f, name); }) || !in.finish()) {
        return util::fail(f.mistyped.empty() ? "not valid JSON: " + in.error() : f.mistyped);
    }
    if (!f.has(Key::event)) {
        return missing(Key::event);
    }
    const std::string_view event = f.str(Key::event);
    if (event == "attempt") {
        return build_attempt(f);
    }
    if (event == "result") {
        return build_result(f);
    }
    if (event == "campaign") {
        return build_campaign(f);
    }
    if (event == "delete") {
        return build_delete(f);
    }
    if (event == "end") {
        return build_end(f);
    }
    if (event == "unsent") {
        return build_unsent(f);
    }
    return util::fail(fmt::format("unknown event {}", quoted(event)));
}

}  // namespace results
