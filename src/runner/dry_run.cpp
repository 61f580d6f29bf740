#include "runner/dry_run.hpp"

#include <algorithm>
#include <map>

#include "campaign/template_text.hpp"

#include <fmt/format.h>

#include "campaign/recipients.hpp"
#include "queue/zone_windows.hpp"
#include "results/log_writer.hpp"
#include "results/records.hpp"
#include "results/run_lock.hpp"
#include "runner/campaign_header.hpp"
#include "runner/screened_rows.hpp"
#include "runner/secrets.hpp"
#include "runner/survey.hpp"
#include "service/messages.hpp"

namespace runner {

namespace {

constexpr std::size_t k_problem_samples = 20;

// Writes the rendered message `m` into `out` as the log keeps it, reusing its buffers: a template
// message's params array as sent and what its recipient reads; a text or image message's
// `message` object.
void keep_content(const campaign::Campaign& c, const service::OutgoingMessage& m, results::MessageContent& out) {
    if (m.kind == service::MessageKind::template_message) {
        out.image = false;
        out.text.clear();
        out.source.clear();
        out.label.reset();
        out.params = service::template_params(m);
        auto face = campaign::face_of(c.message.templated, m);
        out.preview.header = std::move(face.header);
        out.preview.body = std::move(face.body);
        out.preview.footer = std::move(face.footer);
        out.preview.buttons = std::move(face.buttons);
        return;
    }
    out.params.clear();
    out.preview = {};
    out.image = m.kind == service::MessageKind::image;
    out.text.assign(out.image ? std::string_view() : std::string_view(m.text));
    out.source.assign(out.image ? std::string_view(m.source) : std::string_view());
    if (out.image && m.has_label) {
        out.label = m.label;
    } else {
        out.label.reset();
    }
}

// Fills `rec` (all but its time) for recipient `r`, which the ledger screened as `screening`,
// keeping the first samples and problems.
void note_row(const campaign::Campaign& c, const campaign::Recipient& r, const Screening& screening,
              std::size_t sample_count, results::ResultRecord& rec, DryRunReport& report) {
    rec.row = r.row;
    rec.wa_id = r.message.wa_id;
    rec.user_name = r.message.user_name;
    rec.attempts = 0;
    rec.defaults.clear();
    if (r.rendered && r.verdict != campaign::Verdict::duplicate) {
        keep_content(c, r.message, rec.message ? *rec.message : rec.message.emplace());
        rec.defaults = r.defaults;
    } else {
        rec.message.reset();
    }
    if (r.verdict == campaign::Verdict::ok && screening.cause != results::Cause::none) {
        rec.status = results::Status::skipped;
        rec.cause = screening.cause;
        rec.error = screening.why;
        return;
    }
    switch (r.verdict) {
    case campaign::Verdict::ok:
        rec.status = results::Status::dry_run;
        rec.cause = results::Cause::none;
        rec.error.clear();
        if (report.samples.size() < sample_count) {
            report.samples.push_back({r.row, r.message.wa_id, service::request_body(r.message),
                                      r.message.kind == service::MessageKind::template_message
                                          ? campaign::phone_view(campaign::face_of(c.message.templated, r.message))
                                          : std::string()});
        }
        break;
    case campaign::Verdict::invalid:
    case campaign::Verdict::duplicate:
        bool invalid = r.verdict == campaign::Verdict::invalid;
        rec.status = invalid ? results::Status::invalid : results::Status::skipped;
        rec.cause = invalid ? results::Cause::invalid : results::Cause::duplicate;
        rec.error = r.reason;
        if (invalid && report.problems.size() < k_problem_samples) {
            report.problems.push_back(fmt::format("{}:{}: row {}: {}", c.recipients.file, r.line, r.row, r.reason));
        }
        break;
    }
}

}  // namespace

results::CostSummary summary_of(const campaign::CostEstimate& cost) {
    results::CostSummary out{.currency = cost.currency,
                             .total = campaign::rounded_amount(cost.total),
                             .messages = cost.messages,
                             .category = cost.category,
                             .rate_card = cost.rate_card,
                             .effective = cost.effective};
    for (const auto& c : cost.by_country) {
        out.by_country.push_back({c.country, c.messages, c.price, campaign::rounded_amount(c.amount)});
    }
    return out;
}

std::string dry_run_path(const std::string& results_path) {
    constexpr std::string_view k_ext = ".jsonl";
    std::string_view base = results_path;
    if (base.size() >= k_ext.size() && base.substr(base.size() - k_ext.size()) == k_ext) {
        base.remove_suffix(k_ext.size());
    }
    return std::string(base) + ".dry-run.jsonl";
}

namespace {

// The rows of `by_zone` with when each zone's window next opens after `now`, most rows first.
util::Result<std::vector<ZoneRows>> zone_rows(const campaign::Window& window,
                                              const std::map<std::string, std::int64_t>& by_zone, util::TimePoint now) {
    queue::ZoneWindows windows(window);
    std::vector<ZoneRows> out;
    for (const auto& [zone, rows] : by_zone) {
        TRY_ASSIGN(const int index, windows.zone(zone));
        out.push_back({zone, rows, windows.window(index).next_open(now)});
    }
    std::stable_sort(out.begin(), out.end(), [](const ZoneRows& a, const ZoneRows& b) { return a.rows > b.rows; });
    return out;
}

}  // namespace

util::Result<DryRunReport> dry_run(const campaign::Campaign& c, const std::string& results_path,
                                   std::size_t sample_count, const util::Clock& clock, const DryRunChecks& checks) {
    const auto started = clock.steady_now();
    const util::Redactor secrets = campaign::redactor_for(c);  // a row may hold one: masked in the log
    DryRunReport report;
    report.results_path = dry_run_path(results_path);

    TRY_ASSIGN(auto stream, campaign::RecipientStream::open(c, {}, {.media = checks.media}));
    if (auto refused = campaign::too_many_invalid(c, stream.survey())) {
        return util::fail(std::move(*refused));
    }
    TRY_ASSIGN(const auto header, make_campaign_header(c, results::Mode::dry_run, clock.wall_now()));
    TRY_ASSIGN(const auto paused, campaign::PausedRegions::of(c));
    ScreenedRows rows(stream, checks.book, campaign_key(c.name, header.started_at), clock, paused ? &*paused : nullptr);
    TRY_ASSIGN(const auto lock, results::RunLock::acquire(report.results_path));
    // A dry run's log starts afresh, emptied in place: a symlink to it stays a symlink.
    TRY_ASSIGN(auto log, results::LogWriter::open(report.results_path, {.durability = results::Durability::none,
                                                                        .existing = results::Existing::replace}));
    TRY(log.append(results::to_line(header)));

    results::ResultRecord rec;
    const bool per_recipient = c.schedule.window && c.schedule.window->per_recipient;
    std::map<std::string, std::int64_t> by_zone;  // as many as tzdata has zones
    auto note = [&](const campaign::Recipient& r, const Screening& screening, bool to_send) -> util::Result<void> {
        rec.at = clock.wall_now();
        note_row(c, r, screening, sample_count, rec, report);
        mask_record(rec, secrets);
        ++report.counts[rec.status];
        if (results::counts_cause(rec.status)) {
            ++report.causes[rec.cause];
        }
        if (per_recipient && to_send && !r.zone.name.empty()) {
            ++by_zone[r.zone.name];
            report.fallback_rows += r.zone.source == campaign::ZoneSource::fallback ? 1 : 0;
        }
        return log.append_batched(results::to_line(rec));
    };
    TRY_ASSIGN(auto surveyed, survey(c, rows, clock, note));
    if (surveyed.unread) {
        // The rows read so far stay logged; the rest of the list was not previewed.
        TRY(log.flush());
        return *surveyed.unread;
    }
    if (per_recipient) {
        TRY_ASSIGN(report.zones, zone_rows(*c.schedule.window, by_zone, clock.wall_now()));
    }
    TRY_ASSIGN(report.plan, make_plan(c, surveyed.plan_inputs(clock.wall_now(), checks.book)));
    report.cost = std::move(surveyed.cost);
    auto plan = summary_of(report.plan);
    plan.cost = summary_of(report.cost);
    results::EndRecord end{"completed", report.counts, clock.wall_now(), std::move(plan)};
    TRY(log.append(results::to_line(end)));
    TRY(log.close());
    report.duration = std::chrono::duration_cast<std::chrono::milliseconds>(clock.steady_now() - started);
    return report;
}

}  // namespace runner
