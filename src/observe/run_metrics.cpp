#include "observe/run_metrics.hpp"

#include <prometheus/counter.h>
#include <prometheus/gauge.h>
#include <prometheus/registry.h>
#include <prometheus/text_serializer.h>

#include <charconv>
#include <string>

namespace observe {

namespace {

using prometheus::Counter;
using prometheus::Family;
using prometheus::Gauge;

// The label of a cause: the result log's name, empty for none.
std::string cause_label(results::Cause cause) {
    return cause == results::Cause::none ? std::string() : std::string(results::to_string(cause));
}

}  // namespace

struct RunMetrics::Families {
    explicit Families(const std::string& campaign)
        : registry(std::make_shared<prometheus::Registry>()),
          messages(prometheus::BuildCounter()
                       .Name("wacamp_messages_total")
                       .Help("Recipients whose outcome this run recorded in the result log, by status and cause "
                             "(as the result log says; cause empty when none)")
                       .Labels({{"campaign", campaign}})
                       .Register(*registry)),
          requests(prometheus::BuildCounter()
                       .Name("wacamp_requests_total")
                       .Help("Send-message requests this run made, by outcome: sent, no_answer, or the service's "
                             "cause (rate_limited, transient, rejected, ...)")
                       .Labels({{"campaign", campaign}})
                       .Register(*registry)),
          throttled(prometheus::BuildCounter()
                        .Name("wacamp_throttled_total")
                        .Help("Requests this run that the service answered rate limited (HTTP 429, Meta codes 4, "
                              "80007, 130429)")
                        .Labels({{"campaign", campaign}})
                        .Register(*registry)
                        .Add({})),
          in_flight(gauge(campaign, "wacamp_in_flight", "Requests sent and not yet answered")),
          in_flight_limit(gauge(campaign, "wacamp_in_flight_limit",
                                "The most requests allowed in flight now (rate.concurrency, or the window of auto)")),
          send_rate(gauge(campaign, "wacamp_send_rate", "Messages sent per second, over the last few seconds")),
          paused(prometheus::BuildGauge()
                     .Name("wacamp_paused")
                     .Help("1 while the queue is paused, labelled with the reason; 0 with an empty reason otherwise")
                     .Labels({{"campaign", campaign}})
                     .Register(*registry)),
          remaining(prometheus::BuildGauge()
                        .Name("wacamp_remaining")
                        .Help("Recipients this run has still to send (absent until the run knows how many)")
                        .Labels({{"campaign", campaign}})
                        .Register(*registry)),
          duration(gauge(campaign, "wacamp_run_duration_seconds",
                         "Seconds since the run started; once it has ended, how long it took")) {
        messages.Add({{"status", "sent"}, {"cause", ""}});
        requests.Add({{"outcome", "sent"}});
        paused_now = &paused.Add({{"reason", ""}});
    }

    Gauge& gauge(const std::string& campaign, const std::string& name, const std::string& help) {
        return prometheus::BuildGauge()
            .Name(name)
            .Help(help)
            .Labels({{"campaign", campaign}})
            .Register(*registry)
            .Add({});
    }

    std::shared_ptr<prometheus::Registry> registry;
    Family<Counter>& messages;
    Family<Counter>& requests;
    Counter& throttled;
    Gauge& in_flight;
    Gauge& in_flight_limit;
    Gauge& send_rate;
    Family<Gauge>& paused;
    Gauge* paused_now = nullptr;  // the one series of `paused`
    std::string pause_reason;     // its label
    Family<Gauge>& remaining;
    Gauge* remaining_now = nullptr;  // set once known
    Gauge& duration;
};

RunMetrics::RunMetrics(std::string campaign)
    : m_campaign(std::move(campaign)), m_families(std::make_unique<Families>(m_campaign)) {}

RunMetrics::~RunMetrics() = default;

void RunMetrics::recorded(results::Status status, results::Cause cause) {
    m_families->messages.Add({{"status", std::string(results::to_string(status))}, {"cause", cause_label(cause)}})
        .Increment();
}

void RunMetrics::answered(const service::Outcome& outcome) {
    m_families->requests.Add({{"outcome", std::string(request_outcome(outcome))}}).Increment();
    if (outcome.cause == service::Cause::rate_limited) {
        m_families->throttled.Increment();
    }
}

void RunMetrics::progress(const queue::Progress& p, const runner::RunFigures& figures) {
    Families& f = *m_families;
    f.in_flight.Set(static_cast<double>(p.in_flight));
    f.in_flight_limit.Set(static_cast<double>(p.in_flight_limit));
    f.send_rate.Set(p.achieved_rate);
    if (p.pause_reason != f.pause_reason) {
        // One series at a time: a reason no longer in force leaves the family.
        f.paused.Remove(f.paused_now);
        f.pause_reason = p.pause_reason;
        f.paused_now = &f.paused.Add({{"reason", f.pause_reason}});
    }
    f.paused_now->Set(f.pause_reason.empty() ? 0 : 1);
    if (auto remaining = figures.remaining(p)) {
        if (f.remaining_now == nullptr) {
            f.remaining_now = &f.remaining.Add({});
        }
        f.remaining_now->Set(static_cast<double>(*remaining));
    }
}

void RunMetrics::set_duration(std::chrono::duration<double> elapsed) {
    m_families->duration.Set(elapsed.count());
}

std::string RunMetrics::render(std::optional<double> last_success) const {
    std::vector<prometheus::MetricFamily> families;
    for (auto& family : m_families->registry->Collect()) {
        if (!family.metric.empty()) {
            families.push_back(std::move(family));
        }
    }
    if (last_success) {
        prometheus::Registry registry;
        prometheus::BuildGauge()
            .Name(std::string(k_last_success))
            .Help(
                "Unix time at which the last successful run of the campaign ended (exit code 0 or 1: it ran "
                "through its list)")
            .Labels({{"campaign", m_campaign}})
            .Register(registry)
            .Add({})
            .Set(*last_success);
        for (auto& family : registry.Collect()) {
            families.push_back(std::move(family));
        }
    }
    return prometheus::TextSerializer().Serialize(families);
}

std::string_view request_outcome(const service::Outcome& outcome) {
    if (outcome.sent()) {
        return "sent";
    }
    if (outcome.ambiguous) {
        return "no_answer";
    }
    return service::to_string(outcome.cause);
}

std::optional<double> last_success_in(std::string_view exposition, std::string_view campaign) {
    // As render() writes it: the campaign's names are letters, digits, '-' and '_', which
    // need no escaping.
    const std::string head = std::string(k_last_success) + "{campaign=\"" + std::string(campaign) + "\"} ";
    for (std::size_t at = 0; at < exposition.size();) {
        const std::size_t end = std::min(exposition.find('\n', at), exposition.size());
        const std::string_view line = exposition.substr(at, end - at);
        if (line.starts_with(head)) {
            const std::string_view number = line.substr(head.size());
            double value = 0;
            const auto [stop, error] = std::from_chars(number.data(), number.data() + number.size(), value);
            if (error == std::errc() && stop == number.data() + number.size()) {
                return value;
            }
            return std::nullopt;
        }
        at = end + 1;
    }
    return std::nullopt;
}

}  // namespace observe
