#include "runner/preflight.hpp"

#include <fmt/format.h>

#include <functional>

#include "campaign/csv_reader.hpp"
#include "campaign/recipients.hpp"
#include "runner/decide.hpp"
#include "runner/screened_rows.hpp"
#include "runner/shown_zone.hpp"
#include "runner/template_match.hpp"
#include "service/classify.hpp"
#include "service/messages.hpp"
#include "service/requests.hpp"
#include "service/templates.hpp"
#include "util/time.hpp"
#include "util/zone.hpp"

namespace runner {

namespace {

// Reads the account's template list, handing each record to `visit`; nothing, or why the service
// gave none: a stop (refused key, account or certificate, a wrong endpoint) or a list that could
// not be had or read (unreachable).
std::optional<TemplateCheckResult> read_template_list(const campaign::Campaign& c, service::HttpTransport& transport,
                                                      const std::string& name,
                                                      const std::function<void(const service::TemplateInfo&)>& visit) {
    const auto request = service::list_templates_request(c.service);
    auto completion = service::perform(transport, request);
    auto outcome = service::classify(completion, std::chrono::system_clock::now());
    const auto stop = [](queue::StopReason reason, std::string message) {
        return TemplateCheckResult{.stop = reason, .message = std::move(message)};
    };
    switch (outcome.cause) {
    case service::Cause::auth:
        return stop(queue::StopReason::auth,
                    "the service refused the credentials while listing templates (" + outcome.error + ")");
    case service::Cause::tls: return stop(queue::StopReason::tls, outcome.error);
    case service::Cause::endpoint: return stop(queue::StopReason::endpoint, service::wrong_endpoint(request, outcome));
    case service::Cause::account:
        return stop(queue::StopReason::account,
                    "the service refused the account while listing templates (" + outcome.error + ")");
    case service::Cause::policy_block:
        return stop(queue::StopReason::policy_block,
                    "the account is temporarily blocked for a policy violation (" + outcome.error + ")");
    default: break;
    }
    const auto unreachable = [&](const std::string& why) {
        return TemplateCheckResult{.stop = std::nullopt,
                                   .unreachable = true,
                                   .message = fmt::format("template \"{}\" could not be checked: the "
                                                          "template list could not be read from {}: {}",
                                                          name, service::redacted_url(c.service.base_url), why)};
    };
    if (!outcome.sent()) {
        return unreachable(outcome.error);
    }
    if (auto read = service::read_templates(std::get<service::HttpResponse>(completion.result), {.record = visit});
        !read) {
        return unreachable(read.error().message);
    }
    return std::nullopt;
}

}  // namespace

util::Result<TemplateCheckResult> check_template(const campaign::Campaign& c, service::HttpTransport& transport) {
    const std::string& name = c.template_check->name;
    std::optional<service::TemplateInfo> found;
    ListedNames names;
    auto stop = read_template_list(c, transport, name, [&](const service::TemplateInfo& t) {
        names.add(t.name);
        if (!found && t.name == name) {
            found = t;
        }
    });
    if (stop && stop->unreachable) {
        return util::fail(stop->message);  // as before the template campaigns: exit 2
    }
    if (stop) {
        return *stop;
    }
    if (!found) {
        return util::fail(fmt::format("{}: the account has no template \"{}\" (it has: {}); nothing was sent", c.file,
                                      name, names.text()));
    }
    if (found->status != "APPROVED") {
        return util::fail(fmt::format("{}: template \"{}\" has status {}, not APPROVED; nothing was sent", c.file, name,
                                      found->status));
    }
    return TemplateCheckResult{};
}

util::Result<TemplateCheckResult> resolve_template(campaign::Campaign& c, service::HttpTransport& transport) {
    TemplateShortlist list(c.message.templated.name);
    auto stop = read_template_list(c, transport, c.message.templated.name,
                                   [&](const service::TemplateInfo& t) { list.add(t); });
    if (stop) {
        return *stop;
    }
    TRY_ASSIGN(auto note, match_template(c, list));
    return TemplateCheckResult{.note = std::move(note)};
}

namespace {

// When the first request may leave: now, at schedule.start_at, or when the send window opens.
std::string start_of(const SendRun& run, util::TimePoint now) {
    const auto& start_at = run.campaign.schedule.start_at;
    const util::TimePoint from = start_at && *start_at > now ? *start_at : now;
    std::string when = from == now ? "now"
                                   : fmt::format("at {} (schedule.start_at)",
                                                 util::format_zoned_time(from, now, shown_zone(run.campaign)));
    if (run.zone_windows) {
        return fmt::format("{}, each message when its recipient's window is open — {}", when,
                           run.zone_windows->describe());
    }
    if (run.window) {
        const auto opens = run.window->next_open(from);
        if (!opens) {
            return "never: the send window has no days";
        }
        if (*opens > from) {
            return fmt::format("when the send window opens, {} — {}",
                               util::format_zoned_time(*opens, now, run.window->zone()), run.window->describe());
        }
    }
    return when;
}

// About how long `to_send` requests take at the configured pace; empty when it is unlimited.
std::string duration_of(const campaign::Rate& rate, std::int64_t to_send, bool windowed) {
    if (rate.unlimited() || to_send <= 0) {
        return {};
    }
    const auto ms = static_cast<std::int64_t>(static_cast<double>(to_send) / rate.per_second * 1000);
    std::string text = fmt::format(
        "about {} at {}/s", util::format_duration(util::Millis(ms), util::DurationStyle::report), rate.per_second);
    if (rate.per_day && to_send > *rate.per_day) {
        text += fmt::format(", over at least {} days at {} numbers a day (rate.per_day)",
                            (to_send + *rate.per_day - 1) / *rate.per_day, *rate.per_day);
    }
    if (windowed) {
        text += ", counted while the send window is open";
    }
    return text;
}

// Adds to `p` what row `r` cost before this run when the log has no price of it: a row sent
// without one (recovered from the ledger, or sent before pricing) and a row whose request may
// have been delivered, at today's price.
void count_spent(const RowFacts& facts, const campaign::Recipient& r, const campaign::RowPrices& prices, Preview& p) {
    const results::RowState& state = facts.state;
    if (r.verdict == campaign::Verdict::invalid || r.message.wa_id.empty()) {
        return;
    }
    if (state.ever_sent()) {
        if (!facts.priced) {
            p.spent += prices.price(r.message.wa_id);
            ++p.spent_unpriced;
        }
    } else if (state.in_flight() || (state.has_result() && state.status == results::Status::unknown)) {
        p.spent += prices.price(r.message.wa_id);
        ++p.spent_unknown;
    }
}

}  // namespace

util::Result<Preview> make_preview(const SendRun& run, const campaign::Campaign* priced_as) {
    const campaign::Campaign& c = run.campaign;
    const SendOptions& options = run.options;
    const util::TimePoint now = run.parts.clock.wall_now();
    TRY_ASSIGN(auto stream, campaign::RecipientStream::open(c, {}, {.media = run.refused_media()}));
    // Keyed as the run will be: a campaign's own earlier sends count as they will.
    const std::string key = campaign_key(c.name, run.state ? run.state->header.started_at : run.header.started_at);
    ScreenedRows rows(stream, run.book.get(), key, run.parts.clock, run.paused_regions());
    Preview p;
    p.campaign_name = c.name;
    p.results_path = run.report.results_path;
    p.per_second = c.rate.unlimited() ? std::string("unlimited") : fmt::format("{}/s", c.rate.per_second);
    p.concurrency = c.rate.concurrency ? std::to_string(*c.rate.concurrency)
                                       : fmt::format("auto (up to {})", c.rate.max_concurrency);
    campaign::Recipient r;
    Screening screening;
    RecentlyMessaged recent;
    TRY_ASSIGN(auto cost, campaign::CostTally::create(priced_as != nullptr ? *priced_as : c));
    p.spent = run.state ? run.state->spent : 0;
    for (;;) {
        TRY_ASSIGN(const bool found, rows.next(r, screening));
        if (!found) {
            break;
        }
        ++p.rows;
        TRY_ASSIGN(const RowFacts facts, facts_of(r, run.existing()));
        count_spent(facts, r, *run.prices, p);
        switch (decide(facts, options.retry_rejected, options.resend_unknown, now)) {
        case Decision::send:
            if (recovery_of(screening, facts.state) != Recovery::none) {
                ++p.recovered;
            } else if (screening.cause != results::Cause::none) {
                ++p.held_back[screening.cause];
            } else if (options.limit > 0 && p.to_send >= options.limit) {
                ++p.beyond_limit;
            } else {
                recent.add(screening, now);
                cost.add(r.message.wa_id);
                if (p.to_send++ == 0) {
                    p.first_wa_id = r.message.wa_id;
                    p.first_body = service::request_body(r.message);
                }
            }
            break;
        case Decision::record_invalid: ++p.invalid; break;
        case Decision::record_duplicate:
        case Decision::record_already_sent: ++p.duplicates; break;
        case Decision::done:
        case Decision::hold_unknown:
        case Decision::hold_rejected:
        case Decision::hold_marketing_limit: ++p.already_done; break;
        }
    }
    if (run.book) {
        p.messaged_day = recent.day;
        p.messaged_week = recent.week;
    }
    p.cost = cost.estimate();
    p.starts = start_of(run, now);
    p.takes = duration_of(c.rate, p.to_send, run.window.has_value() || run.zone_windows.has_value());
    return p;
}

JobEstimate estimate_jobs(const campaign::Campaign& c, const results::LogState* state, const SendOptions& options) {
    auto reader = campaign::CsvReader::open(c.recipients.file, c.recipients.delimiter);
    if (!reader) {
        return {};
    }
    JobEstimate estimate;
    campaign::CsvRecord record;
    for (auto more = reader->next(record); more && *more; more = reader->next(record)) {
        ++estimate.rows;
    }
    std::int64_t jobs = estimate.rows;
    if (state != nullptr) {
        using results::Status;
        jobs -= state->counts[Status::sent] + state->counts[Status::invalid] + state->counts[Status::skipped];
    }
    if (options.limit > 0) {
        jobs = std::min<std::int64_t>(jobs, options.limit);
    }
    estimate.jobs = std::max<std::int64_t>(jobs, 0);
    return estimate;
}

}  // namespace runner
