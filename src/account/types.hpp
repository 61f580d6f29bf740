#pragma once
// The plain values the ledger takes and returns (ledger.hpp has the interface).

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "util/clock.hpp"

namespace account {

// One number on the account's suppression list.
struct Suppression {
    std::string wa_id;
    std::string reason;  // listed, opted_out, undeliverable, manual, or a person's text
    util::TimePoint since;
    std::string source;  // file:NAME, campaign:NAME, manual
};

// One message to one number: a campaign's row. `campaign` is a key stable across resumes of one
// campaign (its name and the log's started_at, say); a row has one send at a time.
struct Send {
    std::string wa_id;
    std::string campaign;
    std::int64_t row = 0;
    // When it was sent, for a delivered send the ledger missed (a log being folded in);
    // nullopt: the batch's `now`.
    std::optional<util::TimePoint> at;
    // The row's request it stands for: the log's `attempt` (1 for the first request to the row,
    // over all runs); 0 when not known, which matches any. A failure releases only the
    // reservation of its own request (docs/ledger.md "Each request its own reservation").
    std::int64_t attempt = 0;
    // Reserving: the request this one takes over from, whose reservation of the row the ledger
    // may still hold — the row's last request as this run knows it (the log's, or one this run
    // withdrew and asks for again); 0: none. A row the ledger holds reserved for any other
    // request is another run's (docs/ledger.md "One row, one holder").
    std::int64_t replaces = 0;
};

// `rate.per_recipient`: at most `max` sends to one number within `per`.
struct PerRecipient {
    std::int64_t max = 0;
    std::chrono::milliseconds per{0};
};

// The account's limits as one campaign file sets them; a send is counted whether or not limits
// are set, so that campaigns with limits see the sends of those without.
struct Limits {
    std::optional<PerRecipient> per_recipient;
    std::optional<std::int64_t> per_day;  // unique numbers messaged in the trailing 24 h
};

enum class Apply { commit, preview };

// Whether 131049 holds keep the batch's messages back: they do for text and image messages and
// MARKETING templates (or a template whose category is not known), not for other templates.
enum class MarketingHolds { apply, ignored };

struct ReservationRequest {
    std::vector<Send> sends;
    Limits limits;
    util::TimePoint now;
    Apply apply = Apply::commit;
    MarketingHolds marketing_holds = MarketingHolds::apply;
    // The run the grants are made for (Ledger::begin_run): each reservation is that run's until
    // its answer, and a send once the run's mark passes it (ResultBatch::answered); 0: no run's.
    std::int64_t run = 0;
};

// Why a send was refused: the number is on the suppression list (never), held by a 131049 answer
// (until `room_at`; only when the request's marketing holds apply), at `rate.per_recipient` or
// at the account's `rate.per_day`; or its row is already the campaign's in the ledger: sent
// (row_sent), or reserved for a request this one does not take over (row_reserved: another run
// of the campaign holds it, a copy of its log being sent from at the same time).
enum class Refusal { none, frequency_cap, per_day, suppressed, held, row_sent, row_reserved };

// The answer for one send: granted (refusal none) or refused, and then from when the same send
// would be granted (`room_at`: when the oldest send in the way ages out of its window, or the
// hold ends; nullopt for a suppressed number).
struct Reservation {
    Refusal refusal = Refusal::none;
    std::optional<util::TimePoint> room_at;
    std::int64_t attempt = 0;  // row_sent, row_reserved: the request the ledger's row stands for

    bool granted() const { return refusal == Refusal::none; }
};

// A number's answer at a time: a 131026 or 131049 answer.
struct Answer {
    std::string wa_id;
    util::TimePoint at;
};

// "The campaign's log has been folded in up to `value`" (a byte offset, say), written in the
// same transaction as the batch that the log's lines up to there gave.
struct FoldMark {
    std::string campaign;
    std::uint64_t value = 0;
};

// "Run `run` has recorded the answer of every reservation it made before `before`": its
// reservations made before then that are still `reserved` are sends, written once (docs/ledger.md
// "A send written once"). Written in the same transaction as the batch that holds the last of
// those answers.
struct RunMark {
    std::int64_t run = 0;
    util::TimePoint before;
};

// What one batch of answers tells the ledger.
struct ResultBatch {
    // Sent: confirms the reservation (records it when missing). A run's own delivered sends are
    // not here: its mark (`answered`) makes their reservations sends without a write.
    std::vector<Send> delivered;
    std::vector<Send> not_delivered;  // the answer says it never reached the number: released
    // No answer that says (a timeout, a dropped connection): the reservation stays, and its run
    // no longer answers for it, so no mark of the run makes it a send (recovered unknown).
    std::vector<Send> ambiguous;
    std::vector<Answer> undeliverable;      // 131026: counted; suppressed at `undeliverable_after`
    std::vector<Answer> marketing_limited;  // 131049: held 24 h from the answer
    std::vector<Suppression> suppress;      // 131050 (reason opted_out) and the like
    std::optional<FoldMark> fold;
    std::optional<RunMark> answered;
    std::int64_t undeliverable_after = 2;
    std::string source;  // the source of the suppressions it makes: campaign:NAME
    util::TimePoint now;
};

struct Recorded {
    std::vector<std::string> suppressed;  // numbers this batch put on the suppression list
};

// Where a send stands in the ledger: reserved before its request left (the answer not yet
// recorded, or never given, or not telling), or sent (an answer said so: written `sent`, or
// reserved by a run whose mark passed it).
enum class SendState { reserved, sent };

// One send of a campaign as the ledger holds it: what trust in a shortened or restored result
// log is checked against (Ledger::campaign_sends).
struct CampaignSend {
    std::string wa_id;
    std::int64_t row = 0;
    SendState state = SendState::reserved;
    util::TimePoint at;
    std::int64_t attempt = 0;  // the request it stands for (Send::attempt); 0: not known
};

// The latest send the account made to a number, by any campaign (reserved or sent): how recently
// the account messaged it (Ledger::last_messaged).
struct LastMessaged {
    std::string wa_id;
    util::TimePoint at;
};

// A number held by a 131049 answer until `until`.
struct Hold {
    std::string wa_id;
    util::TimePoint until;
};

}  // namespace account
