// format_json: the summary for scripts. The field names are a contract:
//
//   log                 the log's path as given
//   campaign            {name, mode, version, started_at, campaign_file, campaign_sha256,
//                        recipients_file, recipients_sha256}: the log's first record
//   runs                `campaign` records in the log (a resumed campaign has several)
//   records             records read (unusable lines not counted)
//   ended               true when an `end` record follows the last attempt and result (the
//                       deletion step's `delete` records may follow it)
//   end_reason          the latest `end` record's reason, or null
//   list                {file, found ("same", "changed" since the log began, or "missing"),
//                        rows (data rows in the CSV now), problem (why it cannot be read, or null)}:
//                        the recipient list of the latest run, as it is now
//   not_yet_attempted   the list's rows less those the log names (0 when the list is missing)
//   rows                rows the log names
//   counts              {sent, failed, invalid, skipped, dry_run, unknown}: rows by final state
//   in_flight           of `unknown`: rows whose last record is an attempt
//   errors              [{status, cause (null for none), http_status (or null), error_code
//                        (Meta's, or null), others, count, sample}] rows not sent, grouped,
//                        most frequent first; past 1,000 groups, the rest of a status and
//                        cause are one group with `others` true (http_status, error_code null)
//   first_at, last_at   earliest and latest time of any record (ISO 8601 UTC)
//   duration_s          last_at - first_at, in seconds
//   attempts            `attempt` records: requests that left
//   sent_results        `result` records with status sent
//   sending_s           time spent sending: per run, first attempt to last request outcome
//   send_rate_per_s     sent_results / sending_s, or null
//   rate_limited        result lines with cause rate_limited (one per refused request)
//   retried             result lines a later request of their row superseded (requests tried
//                       again, in the same run or a later one)
//   retried_by_kind     [{kind, count}] of `retried`, most first; kind is "5xx", "no answer"
//                       (a timeout, a lost connection), "HTTP N" or the answer's cause
//   latency_ms          {count, p50, p95, p99, max}: over result lines with latency_ms;
//                       percentiles null when count is 0
//   spend               {currency, total, messages, without_price, mixed_currencies,
//                        by_category: {NAME: {messages, amount}}, by_country: {CC: {messages,
//                        amount}}}: the sent rows' prices summed (amounts rounded to 4 decimals),
//                        most spent first; currency the latest run's card's, else "USD";
//                        without_price: sent template rows that carry none
//   plan                a dry run's log: its `end` record's plan ({kind, messages, first, last,
//                        days, per_hour, cost}; cost as the dry run's JSON has it, or null);
//                        null for other logs
//   cleanup             {batches, deleted, failed, ids_deleted, last_failed}, or null when
//                       the log has no `delete` record
//   without_user_id     {count, rows (the first 5)}: rows the deletion step deletes whose
//                       user_id is empty (their contacts cannot be deleted); null when the
//                       campaign has no deletion step or its file cannot be loaded
//   messages            a dry run's log: {rendered, with_defaults, defaults: {PLACEHOLDER: rows},
//                        longest: [{row, characters}]}; null for a log without messages
//   next_steps          [{what, command}]: what to do next, the first step first; [] when
//                       nothing is left to do
//   warnings            the first ~100 warnings ("PATH:LINE: …")
//   warning_count       how many warnings there were in all
#include <cmath>
#include <nlohmann/json.hpp>

#include "campaign/pricing.hpp"
#include "report/format.hpp"
#include "report/next_steps.hpp"
#include "report/spend.hpp"
#include "util/text.hpp"
#include "util/time.hpp"

