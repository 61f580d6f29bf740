#pragma once
// The ledger's one rule (docs/ledger.md "One rule, two thin backends"): what a batch of
// reservations, a batch of answers and a prune do, decided in plain C++ over the facts a backend
// loaded for the batch's numbers under the account's lock. A backend reads those facts and writes
// what the decision says, in one transaction; it decides nothing itself, so SQLite and PostgreSQL
// cannot drift apart, and the rule is tested without a database (tests/unit/test_account_rule.cpp).

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "account/types.hpp"

namespace account::rule {

// Times are kept as milliseconds since the Unix epoch (UTC), in both backends.
inline std::int64_t to_millis(util::TimePoint t) {
    return std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count();
}
inline util::TimePoint from_millis(std::int64_t ms) {
    return util::TimePoint(std::chrono::duration_cast<util::TimePoint::duration>(std::chrono::milliseconds(ms)));
}
// `t` as the ledger stores it: to the millisecond.
inline util::TimePoint stored(util::TimePoint t) {
    return from_millis(to_millis(t));
}

inline constexpr std::chrono::hours k_day{24};

// One send the ledger holds of a number.
struct StoredSend {
    // The campaign's key; "" for a campaign the batch does not name (the SQLite ledger knows
    // campaigns by an id, and looks up only the batch's). A view: the backend keeps what it
    // points into (its answer's rows, its names) alive while the rule decides, the rule its
    // batch's.
    std::string_view campaign;
    std::int64_t row = 0;
    util::TimePoint at;
    SendState state = SendState::reserved;
    std::int64_t attempt = 0;  // the request it stands for (Send::attempt); 0: not known
};

// Where a send stands, from what the ledger stores of it: `state` ('sent', 'reserved') at `at`
// (milliseconds), reserved by a run that has recorded the answer of every reservation it made
// before `answered_before` (milliseconds; 0: no run answers for it, or the run has recorded none).
// A reservation its run's mark passed is a send: a delivered answer writes nothing
// (docs/ledger.md "A send written once").
inline SendState state_of(std::string_view state, std::int64_t at, std::int64_t answered_before) {
    return state == "sent" || (state == "reserved" && at < answered_before) ? SendState::sent : SendState::reserved;
}

// Whether `stored_send`, a row's reservation, stands for the request `attempt` names: the same
// attempt, or either not known.
inline bool same_request(const StoredSend& stored_send, std::int64_t attempt) {
    return stored_send.attempt == 0 || attempt == 0 || stored_send.attempt == attempt;
}

// What the ledger holds of one number.
struct NumberFacts {
    bool suppressed = false;
    std::optional<util::TimePoint> hold_until;  // its 131049 hold's end, ended or not
    std::int64_t undeliverable = 0;             // its 131026 answers so far
    std::vector<StoredSend> sends;              // every send of the number not yet pruned
};

// The facts of every number a batch names (its sends', its answers', its suppressions'), by
// number: views, into the batch or the backend's answer, alive while the rule decides.
using Numbers = std::unordered_map<std::string_view, NumberFacts>;

// The account's running count of the numbers with a send after `horizon` (docs/ledger.md "The
// day's count").
struct DayCount {
    util::TimePoint horizon;
    std::int64_t numbers = 0;
    bool operator==(const DayCount&) const = default;
};

// Where the count moves to: the horizon of the day that ends at `now`.
inline util::TimePoint day_horizon(util::TimePoint now) {
    return stored(now) - k_day;
}

// The count moved to `horizon`. With a stored count, `crossed` is the number of numbers whose
// latest send lies between the two horizons (after the lower, at or before the higher): they
// leave the window when it moves forward and come back when it moves back. Without one,
// `crossed` is every number with a send after `horizon` (the account's first count).
DayCount moved(const std::optional<DayCount>& stored, util::TimePoint horizon, std::int64_t crossed);

// Whether `wa_id` counts in `day`: it has a send after the horizon.
bool counts(const NumberFacts& facts, util::TimePoint horizon);

// --- Reserving ----------------------------------------------------------------------------------

// What a backend loads for Ledger::reserve, under the account's lock (a preview without it).
struct ReserveFacts {
    Numbers numbers;                     // every number of the request's sends
    std::optional<DayCount> stored_day;  // the account's count as stored; none: never counted
    // When the request caps the day (per_day): the `crossed` of moved(stored_day,
    // day_horizon(now), crossed). Not read otherwise.
    std::int64_t day_crossed = 0;
};

// What of the batch's numbers decide() reads for `request` with the account's count `stored_day`:
// every send of the numbers only when a limit or the day's count looks at them, their holds only
// when holds apply. Each send's own row (by its key) is always read: decide() never grants a row
// the campaign holds for another request. A backend may leave out what is not needed.
struct ReserveNeeds {
    bool sends = true;  // false: each send's own row only
    bool holds = true;
};
ReserveNeeds needs(const ReservationRequest& request, const std::optional<DayCount>& stored_day);

struct ReserveDecision {
    // One per send, in the request's order. A per_day refusal waiting for a stored number to age
    // out has its room_at set by settle_day_room().
    std::vector<Reservation> answers;
    // The granted sends (indexes into the request), every one, whose row is written as reserved at
    // `now` for the send's attempt: a new row, or a reservation taken over (its time and attempt
    // move).
    std::vector<std::size_t> written;
    // The count to store, when it changed.
    std::optional<DayCount> day;
    // A per_day refusal waits for the numbers messaged since day_horizon(now) to drop below the
    // cap: when the number that is `day_room_offset`th, oldest first by its latest send (ties by
    // number), ages out. The backend reads that send's time and calls settle_day_room().
    std::optional<std::int64_t> day_room_offset;
};

// Decides every send of `request`, in order (Ledger::reserve): a row the campaign holds never —
// sent, or reserved for a request the send does not take over (Send::replaces): another run's
// (docs/ledger.md "One row, one holder"); a suppressed number never; a
// number held by a 131049 answer (when the request's holds apply) until the hold ends; a number
// at rate.per_recipient until its oldest send in the way ages out (a row's own reservation does
// not count against it; its send an answer confirmed does); a number new to the day while the
// day is at rate.per_day until a number ages out. The batch's own grants count as sends.
ReserveDecision decide(const ReservationRequest& request, const ReserveFacts& facts);

// Sets the room_at of the per_day refusals of `decision`: `oldest` is the time of the send
// day_room_offset asked for (none when the ledger has no such send).
void settle_day_room(ReserveDecision& decision, util::TimePoint now, std::optional<util::TimePoint> oldest);

// --- Recording answers --------------------------------------------------------------------------

// What a backend loads for Ledger::record, under the account's lock.
struct RecordFacts {
    // Every number of the batch's sends, answers and suppressions. A number's `sends` hold at
    // least the batch's own rows of it; with a stored day, every send of a number whose row the
    // batch adds or releases (record_needs_window() says which), for the day's count.
    Numbers numbers;
    std::optional<DayCount> stored_day;
    // False: the batch's own rows were not read — no count is kept (record_needs_rows()), so
    // nothing but the rows themselves depends on them. A delivered send is then marked sent
    // (added at its time when the ledger does not hold it), and a not-delivered one released
    // only while still reserved for its request, by the writes themselves.
    bool rows_read = true;
};

// Whether decide() needs the batch's own rows read: only while the account keeps a day count.
inline bool record_needs_rows(const std::optional<DayCount>& stored_day) {
    return stored_day.has_value();
}

// Whether the batch's answer for `send`, whose own row the ledger holds as `own` (none: not at
// all), needs every send of its number: with a count kept, a row added or released may move it.
bool record_needs_window(const std::optional<DayCount>& stored_day, bool delivered,
                         const std::optional<SendState>& own);

// A 131026 count to write.
struct UndeliverableCount {
    std::string wa_id;
    std::int64_t answers = 0;
    util::TimePoint last_at;
};

struct RecordDecision {
    std::vector<const Send*> confirmed;  // reserved rows now sent: their state changes, not their time
    // Delivered sends the ledger did not hold (a log being folded in): written as sent at `at`.
    std::vector<std::pair<const Send*, util::TimePoint>> added;
    // Rows not read (RecordFacts::rows_read false): sent, added at `at` when missing; a row
    // already held keeps its time.
    std::vector<std::pair<const Send*, util::TimePoint>> marked;
    // Reservations the answer says never reached the number: each send's row, while reserved for
    // its request (same_request); a confirmed row is never among them (the write checks both).
    std::vector<const Send*> released;
    // Reservations whose answer said nothing either way (ResultBatch::ambiguous): each send's row,
    // while reserved for its request, stays reserved and is no longer its run's (no mark of the
    // run makes it a send).
    std::vector<const Send*> disowned;
    std::vector<UndeliverableCount> undeliverable;
    std::vector<Suppression> suppressed;  // new entries, in order: a number's first entry stands
    std::vector<Hold> holds;              // each number's hold end, the later of the stored and the new
    std::optional<DayCount> day;          // the count to store, when it changed
};

// Decides what `batch` changes (Ledger::record): a delivered send confirms its reservation, or
// is added at its own time; a not-delivered one releases its row's reservation when that stands
// for its request (an older log's failure never releases a later request's reservation; a send
// once confirmed is never given back); the `undeliverable_after`th 131026 answer suppresses its number; a 131049
// answer holds the number 24 h. The day's count follows the numbers that come in or go out.
RecordDecision decide(const ResultBatch& batch, RecordFacts facts);

// --- Pruning ------------------------------------------------------------------------------------

// Before the sends made before `before` are deleted: the horizon the count must first move to
// (so that they count for nothing), when it is behind; none otherwise.
std::optional<util::TimePoint> prune_horizon(const std::optional<DayCount>& stored_day, util::TimePoint before);

// --- Trust in a result log (trust round four) ---------------------------------------------------

// What the ledger holds of one row of a campaign, for the recovery of a row its log forgot.
struct RowRecord {
    bool sent = false;  // the number sent by the campaign: under this row, or any row with AnyRow::yes
    // A reservation held: this row's, or with AnyRow::yes another row's of its number. Its request
    // left, or was about to, and no answer said it failed.
    bool reserved = false;
    std::int64_t attempt = 0;  // the request this row's own reservation stands for; 0: not known
};
enum class AnyRow { no, yes };

// The record of each of `sends` (one campaign's rows) among `held`, the campaign's sends of
// their numbers (Ledger::campaign_sends), in order.
std::vector<RowRecord> row_records(const std::vector<Send>& sends, const std::vector<CampaignSend>& held,
                                   AnyRow any_row);

}  // namespace account::rule
