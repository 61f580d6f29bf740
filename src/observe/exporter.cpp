#include "observe/exporter.hpp"

#include "observe/text_file.hpp"

namespace observe {

namespace {

// More than any metrics file wacamp writes: a bigger file was not written by it.
constexpr std::size_t k_max_file = 1 << 20;

double unix_seconds(util::TimePoint at) {
    return std::chrono::duration<double>(at.time_since_epoch()).count();
}

}  // namespace

MetricsExporter::MetricsExporter(std::string campaign, ExportTargets targets, ExportParts parts)
    : m_metrics(campaign),
      m_targets(std::move(targets)),
      m_parts(std::move(parts)),
      m_started(m_parts.clock.steady_now()) {
    if (m_targets.push && m_parts.push_transport != nullptr) {
        m_pusher.emplace(*m_targets.push, campaign, *m_parts.push_transport);
    }
    if (!m_targets.file.empty()) {
        if (auto earlier = read_small_file(m_targets.file, k_max_file)) {
            m_last_success = last_success_in(*earlier, campaign);
        }
    }
}

void MetricsExporter::recorded(results::Status status, results::Cause cause) {
    m_metrics.recorded(status, cause);
}

void MetricsExporter::answered(const service::Outcome& outcome) {
    m_metrics.answered(outcome);
}

void MetricsExporter::progress(const queue::Progress& progress, const runner::RunFigures& figures) {
    m_metrics.progress(progress, figures);
    if (m_pusher) {
        if (auto ended = m_pusher->poll()) {
            report(*ended, m_push_problem);
        }
    }
    const auto now = m_parts.clock.steady_now();
    if (m_next_export && now < *m_next_export) {
        return;
    }
    m_next_export = now + k_export_interval;
    m_metrics.set_duration(now - m_started);
    export_now();
}

void MetricsExporter::finish(RunSucceeded succeeded, FinalPush push) {
    m_metrics.set_duration(m_parts.clock.steady_now() - m_started);
    if (succeeded == RunSucceeded::yes) {
        m_succeeded = true;
        m_last_success = unix_seconds(m_parts.clock.wall_now());
    }
    if (!m_targets.file.empty()) {
        report(write_atomically(m_targets.file, m_metrics.render(m_last_success)), m_file_problem);
    }
    if (m_pusher && push == FinalPush::wait) {
        report(m_pusher->push_and_wait(m_metrics.render(m_succeeded ? m_last_success : std::nullopt)), m_push_problem);
    }
}

void MetricsExporter::export_now() {
    if (!m_targets.file.empty()) {
        report(write_atomically(m_targets.file, m_metrics.render(m_last_success)), m_file_problem);
    }
    if (m_pusher) {
        // Only this run's success goes to the Pushgateway: a push-add without the family
        // leaves the one it holds (an earlier run's) in place.
        m_pusher->start(m_metrics.render(m_succeeded ? m_last_success : std::nullopt));
    }
}

void MetricsExporter::report(const util::Result<void>& done, std::optional<std::string>& last) {
    if (done) {
        last.reset();
        return;
    }
    if (last != done.error().message) {
        m_parts.warn(done.error().message);
        last = done.error().message;
    }
}

}  // namespace observe
