#pragma once
// The campaign's rows as the dispatcher's job source.

#include <cstdint>
#include <optional>

#include "campaign/recipients.hpp"
#include "queue/job.hpp"
#include "results/log_writer.hpp"
#include "results/records.hpp"
#include "results/replay.hpp"
#include "runner/row_tally.hpp"
#include "runner/send.hpp"
#include "util/clock.hpp"
#include "util/redact.hpp"

namespace runner {

// Feeds the dispatcher the rows that need sending, recording on the way the rows that need
// only a log line (invalid, duplicate).
class CampaignJobs final : public queue::JobSource {
public:
    CampaignJobs(campaign::RecipientStream& stream, const results::LogState* state, results::LogWriter& log,
                 RowTally& tally, const util::Clock& clock, const SendOptions& options, const util::Redactor& secrets)
        : m_stream(stream),
          m_state(state),
          m_log(log),
          m_tally(tally),
          m_clock(clock),
          m_options(options),
          m_secrets(secrets) {}

    // The next row to send; rows that need only a log line are recorded on the way. False at
    // the end of the list. Fails when the list cannot be read on, or when the log cannot be
    // written (an Error of kind util::ErrorKind::write).
    util::Result<bool> next(queue::Job& out) override;

    std::int64_t held_unknown = 0;
    std::int64_t held_rejected = 0;
    std::int64_t held_marketing_limit = 0;                 // refused for the marketing limit < 24 h ago
    std::optional<util::TimePoint> marketing_limit_until;  // when the last of those may go again
    std::int64_t records_written = 0;

private:
    void hold_marketing_limit(util::TimePoint refused_at);
    util::Result<void> record(results::Status status, results::Cause cause, const std::string& reason,
                              const results::RowState& before);

    campaign::RecipientStream& m_stream;
    const results::LogState* m_state;
    results::LogWriter& m_log;
    RowTally& m_tally;
    const util::Clock& m_clock;
    const SendOptions& m_options;
    const util::Redactor& m_secrets;  // masked in what is recorded (a row may hold them)
    campaign::Recipient m_recipient;
};

}  // namespace runner
