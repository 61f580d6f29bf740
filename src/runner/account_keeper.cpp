#include "runner/account_keeper.hpp"

#include <fmt/format.h>

#include "account/rule.hpp"
#include "results/log_reader.hpp"
#include "service/messages.hpp"
#include "util/time.hpp"

namespace runner {

namespace {

constexpr long long k_opted_out = 131050;
constexpr long long k_undeliverable = 131026;
constexpr long long k_marketing_limit = 131049;
constexpr std::size_t k_fold_batch = 10'000;

// Meta's code of a logged answer: its error_code, or the one its cause stands for.
std::optional<long long> code_of(const results::ResultRecord& result) {
    if (result.error_code) {
        return *result.error_code;
    }
    switch (result.cause) {
    case results::Cause::opted_out: return k_opted_out;
    case results::Cause::undeliverable: return k_undeliverable;
    default: return std::nullopt;
    }
}

// Whether a 131049 answer to the logged `result` holds its number (service::marketing_hold_of):
// a text or image message, or a template whose category is MARKETING or not known.
bool marketing_hold_of(const results::ResultRecord& result) {
    const auto kind = result.template_name ? service::MessageKind::template_message : service::MessageKind::text;
    return service::marketing_hold_of(kind, result.category.value_or("")) == service::MarketingHold::applies;
}

std::size_t size_of(const account::ResultBatch& b) {
    return b.delivered.size() + b.not_delivered.size() + b.undeliverable.size() + b.marketing_limited.size() +
           b.suppress.size();
}

}  // namespace

void add_answer(account::ResultBatch& batch, const account::Send& send, const AnswerFacts& facts) {
    // A sent answer (it named its message id) keeps what its code says of the number all the
    // same: suppressed (131050), counted (131026), held (131049).
    if (facts.sent) {
        if (!facts.own_reservation) {
            batch.delivered.push_back(send);
            batch.delivered.back().at = facts.at;
        }
    } else if (facts.not_delivered) {
        batch.not_delivered.push_back(send);
    } else if (facts.own_reservation) {
        batch.ambiguous.push_back(send);
    }
    if (facts.marketing_limited) {
        batch.marketing_limited.push_back(account::Answer{send.wa_id, facts.at});
    }
    if (!facts.code) {
        return;
    }
    switch (*facts.code) {
    case k_opted_out:
        batch.suppress.push_back(account::Suppression{send.wa_id, "opted_out", facts.at, batch.source});
        break;
    case k_undeliverable: batch.undeliverable.push_back(account::Answer{send.wa_id, facts.at}); break;
    default: break;
    }
}

void AccountKeeper::clear() {
    m_batch = account::ResultBatch{};
    m_batch.undeliverable_after = m_book.undeliverable_after();
    m_batch.source = m_book.source();
    m_delivered.clear();
    m_pending = false;
}

util::TimePoint AccountKeeper::answered_before() const {
    if (m_reserved.empty()) {
        return m_latest ? std::max(m_floor, *m_latest + std::chrono::milliseconds(1)) : m_floor;
    }
    util::TimePoint earliest = m_reserved.begin()->second.at;
    for (const auto& [row, reserved] : m_reserved) {
        earliest = std::min(earliest, reserved.at);
    }
    return earliest;
}

util::Result<void> AccountKeeper::admit(std::span<const queue::Job* const> jobs, queue::Instant at,
                                        std::vector<queue::Admission>& out) {
    using Admission = queue::Admission;
    if (m_run == 0) {
        TRY_ASSIGN(m_run, m_book.ledger().begin_run(m_campaign, at.wall));
    }
    account::ReservationRequest request;
    request.limits = m_book.limits();
    // Never before the run's last mark (the clock stepped back, or the same millisecond): the
    // mark would make the reservation a send before its request left.
    request.now = std::max(at.wall, m_floor);
    request.run = m_run;
    request.marketing_holds = m_book.marketing_holds();
    for (const auto* job : jobs) {
        account::Send& send = request.sends.emplace_back(send_of(*job, job->requests + 1));
        // The row's last request as this run knows it, or the reservation this run withdrew and
        // has not yet given back: the ledger still holds it, for this run alone.
        const auto withdrawn = m_withdrawn.find(job->row);
        send.replaces =
            withdrawn != m_withdrawn.end() && withdrawn->second.attempt == send.attempt ? send.attempt : job->requests;
    }
    TRY_ASSIGN(const auto answers, m_book.ledger().reserve(request));
    const util::TimePoint reserved_at = account::rule::stored(request.now);  // as the ledger holds it
    out.assign(answers.size(), Admission::Now{.use_by = at.steady + k_reservation_use_by});
    for (std::size_t i = 0; i < answers.size(); ++i) {
        const auto& a = answers[i];
        Admission& answer = out[i];
        const account::Send& send = request.sends[i];
        if (a.granted()) {
            if (send.replaces == send.attempt) {
                m_withdrawn.erase(send.row);  // taken back: giving it back now would release it
            }
            m_reserved.insert_or_assign(send.row, Reserved{reserved_at, send.attempt});
            m_latest = std::max(m_latest.value_or(reserved_at), reserved_at);
        }
        switch (a.refusal) {
        case account::Refusal::none: break;
        case account::Refusal::row_sent:
            answer = Admission::Never{.refusal = Admission::Refusal::ledger_sent, .attempt = a.attempt};
            break;
        case account::Refusal::row_reserved:
            answer = Admission::Never{
                .refusal = Admission::Refusal::ledger_reserved,
                .reason = fmt::format(
                    "the account's ledger holds this row reserved for request {} of this campaign, not one this "
                    "run knows of: another run of the campaign (a copy of its result log sent from at the same "
                    "time) holds it and its request may have left; sent again only with --resend-unknown",
                    a.attempt),
                .attempt = a.attempt};
            break;
        case account::Refusal::frequency_cap:
            answer = Admission::Never{.refusal = Admission::Refusal::frequency_cap,
                                      .until = a.room_at,
                                      .reason = fmt::format("another campaign of the account messaged this number "
                                                            "meanwhile (rate.per_recipient); next possible at {}",
                                                            a.room_at ? util::format_timestamp(*a.room_at) : "?")};
            break;
        case account::Refusal::suppressed: {
            // Put on the list after the row was screened: by another runner's 131050, `suppress
            // add`, or this run's own answer.
            auto entries = m_book.ledger().suppressed({request.sends[i].wa_id});
            answer = Admission::Never{.refusal = Admission::Refusal::suppressed,
                                      .reason = entries && !entries->empty() ? suppressed_why(entries->front())
                                                                             : "on the account's suppression list"};
            break;
        }
        case account::Refusal::held:
            answer = Admission::Never{.refusal = Admission::Refusal::marketing_limit,
                                      .until = a.room_at,
                                      .reason = held_why(a.room_at.value_or(request.now))};
            break;
        case account::Refusal::per_day: {
            Admission::Later wait = queue::later_until(at, a.room_at, k_ask_again);
            wait.reason = fmt::format("the account's daily cap is reached (rate.per_day: {} numbers in 24 h)",
                                      request.limits.per_day.value_or(0));
            wait.notice = true;
            answer = std::move(wait);
            break;
        }
        }
    }
    return {};
}

util::Result<void> AccountKeeper::on_result(const queue::Job& job, queue::JobStatus status,
                                            const service::Outcome& outcome, std::chrono::milliseconds latency) {
    TRY(m_inner.on_result(job, status, outcome, latency));
    AnswerFacts facts;
    facts.sent = status == queue::JobStatus::sent;
    // An answer that says the request failed releases its slot; none (a timeout, a dropped
    // connection) leaves it counting: the message may have been delivered. A certificate that
    // failed verification means the request never left; a wrong endpoint, that it was not acted on.
    facts.not_delivered =
        status == queue::JobStatus::unsent ||
        (status == queue::JobStatus::failed &&
         ((outcome.http_status.has_value() && !outcome.ambiguous) || outcome.cause == service::Cause::tls));
    facts.code = outcome.error_code;
    facts.at = m_clock.wall_now();
    // A sent answer's 131049 holds where its failure would have: its code_cause says so.
    facts.marketing_limited =
        (status == queue::JobStatus::failed && outcome.cause == service::Cause::marketing_limit) ||
        (status == queue::JobStatus::sent && outcome.code_cause == service::Cause::marketing_limit);
    const account::Send send = send_of(job, job.requests);
    const auto reserved = m_reserved.find(job.row);
    facts.own_reservation = reserved != m_reserved.end() && reserved->second.attempt == job.requests;
    if (facts.own_reservation) {
        if (facts.sent) {
            m_delivered.emplace_back(send, reserved->second.at).first.at = facts.at;
        }
        m_reserved.erase(reserved);
    }
    add_answer(m_batch, send, facts);
    m_pending = m_pending || size_of(m_batch) > 0 || facts.own_reservation;
    return {};
}

void AccountKeeper::withdraw(std::span<const queue::Job* const> jobs) {
    for (const auto* job : jobs) {
        m_withdrawn.insert_or_assign(job->row, send_of(*job, job->requests + 1));
        m_reserved.erase(job->row);
    }
    m_pending = m_pending || !jobs.empty();
}

util::Result<void> AccountKeeper::flush() {
    m_logged = false;
    TRY(m_inner.flush());
    m_logged = true;
    // An opt-out, a 131026 or a 131049 hold is recorded at once: other runners of the account
    // check the list when they reserve, and must not wait out k_record_every to see it.
    const bool urgent =
        !m_batch.suppress.empty() || !m_batch.undeliverable.empty() || !m_batch.marketing_limited.empty();
    if (!m_pending || (!urgent && size_of(m_batch) + m_delivered.size() < k_record_batch &&
                       m_clock.steady_now() - m_recorded_at < k_record_every)) {
        return {};
    }
    return record_pending();
}

util::Result<void> AccountKeeper::record_pending() {
    if (!m_pending || !m_logged) {
        return {};
    }
    for (auto& [row, send] : m_withdrawn) {
        m_batch.not_delivered.push_back(std::move(send));
    }
    m_withdrawn.clear();
    // The log holds every line of this batch now: the mark says so, in the same transaction.
    m_batch.fold = account::FoldMark{m_campaign, static_cast<std::uint64_t>(m_log.size())};
    if (m_run != 0) {
        m_batch.answered = account::RunMark{m_run, answered_before()};
        for (auto& [send, reserved_at] : m_delivered) {
            if (reserved_at >= m_batch.answered->before) {
                m_batch.delivered.push_back(std::move(send));
            }
        }
        // Moved into the batch or passed by its mark: a batch tried again after a failure holds
        // each once.
        m_delivered.clear();
    }
    m_batch.now = m_clock.wall_now();
    auto recorded = m_book.ledger().record(m_batch);
    if (!recorded) {
        return util::Error{recorded.error().message, util::ErrorKind::ledger};
    }
    m_recorded_at = m_clock.steady_now();
    if (m_batch.answered) {
        m_floor = m_batch.answered->before;
    }
    clear();
    return {};
}

util::Result<std::int64_t> fold_log(AccountBook& book, const std::string& path, std::int64_t size,
                                    const std::string& campaign, util::TimePoint now) {
    TRY_ASSIGN(const std::uint64_t mark, book.ledger().folded(campaign));
    // A mark past the end: the log was replaced by an older copy. Read it all (sends are
    // keyed by row, so they count once).
    const auto start = mark <= static_cast<std::uint64_t>(size) ? static_cast<std::int64_t>(mark) : 0;
    if (start == size) {
        return std::int64_t{0};
    }
    TRY_ASSIGN(auto reader, results::LogReader::open_at(path, start));
    account::ResultBatch batch;
    auto fresh = [&] {
        batch = account::ResultBatch{};
        batch.undeliverable_after = book.undeliverable_after();
        batch.source = book.source();
        batch.now = now;
    };
    fresh();
    std::int64_t folded = 0;
    results::Record record;
    for (;;) {
        TRY_ASSIGN(const bool more, reader.next(record));
        if (!more) {
            break;
        }
        if (const auto* unsent = std::get_if<results::UnsentRecord>(&record)) {
            // Not acted on: its reservation is given back.
            add_answer(batch, account::Send{unsent->wa_id, campaign, unsent->row, std::nullopt, unsent->attempt},
                       AnswerFacts{false, true, std::nullopt, unsent->at});
            ++folded;
            continue;
        }
        const auto* result = std::get_if<results::ResultRecord>(&record);
        if (result == nullptr ||
            (result->status != results::Status::sent && result->status != results::Status::failed)) {
            continue;
        }
        // Only an answer of the service says something of the number (a row held back by the
        // ledger itself carries a cause, and no http_status).
        const bool answered = result->http_status.has_value();
        const bool failed = result->status == results::Status::failed;
        const bool sent = result->status == results::Status::sent;
        const auto code = answered ? code_of(*result) : std::nullopt;
        // A sent record carries no cause: its 131049 holds where the live answer's did, by the
        // kind of message and the template's category the record keeps.
        const bool held = (failed && answered && result->cause == results::Cause::marketing_limit) ||
                          (sent && code == k_marketing_limit && marketing_hold_of(*result));
        AnswerFacts facts{sent, failed && answered, code, result->at, held};
        add_answer(batch, account::Send{result->wa_id, campaign, result->row, std::nullopt, result->attempts}, facts);
        ++folded;
        if (size_of(batch) >= k_fold_batch) {
            TRY(book.ledger().record(batch));
            fresh();
        }
    }
    batch.fold = account::FoldMark{campaign, static_cast<std::uint64_t>(size)};
    TRY(book.ledger().record(batch));
    return folded;
}

}  // namespace runner
