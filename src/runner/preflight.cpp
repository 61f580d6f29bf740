#include "runner/preflight.hpp"

#include <fmt/format.h>

#include "campaign/csv_reader.hpp"
#include "campaign/recipients.hpp"
#include "runner/decide.hpp"
#include "service/classify.hpp"
#include "service/messages.hpp"
#include "service/requests.hpp"
#include "service/templates.hpp"

namespace runner {

util::Result<TemplateCheckResult> check_template(const campaign::Campaign& c, service::HttpTransport& transport) {
    const std::string& name = c.template_check->name;
    const auto request = service::list_templates_request(c.service);
    auto completion = service::perform(transport, request);
    auto outcome = service::classify(completion, std::chrono::system_clock::now());
    if (outcome.cause == service::Cause::auth) {
        return TemplateCheckResult{
            queue::StopReason::auth,
            "the service refused the credentials while listing templates (" + outcome.error + ")"};
    }
    if (outcome.cause == service::Cause::tls) {
        return TemplateCheckResult{queue::StopReason::tls, outcome.error};
    }
    if (outcome.cause == service::Cause::endpoint) {
        return TemplateCheckResult{queue::StopReason::endpoint, service::wrong_endpoint(request, outcome)};
    }
    if (outcome.cause == service::Cause::account) {
        return TemplateCheckResult{queue::StopReason::account,
                                   "the service refused the account while listing templates (" + outcome.error + ")"};
    }
    if (!outcome.sent()) {
        return util::fail(
            fmt::format("template \"{}\" could not be checked: listing templates failed: {}", name, outcome.error));
    }
    TRY_ASSIGN(const auto templates, service::parse_templates(std::get<service::HttpResponse>(completion.result).body));
    std::vector<std::string> names;
    for (const auto& t : templates) {
        if (t.name == name) {
            if (t.status == "APPROVED") {
                return TemplateCheckResult{};
            }
            return util::fail(fmt::format("{}: template \"{}\" has status {}, not APPROVED; nothing was sent", c.file,
                                          name, t.status));
        }
        names.push_back(t.name);
    }
    return util::fail(fmt::format("{}: the account has no template \"{}\" (it has: {}); nothing was sent", c.file, name,
                                  fmt::join(names, ", ")));
}

util::Result<Preview> make_preview(const campaign::Campaign& c, const results::LogState* state,
                                   const SendOptions& options, const std::string& results_path, util::TimePoint now,
                                   const campaign::MediaVerdicts* media) {
    TRY_ASSIGN(auto stream, campaign::RecipientStream::open(c, {}, {.media = media}));
    Preview p;
    p.campaign_name = c.name;
    p.results_path = results_path;
    p.per_second = c.rate.unlimited() ? std::string("unlimited") : fmt::format("{}/s", c.rate.per_second);
    p.concurrency = c.rate.concurrency ? std::to_string(*c.rate.concurrency)
                                       : fmt::format("auto (up to {})", c.rate.max_concurrency);
    campaign::Recipient r;
    for (;;) {
        TRY_ASSIGN(const bool found, stream.next(r));
        if (!found) {
            break;
        }
        ++p.rows;
        TRY_ASSIGN(const RowFacts facts, facts_of(r, state));
        switch (decide(facts, options.retry_rejected, options.resend_unknown, now)) {
        case Decision::send:
            if (options.limit > 0 && p.to_send >= options.limit) {
                break;
            }
            if (p.to_send++ == 0) {
                p.first_wa_id = r.message.wa_id;
                p.first_body = service::send_message_body(r.message);
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
    return p;
}

std::int64_t estimate_jobs(const campaign::Campaign& c, const results::LogState* state, const SendOptions& options) {
    auto reader = campaign::CsvReader::open(c.recipients.file, c.recipients.delimiter);
    if (!reader) {
        return 0;
    }
    std::int64_t rows = 0;
    campaign::CsvRecord record;
    for (auto more = reader->next(record); more && *more; more = reader->next(record)) {
        ++rows;
    }
    if (state != nullptr) {
        using results::Status;
        rows -= state->counts[Status::sent] + state->counts[Status::invalid] + state->counts[Status::skipped];
    }
    if (options.limit > 0) {
        rows = std::min<std::int64_t>(rows, options.limit);
    }
    return std::max<std::int64_t>(rows, 0);
}

}  // namespace runner
