#include "runner/template_recheck.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <utility>

#include "service/classify.hpp"
#include "service/requests.hpp"
#include "service/templates.hpp"
#include "util/text.hpp"

namespace runner {

namespace {

// Why a read got no list, for people: the status or the transport's failure, never a body.
std::string failure_of(const service::Completion& completion, const service::Outcome& outcome) {
    if (const auto* response = std::get_if<service::HttpResponse>(&completion.result)) {
        return fmt::format("HTTP {}", response->status);
    }
    return outcome.error;
}

}  // namespace

TemplateRecheck::TemplateRecheck(const campaign::Campaign& c, std::chrono::milliseconds every, queue::SteadyTime start)
    : m_request(service::list_templates_request(c.service)),
      m_secrets(campaign::redactor_for(c)),
      m_name(c.message.templated.name),
      m_id(c.message.templated.id),
      m_started_as(util::ascii_upper(c.message.templated.category)),
      m_category(m_started_as),
      m_every(every),
      m_next(start + every) {}

std::optional<service::HttpRequest> TemplateRecheck::due(queue::Instant at) {
    if (m_in_flight || m_end || at.steady < m_next) {
        return std::nullopt;
    }
    m_in_flight = true;
    return m_request;
}

std::optional<queue::SteadyTime> TemplateRecheck::next_due() const {
    if (m_in_flight || m_end) {
        return std::nullopt;
    }
    return m_next;
}

void TemplateRecheck::answered(const service::Completion& completion, queue::Instant at) {
    m_in_flight = false;
    const auto outcome = service::classify(completion, at.wall);
    if (outcome.cause == service::Cause::auth) {
        end(queue::StopReason::auth, fmt::format("the service refused the credentials while reading the template "
                                                 "list again ({})",
                                                 outcome.error));
        return;
    }
    if (!outcome.sent()) {
        failed(failure_of(completion, outcome), at);
        return;
    }
    std::optional<service::TemplateInfo> found;
    auto read = service::read_templates(std::get<service::HttpResponse>(completion.result),
                                        {.record = [&](const service::TemplateInfo& t) {
                                            if (!found && t.id == m_id) {
                                                found = t;
                                            }
                                        }});
    if (!read) {
        failed(read.error().message, at);
        return;
    }
    m_failures = 0;
    m_next = at.steady + m_every;
    compare(found);
}

void TemplateRecheck::compare(const std::optional<service::TemplateInfo>& now) {
    const std::string shown = fmt::format("template \"{}\" (_id {})", util::printable(m_name), m_id);
    if (!now) {
        end(queue::StopReason::template_refused, fmt::format("{} is no longer in the account's template list", shown));
        return;
    }
    const std::string status = util::ascii_upper(now->status);
    if (status != "APPROVED") {
        const auto reason = status == "PAUSED"     ? queue::StopReason::template_paused
                            : status == "DISABLED" ? queue::StopReason::template_disabled
                                                   : queue::StopReason::template_refused;
        end(reason, fmt::format("{} has status {} in the template list now, not APPROVED", shown,
                                util::printable(now->status)));
        return;
    }
    const std::string category = util::ascii_upper(now->category);
    if (!category.empty() && category != m_category) {
        const std::string before = m_category;
        m_category = category;
        end(queue::StopReason::template_changed,
            fmt::format("{} is {} in the template list now, not {}: Meta re-categorised it, and its price changed "
                        "with it",
                        shown, util::printable(category), util::printable(before)));
    }
}

void TemplateRecheck::failed(std::string why, queue::Instant at) {
    ++m_failures;
    m_failure = std::move(why);
    m_next = at.steady + std::min<std::chrono::milliseconds>(m_every, k_retry_after);
}

void TemplateRecheck::end(queue::StopReason reason, std::string why) {
    m_end = queue::Admission::Never{.refusal = queue::Admission::Refusal::stop,
                                    .reason = m_secrets.apply(util::printable(why)),
                                    .stop_reason = reason};
}

std::size_t TemplateRecheck::room(queue::Instant at, queue::Admission& why) const {
    if (m_end) {
        why = *m_end;
        return 0;
    }
    if (m_failures >= k_failures_to_pause) {
        why = queue::Admission::Later{
            .retry_at = std::max(at.steady, m_next),
            .reason = m_secrets.apply(util::printable(
                fmt::format("the template list could not be read again {} times in a row (the last: {}): sending "
                            "waits until it can be",
                            m_failures, m_failure))),
            .notice = true};
        return 0;
    }
    return queue::k_any_room;
}

util::Result<void> TemplateRecheck::admit(std::span<const queue::Job* const> jobs, queue::Instant at,
                                          std::vector<queue::Admission>& out) {
    queue::Admission why;
    const bool open = room(at, why) != 0;
    for (std::size_t i = 0; i < jobs.size(); ++i) {
        out.push_back(open ? queue::Admission{} : why);
    }
    return {};
}

}  // namespace runner
