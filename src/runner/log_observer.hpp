#pragma once
// Writes what the dispatcher reports to the result log, and passes progress to the UI.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "campaign/campaign.hpp"
#include "queue/dispatcher.hpp"
#include "queue/job.hpp"
#include "results/log_writer.hpp"
#include "results/status.hpp"
#include "runner/budget.hpp"
#include "runner/row_tally.hpp"
#include "runner/ui.hpp"
#include "runner/watch.hpp"
#include "util/clock.hpp"
#include "util/redact.hpp"

namespace runner {

// The log's cause for a service outcome.
results::Cause to_log_cause(service::Cause cause);

// What every result record of a template campaign names (docs/result-log.md): the template and
// its category; nothing for text and image campaigns.
struct TemplateNames {
    std::optional<std::string> name;
    std::optional<std::string> category;  // when known: the check before sending found it

    // Sets `record`'s template and category to these.
    void label(results::ResultRecord& record) const {
        record.template_name = name;
        record.category = category;
    }
};

// Returns the template and category of campaign `c`, which the template check has filled in.
TemplateNames template_names_of(const campaign::Campaign& c);

class LogObserver final : public queue::DispatchObserver {
public:
    // `secrets` are masked in what the service said before it is recorded.
    // `total`: the jobs expected this run; `rows`: the list's data rows (0: unknown), for progress.
    LogObserver(results::LogWriter& log, RowTally& tally, const util::Clock& clock, RunUi& ui, std::int64_t total,
                std::int64_t rows, const util::Redactor& secrets)
        : m_log(log), m_tally(tally), m_clock(clock), m_ui(ui), m_total(total), m_rows(rows), m_secrets(secrets) {}

    util::Result<void> on_attempt(const queue::Job& job) override;
    util::Result<void> on_result(const queue::Job& job, queue::JobStatus status, const service::Outcome& outcome,
                                 std::chrono::milliseconds latency) override;
    // Records `job` skipped: the account's rate.per_recipient refused it as it was about to leave.
    util::Result<void> on_refused(const queue::Job& job, const queue::Admission::Never& answer) override;
    void on_progress(const queue::Progress& progress) override;
    // Says why the queue waits and until when, even without progress output.
    void on_pause(const queue::Progress& progress) override;
    // Writes the lines batched since the last turn of the dispatcher's loop. When that fails,
    // the results among them are given to the person instead (give_unwritten).
    util::Result<void> flush() override;

    // Returns how many requests the service throttled (rate limited) so far.
    std::int64_t throttled() const { return m_throttled; }
    // Returns how many rows the ledger refused as another run's (Refusal::ledger_sent,
    // ledger_reserved), recorded sent or unknown with `recovered: "ledger"`.
    std::int64_t recovered_sent() const { return m_recovered_sent; }
    std::int64_t recovered_unknown() const { return m_recovered_unknown; }
    // Has progress count, besides the jobs it refuses, the rows `screened` holds back before
    // they become jobs (CampaignJobs::held_back); it must outlive this.
    void count_screened(const results::CauseCounts& screened) { m_screened = &screened; }
    // Has every result record name the campaign's template and its category.
    void label_with(TemplateNames names) { m_names = std::move(names); }
    // Has `budget` told of every job's end (null: no budget); it must outlive this.
    void spend_with(BudgetGuard* budget) { m_budget = budget; }
    // Has `watch` told of every answer and of progress (null: nobody); it must outlive this.
    void report_to(RunWatch* watch) { m_watch = watch; }
    // Tells the watch, not the person, of the queue's last state once it has stopped as
    // `result` says.
    void report_end(const queue::DispatchResult& result);

private:
    // Writes the `unsent` record of a request answered without being acted on.
    // Labels `record` with the template, masks it and appends it; tells the tally of it once
    // written (`retry`: whether a retry of the row follows in this run).
    util::Result<void> write_result(results::ResultRecord& record, Retry retry);
    util::Result<void> on_unsent(const queue::Job& job, const service::Outcome& outcome);
    // Records a row the ledger holds for another run of the campaign: sent, or unknown.
    util::Result<void> on_held_elsewhere(results::ResultRecord& record, const queue::Admission::Never& answer);
    // Warns with every result appended since the last write that succeeded: the log could not
    // be written, and a row delivered must not look unknown to whoever reads only the log.
    void give_unwritten();

    results::LogWriter& m_log;
    RowTally& m_tally;
    const util::Clock& m_clock;
    RunUi& m_ui;
    const std::int64_t m_total;  // jobs expected this run (0: unknown), for progress
    const std::int64_t m_rows;   // the list's data rows (0: unknown), for progress
    const util::Redactor& m_secrets;
    std::int64_t m_throttled = 0;
    std::int64_t m_recovered_sent = 0;
    std::int64_t m_recovered_unknown = 0;
    results::CauseCounts m_refused;  // jobs the ledger refused as they were about to leave
    const results::CauseCounts* m_screened = nullptr;
    RunWatch* m_watch = nullptr;
    BudgetGuard* m_budget = nullptr;
    TemplateNames m_names;
    // The result lines (but unknown ones, which an attempt without a result says already)
    // appended since the last write of the log that succeeded.
    std::vector<std::string> m_unflushed;

    // The runner's figures for progress: the total, and the rows held back.
    RunFigures figures() const;
};

}  // namespace runner
