#pragma once
// The campaign's rows as the dispatcher's job source.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "campaign/pricing.hpp"
#include "campaign/recipients.hpp"
#include "queue/job.hpp"
#include "queue/zone_windows.hpp"
#include "results/log_writer.hpp"
#include "results/records.hpp"
#include "results/replay.hpp"
#include "runner/account_book.hpp"
#include "runner/decide.hpp"
#include "runner/log_observer.hpp"
#include "runner/row_tally.hpp"
#include "runner/send_options.hpp"
#include "util/clock.hpp"
#include "util/redact.hpp"

namespace runner {

// Feeds the dispatcher the rows that need sending, recording on the way the rows that need
// only a log line (invalid, duplicate, and what the account's ledger holds back: suppressed,
// frequency_cap, marketing_limit). Rows are read ahead in batches so that the ledger is asked
// once a batch.
class CampaignJobs final : public queue::JobSource {
public:
    CampaignJobs(campaign::RecipientStream& stream, const results::LogState* state, results::LogWriter& log,
                 RowTally& tally, const util::Clock& clock, const SendOptions& options, const util::Redactor& secrets)
        : m_stream(stream),
          m_book(nullptr),
          m_state(state),
          m_log(log),
          m_tally(tally),
          m_clock(clock),
          m_options(options),
          m_secrets(secrets) {}

    // Reads no row: the log settles every one (every_row_settled), next() ends at once.
    void none_left() { m_stream_done = true; }

    // The next row to send; rows that need only a log line are recorded on the way. False at
    // the end of the list. Fails when the list cannot be read on, or when the log cannot be
    // written (an Error of kind util::ErrorKind::write).
    util::Result<bool> next(queue::Job& out) override;

    // Has rows screened by `book`'s ledger under `campaign_key` before they are dispatched.
    void screen_with(AccountBook& book, std::string campaign_key) {
        m_book = &book;
        m_campaign_key = std::move(campaign_key);
    }

    // Gives each job its row's price in `prices`, for the budget and the log.
    void price_with(const campaign::RowPrices& prices) { m_prices = &prices; }

    // Holds back the rows of the regions in `paused` (region_paused), asking the ledger nothing.
    void pause_regions(const campaign::PausedRegions& paused) { m_paused = &paused; }

    // Gives each job its recipient's zone in `zones` (a window per recipient).
    void zone_with(queue::ZoneWindows& zones) { m_zones = &zones; }

    // Has every result record name the campaign's template and its category.
    void label_with(TemplateNames names) { m_names = std::move(names); }

    std::int64_t held_unknown = 0;
    std::int64_t held_rejected = 0;
    std::int64_t held_marketing_limit = 0;                 // refused for the marketing limit < 24 h ago
    std::optional<util::TimePoint> marketing_limit_until;  // when the last of those may go again
    std::int64_t records_written = 0;
    results::CauseCounts held_back;  // rows the ledger's screening held back, by cause
    // Rows the log had lost and the ledger held (SPEC "The ledger remembers what the log forgot"):
    // recorded sent (never sent again), or unknown (sent again only with --resend-unknown).
    std::int64_t recovered_sent = 0;
    std::int64_t recovered_unknown = 0;

private:
    // A row read ahead, with what the log and the ledger say of it.
    struct Ahead {
        campaign::Recipient recipient;
        RowFacts facts;
        Decision decision = Decision::done;
        Screening screening;
    };
    // Reads the next batch of rows ahead and screens those to be sent.
    util::Result<void> read_ahead();
    // Acts on one row read ahead: true (with `out` filled) when it is to be sent.
    util::Result<bool> take(Ahead& row, queue::Job& out);
    void hold_marketing_limit(util::TimePoint refused_at);
    util::Result<void> record(const campaign::Recipient& r, results::Status status, results::Cause cause,
                              const std::string& reason, const results::RowState& before);
    // Records what the ledger remembers of a row the log forgot.
    util::Result<void> recover(const campaign::Recipient& r, Recovery recovery, const Screening& screening,
                               const results::RowState& before);
    results::ResultRecord record_of(const campaign::Recipient& r, const results::RowState& before) const;
    // Labels, masks and appends `rec`, and counts it.
    util::Result<void> write(results::ResultRecord& rec, const results::RowState& before);

    campaign::RecipientStream& m_stream;
    AccountBook* m_book;
    std::string m_campaign_key;
    std::vector<Ahead> m_ahead;
    std::size_t m_ahead_count = 0;  // rows in m_ahead read by the last batch
    std::size_t m_ahead_next = 0;   // the next of them to act on
    bool m_stream_done = false;     // the stream was read to its end, or none_left()
    const results::LogState* m_state;
    results::LogWriter& m_log;
    RowTally& m_tally;
    const util::Clock& m_clock;
    const SendOptions& m_options;
    const util::Redactor& m_secrets;  // masked in what is recorded (a row may hold them)
    TemplateNames m_names;
    queue::ZoneWindows* m_zones = nullptr;  // a window per recipient: the zones jobs are given
    const campaign::PausedRegions* m_paused = nullptr;
    const campaign::RowPrices* m_prices = nullptr;  // message.paused_regions, for a MARKETING template
};

}  // namespace runner