namespace report {

namespace {

// ordered_json keeps the members in the order above, for people reading it.
using json = nlohmann::ordered_json;

double seconds(util::Millis d) {
    return static_cast<double>(d.count()) / 1000.0;
}

json campaign_json(const results::CampaignHeader& h) {
    return {{"name", h.name},
            {"mode", results::to_string(h.mode)},
            {"version", h.version},
            {"started_at", util::format_timestamp(h.started_at)},
            {"campaign_file", h.campaign_file},
            {"campaign_sha256", h.campaign_sha256},
            {"recipients_file", h.recipients_file},
            {"recipients_sha256", h.recipients_sha256}};
}

json errors_json(const std::vector<ErrorGroup>& groups) {
    json out = json::array();
    for (const auto& g : groups) {
        out.push_back({{"status", results::to_string(g.status)},
                       {"cause", g.cause == results::Cause::none ? json(nullptr) : json(results::to_string(g.cause))},
                       {"http_status", g.http_status ? json(*g.http_status) : json(nullptr)},
                       {"error_code", g.error_code ? json(*g.error_code) : json(nullptr)},
                       {"others", g.others},
                       {"count", g.count},
                       {"sample", g.sample}});
    }
    return out;
}

json latency_json(const LatencySummary& l) {
    const auto value = [&](std::int64_t v) { return l.count > 0 ? json(v) : json(nullptr); };
    return {
        {"count", l.count}, {"p50", value(l.p50)}, {"p95", value(l.p95)}, {"p99", value(l.p99)}, {"max", value(l.max)}};
}

json review_json(const Review& r) {
    if (r.messages == 0) {
        return nullptr;
    }
    json defaults = json::object();
    for (const auto& d : r.defaults) {
        defaults[d.placeholder] = d.rows;
    }
    json longest = json::array();
    for (const auto& m : r.longest) {
        longest.push_back({{"row", m.row}, {"characters", m.characters}});
    }
    return {{"rendered", r.messages},
            {"with_defaults", r.rows_with_defaults},
            {"defaults", defaults},
            {"longest", longest}};
}

json list_json(const Summary& s) {
    const auto found = s.list.found == ListState::Found::same      ? "same"
                       : s.list.found == ListState::Found::changed ? "changed"
                                                                   : "missing";
    return {{"file", s.latest_header.recipients_file},
            {"found", found},
            {"rows", s.list.rows},
            {"problem", s.list.problem.empty() ? json(nullptr) : json(s.list.problem)}};
}

json retried_json(const std::vector<RetriedCount>& kinds) {
    json out = json::array();
    for (const auto& k : kinds) {
        out.push_back({{"kind", k.kind}, {"count", k.count}});
    }
    return out;
}

// Null for a log of one template (or none).
json templates_json(const std::vector<TemplateCount>& templates) {
    if (templates.empty()) {
        return nullptr;
    }
    json out = json::array();
    for (const auto& t : templates) {
        out.push_back({{"name", t.name}, {"sent", t.sent}, {"failed", t.failed}});
    }
    return out;
}

json spend_parts_json(const std::vector<SpendPart>& parts) {
    json out = json::object();
    for (const auto& p : parts) {
        out[p.key] = {{"messages", p.messages}, {"amount", campaign::rounded_amount(p.amount)}};
    }
    return out;
}

json spend_json(const Spend& s) {
    return {{"currency", s.currency},
            {"total", campaign::rounded_amount(s.total)},
            {"messages", s.messages},
            {"without_price", s.without_price},
            {"mixed_currencies", s.mixed_currencies},
            {"by_category", spend_parts_json(s.by_category)},
            {"by_country", spend_parts_json(s.by_country)}};
}

// A dry run's plan as its `end` record keeps it; null for other logs.
json plan_json(const Summary& s) {
    if (s.header.mode != results::Mode::dry_run || !s.last_end || !s.last_end->plan) {
        return nullptr;
    }
    const results::PlanSummary& plan = *s.last_end->plan;
    const auto time = [](const std::optional<util::TimePoint>& t) {
        return t ? json(util::format_timestamp(*t)) : json(nullptr);
    };
    return {{"kind", plan.kind},
            {"messages", plan.messages},
            {"first", time(plan.first)},
            {"last", time(plan.last)},
            {"days", plan.days},
            {"per_hour", plan.per_hour},
            {"cost", plan.cost ? cost_json(*plan.cost) : json(nullptr)}};
}

json next_steps_json(const std::vector<NextStep>& steps) {
    json out = json::array();
    for (const auto& step : steps) {
        out.push_back({{"what", step.what}, {"command", step.command}});
    }
    return out;
}

}  // namespace

std::string format_json(const Summary& s) {
    json counts = json::object();
    for (results::Status status : results::k_all_statuses) {
        counts[std::string(results::to_string(status))] = s.counts[status];
    }
    json cleanup = nullptr;
    if (s.cleanup) {
        cleanup = {{"batches", s.cleanup->batches},
                   {"deleted", s.cleanup->deleted},
                   {"failed", s.cleanup->failed},
                   {"ids_deleted", s.cleanup->ids_deleted},
                   {"last_failed", s.cleanup->last_failed}};
    }
    json without_user_id = nullptr;
    if (s.user_ids_counted) {
        without_user_id = {{"count", s.without_user_id}, {"rows", s.without_user_id_rows}};
    }
    json out = {
        {"log", s.log_path},
        {"campaign", campaign_json(s.header)},
        {"runs", s.runs},
        {"records", s.records},
        {"ended", s.ended},
        {"end_reason", s.last_end ? json(s.last_end->reason) : json(nullptr)},
        {"list", list_json(s)},
        {"not_yet_attempted", not_yet_attempted(s)},
        {"rows", s.rows},
        {"counts", counts},
        {"in_flight", s.in_flight},
        {"errors", errors_json(s.errors)},
        {"templates", templates_json(s.templates)},
        {"first_at", util::format_timestamp(s.first_at)},
        {"last_at", util::format_timestamp(s.last_at)},
        {"duration_s", seconds(std::chrono::duration_cast<util::Millis>(s.last_at - s.first_at))},
        {"attempts", s.attempts},
        {"sent_results", s.sent_results},
        {"sending_s", seconds(s.sending_span)},
        {"send_rate_per_s", s.send_rate ? json(std::round(*s.send_rate * 1000.0) / 1000.0) : json(nullptr)},
        {"rate_limited", s.rate_limited},
        {"retried", s.retried},
        {"retried_by_kind", retried_json(s.retried_by_kind)},
        {"latency_ms", latency_json(s.latency)},
        {"spend", spend_json(s.spend)},
        {"plan", plan_json(s)},
        {"cleanup", cleanup},
        {"without_user_id", without_user_id},
        {"messages", review_json(s.review)},
        {"next_steps", next_steps_json(s.next_steps)},
        {"warnings", s.warnings},
        {"warning_count", s.warning_count},
    };
    // A hand-edited log may hold bytes that are not UTF-8; replace rather than throw.
    return util::json_safe(out.dump(2, ' ', false, json::error_handler_t::replace)) + "\n";
}

}  // namespace report
