#include "results/records.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <iterator>

#include "results/json_line.hpp"
#include "util/json_string.hpp"
#include "util/time.hpp"

namespace results {

namespace {

// The members written only when they hold something: a set optional, a text or a list not empty.
void add_present(LineBuilder& line, std::string_view key, const std::optional<std::int64_t>& value) {
    if (value) {
        line.add_int(key, *value);
    }
}

void add_present(LineBuilder& line, std::string_view key, const std::optional<std::string>& value) {
    if (value) {
        line.add_string(key, *value);
    }
}

void add_present(LineBuilder& line, std::string_view key, const std::string& value) {
    if (!value.empty()) {
        line.add_string(key, value);
    }
}

void add_present(LineBuilder& line, std::string_view key, const std::vector<std::string>& values) {
    if (!values.empty()) {
        line.add_strings(key, values);
    }
}

// A template message's `preview` object: header and footer only when the template has them.
void add_preview(LineBuilder& line, const TemplatePreview& preview) {
    line.begin_object("preview");
    add_present(line, "header", preview.header);
    line.add_string("body", preview.body);
    add_present(line, "footer", preview.footer);
    add_present(line, "buttons", preview.buttons);
    line.end_object();
}

// The message object in the order the send-message body has it (service/messages.cpp); for a
// template message, its params array as the send-template body has it, and its preview.
void add_message(LineBuilder& line, const MessageContent& message) {
    if (message.is_template()) {
        line.add_raw("message", message.params);
        add_preview(line, message.preview);
        return;
    }
    line.begin_object("message");
    if (!message.image) {
        line.add_string("text", message.text);
    } else {
        add_present(line, "label", message.label);
        line.add_string("source", message.source);
    }
    line.end_object();
}

// The service's answer to a request that did not succeed: its status, when there was one, and the error.
void add_answer(LineBuilder& line, const std::optional<int>& http_status, const std::string& error) {
    add_present(line, "http_status", http_status);
    add_present(line, "error", error);
}

// Starts the line of a record about one row: its event, then the row and its number.
LineBuilder row_line(std::string_view event, std::int64_t row, std::string_view wa_id) {
    LineBuilder line(event);
    line.add_int("row", row);
    line.add_string("wa_id", wa_id);
    return line;
}

// Ends `line` with the record's time, `at`.
std::string finish_at(LineBuilder& line, util::TimePoint at) {
    line.add_time("at", at);
    return line.finish();
}

}  // namespace

std::string readable_text(const MessageContent& m) {
    if (!m.is_template()) {
        return m.image ? m.label.value_or("") : m.text;
    }
    std::string text;
    for (const std::string* part : {&m.preview.header, &m.preview.body, &m.preview.footer}) {
        if (!part->empty()) {
            text += (text.empty() ? "" : "\n") + *part;
        }
    }
    for (const auto& button : m.preview.buttons) {
        text += (text.empty() ? "[" : "\n[") + button + "]";
    }
    return text;
}

namespace {

// `card` as a JSON object: {"path", "sha256", "currency", "effective"}.
std::string rate_card_json(const RateCardRef& card) {
    fmt::memory_buffer out;
    const auto put = [&](std::string_view text) { out.append(text.data(), text.data() + text.size()); };
    put(R"({"path":)");
    util::append_json_string(out, card.path);
    put(R"(,"sha256":)");
    util::append_json_string(out, card.sha256);
    put(R"(,"currency":)");
    util::append_json_string(out, card.currency);
    put(R"(,"effective":)");
    if (card.effective.empty()) {
        put("null");
    } else {
        util::append_json_string(out, card.effective);
    }
    put("}");
    return fmt::to_string(out);
}

}  // namespace

std::string to_line(const CampaignHeader& record) {
    LineBuilder line("campaign");
    line.add_string("name", record.name);
    line.add_string("campaign_file", record.campaign_file);
    line.add_string("campaign_sha256", record.campaign_sha256);
    line.add_string("recipients_file", record.recipients_file);
    line.add_string("recipients_sha256", record.recipients_sha256);
    line.add_time("started_at", record.started_at);
    line.add_string("version", record.version);
    line.add_string("mode", to_string(record.mode));
    if (record.rate_card) {
        line.add_raw("rate_card", rate_card_json(*record.rate_card));
    }
    return line.finish();
}

std::string to_line(const AttemptRecord& record) {
    LineBuilder line = row_line("attempt", record.row, record.wa_id);
    line.add_int("attempt", record.attempt);
    return finish_at(line, record.at);
}

std::string to_line(const ResultRecord& record) {
    LineBuilder line = row_line("result", record.row, record.wa_id);
    line.add_string("user_name", record.user_name);
    line.add_string("status", to_string(record.status));
    line.add_int("attempts", record.attempts);
    add_present(line, "http_status", record.http_status);
    add_present(line, "error_code", record.error_code);
    add_present(line, "message_id", record.message_id);
    // A success carries no error, even if the caller left one from an earlier attempt.
    if (record.status != Status::sent && record.status != Status::dry_run) {
        add_present(line, "error", record.error);
        if (record.cause != Cause::none) {
            line.add_string("cause", to_string(record.cause));
        }
    }
    add_present(line, "latency_ms", record.latency_ms);
    add_present(line, "template", record.template_name);
    add_present(line, "category", record.category);
    add_present(line, "recovered", record.recovered);
    if (record.price && record.status == Status::sent) {
        line.add_raw("price", fmt::format("{}", *record.price));
    }
    if (record.message) {
        add_message(line, *record.message);
    }
    add_present(line, "defaults", record.defaults);
    return finish_at(line, record.at);
}

std::string to_line(const DeleteRecord& record) {
    LineBuilder line("delete");
    line.add_int("batch", record.batch);
    line.add_strings("ids", record.ids);
    add_present(line, "subscriber_ids", record.subscriber_ids);
    line.add_string("status", record.status == DeleteStatus::deleted ? "deleted" : "failed");
    add_answer(line, record.http_status, record.error);
    return finish_at(line, record.at);
}

namespace {

// `text` as a JSON string, null when empty.
void append_string_or_null(fmt::memory_buffer& out, std::string_view text) {
    if (text.empty()) {
        fmt::format_to(std::back_inserter(out), "null");
    } else {
        util::append_json_string(out, text);
    }
}

// `cost` as a JSON object: by_country an object keyed by country, in the summary's order.
std::string cost_json(const CostSummary& cost) {
    fmt::memory_buffer out;
    const auto put = [&](std::string_view text) { out.append(text.data(), text.data() + text.size()); };
    put(R"({"currency":)");
    util::append_json_string(out, cost.currency);
    fmt::format_to(std::back_inserter(out), R"(,"total":{},"messages":{},"category":)", cost.total, cost.messages);
    append_string_or_null(out, cost.category);
    put(R"(,"rate_card":)");
    append_string_or_null(out, cost.rate_card);
    put(R"(,"effective":)");
    append_string_or_null(out, cost.effective.value_or(""));
    put(R"(,"by_country":{)");
    for (std::size_t i = 0; i < cost.by_country.size(); ++i) {
        const auto& c = cost.by_country[i];
        put(i == 0 ? "" : ",");
        util::append_json_string(out, c.country);
        fmt::format_to(std::back_inserter(out), R"(:{{"messages":{},"price":{},"amount":{}}})", c.messages, c.price,
                       c.amount);
    }
    put("}}");
    return fmt::to_string(out);
}

// `plan` as a JSON object: its kind is one of three words, its times timestamps.
std::string plan_json(const PlanSummary& plan) {
    const auto time = [](const std::optional<util::TimePoint>& t) {
        return t ? fmt::format("\"{}\"", util::format_timestamp(*t)) : std::string("null");
    };
    return fmt::format(R"({{"kind":"{}","messages":{},"first":{},"last":{},"days":{},"per_hour":[{}]{}}})", plan.kind,
                       plan.messages, time(plan.first), time(plan.last), plan.days, fmt::join(plan.per_hour, ","),
                       plan.cost ? R"(,"cost":)" + cost_json(*plan.cost) : std::string());
}

}  // namespace

std::string to_line(const EndRecord& record) {
    LineBuilder line("end");
    line.add_string("reason", record.reason);
    line.add_counts("counts", record.counts);
    line.add_time("at", record.at);
    if (record.plan) {
        line.add_raw("plan", plan_json(*record.plan));
    }
    return line.finish();
}

std::string to_line(const UnsentRecord& record) {
    LineBuilder line = row_line("unsent", record.row, record.wa_id);
    line.add_int("attempt", record.attempt);
    add_answer(line, record.http_status, record.error);
    return finish_at(line, record.at);
}

std::string to_line(const Record& record) {
    return std::visit([](const auto& r) { return to_line(r); }, record);
}

}  // namespace results
