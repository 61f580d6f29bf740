#pragma once
// Keeps the account's ledger up to date during a run (docs/ledger.md): reserves each send
// before its request leaves (the dispatcher's daily-cap admission step, queue::Admitter), and
// passes the dispatcher's reports on to the log first and then records what the answers say in
// the ledger, with the log's fold mark in the same transaction: every k_record_every or
// k_record_batch answers, not every turn (a reservation already counts; what a crash leaves out,
// the next run folds in from the log). A send is written once: the reservation, made for this
// run, is its record, and the run's mark, recorded with each batch, says before when every
// reservation's answer is recorded; a delivered answer writes nothing more (docs/ledger.md "A
// send written once").

#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "account/types.hpp"
#include "queue/admission.hpp"
#include "queue/job.hpp"
#include "results/log_writer.hpp"
#include "runner/account_book.hpp"
#include "util/clock.hpp"

namespace runner {

class AccountKeeper final : public queue::Admitter, public queue::DispatchObserver {
public:
    // Admitter: a test send passes over a closed window or a full day rather than wait.
    bool passable() const override { return true; }
    // `log` is the campaign's log, which `inner` writes; `campaign` the campaign's key.
    AccountKeeper(AccountBook& book, queue::DispatchObserver& inner, const results::LogWriter& log,
                  std::string campaign, const util::Clock& clock)
        : m_book(book), m_inner(inner), m_log(log), m_campaign(std::move(campaign)), m_clock(clock) {
        clear();
    }

    // Reserves `jobs` with the ledger at `at` (one transaction; never before the run's last mark),
    // for this run (the first call starts it: Ledger::begin_run), each for the request it is about
    // to make (the row's next `attempt`): now when reserved, to start by k_reservation_use_by
    // (a reservation counts from when its request leaves: one not used by then is given back,
    // withdraw, and made again when the job is asked again); never when the ledger holds the
    // row for another run of the campaign (sent, or reserved for a request this run does not
    // know of: recorded sent or unknown, recovered "ledger"), when the number is suppressed,
    // held (131049) or at rate.per_recipient; later when the account's
    // rate.per_day is full, asked again when room opens and meanwhile every k_ask_again (another
    // runner may give room back). Fails when the ledger cannot be written.
    util::Result<void> admit(std::span<const queue::Job* const> jobs, queue::Instant at,
                             std::vector<queue::Admission>& out) override;

    // Releases the reservations of `jobs`, which did not start on them (the dispatch stopped
    // first, or they wait past their use-by time): recorded with the next batch, for the
    // request each was reserved for. Until then the ledger holds them for this run alone: a job
    // asked again meanwhile takes its own reservation back (Send::replaces), and is no longer
    // given back. Without this a stop left them `reserved` with no line in the log, which the
    // next run's screening takes for a request lost in flight (unknown).
    void withdraw(std::span<const queue::Job* const> jobs) override;

    util::Result<void> on_attempt(const queue::Job& job) override { return m_inner.on_attempt(job); }
    util::Result<void> on_result(const queue::Job& job, queue::JobStatus status, const service::Outcome& outcome,
                                 std::chrono::milliseconds latency) override;
    util::Result<void> on_refused(const queue::Job& job, const queue::Admission::Never& answer) override {
        return m_inner.on_refused(job, answer);
    }
    void on_progress(const queue::Progress& progress) override { m_inner.on_progress(progress); }
    void on_pause(const queue::Progress& progress) override { m_inner.on_pause(progress); }
    // Writes the log (the inner observer), then, when enough time or answers went by, the
    // answers not yet recorded to the ledger.
    util::Result<void> flush() override;
    // Records the answers not yet recorded (the log holds them): at the end of the dispatch.
    util::Result<void> record_pending();

    static constexpr std::chrono::seconds k_ask_again{5};
    static constexpr std::chrono::seconds k_reservation_use_by{2};
    // At a paced rate, how far ahead the dispatcher asks the ledger (DispatchSettings::ask_ahead):
    // the sends of a quarter second reserved in one transaction, each used well within its 2 s.
    static constexpr std::chrono::milliseconds k_reserve_ahead{50};
    static constexpr std::chrono::milliseconds k_record_every{250};
    static constexpr std::size_t k_record_batch = 1024;

private:
    void clear();
    // Before when every reservation of the run has its answer in m_batch or in the ledger: the
    // earliest reservation whose answer is not, or past the latest when none.
    util::TimePoint answered_before() const;
    // The send of `job`'s request `attempt` (job.requests once it left; job.requests + 1 before).
    account::Send send_of(const queue::Job& job, std::int64_t attempt) const {
        return account::Send{job.wa_id, m_campaign, job.row, std::nullopt, attempt};
    }

    AccountBook& m_book;
    queue::DispatchObserver& m_inner;
    const results::LogWriter& m_log;
    std::string m_campaign;
    const util::Clock& m_clock;
    account::ResultBatch m_batch;
    // This run's delivered sends whose answers m_batch does not hold (the mark records them), with
    // when each was reserved: one the mark cannot pass yet (an earlier reservation is in flight)
    // is confirmed in the batch all the same, for the log's fold mark says the ledger holds it.
    std::vector<std::pair<account::Send, util::TimePoint>> m_delivered;
    std::int64_t m_run = 0;  // the ledger's id of this run; 0: not started (no reservation yet)
    // This run's reservations whose answer is not yet in m_batch (in flight, or waiting at the
    // pace), by row: when each was made (as stored) and for which request.
    struct Reserved {
        util::TimePoint at;
        std::int64_t attempt = 0;
    };
    std::unordered_map<std::int64_t, Reserved> m_reserved;
    std::optional<util::TimePoint> m_latest;  // the latest reservation's time
    util::TimePoint m_floor{};                // the last mark recorded: no reservation is made before it
    // The reservations withdrawn and not yet given back (recorded with m_batch), by row.
    std::unordered_map<std::int64_t, account::Send> m_withdrawn;
    bool m_pending = false;  // m_batch or m_withdrawn holds something
    bool m_logged = true;    // the log holds every answer in m_batch (its last flush worked)
    std::chrono::steady_clock::time_point m_recorded_at{};
};

// What one logged or reported answer tells the ledger, added to `batch`: `sent`, whether the
// answer says the message never reached the number (`not_delivered`), Meta's `code`, and whether
// it holds the number for the marketing limit (`marketing_limited`: the cause, not the code
// 131049, which holds only text, image and MARKETING template messages).
struct AnswerFacts {
    bool sent = false;
    bool not_delivered = false;
    std::optional<long long> code;
    util::TimePoint at;
    bool marketing_limited = false;
    // The answer to a reservation of the running run (AccountKeeper): delivered, it writes
    // nothing (the run's mark makes the reservation a send); neither delivered nor released (no
    // answer that says, or a retry to come), the reservation is disowned (ResultBatch::ambiguous).
    bool own_reservation = false;
};
void add_answer(account::ResultBatch& batch, const account::Send& send, const AnswerFacts& facts);

// Folds into the ledger the results of the campaign's log at `path` after the ledger's fold
// mark for `campaign` (what a crash between the log and the ledger left out), in batches,
// moving the mark to `size` (the log's size now) with the last. Returns how many results it
// folded in.
util::Result<std::int64_t> fold_log(AccountBook& book, const std::string& path, std::int64_t size,
                                    const std::string& campaign, util::TimePoint now);

}  // namespace runner
