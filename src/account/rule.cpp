#include "account/rule.hpp"

#include <algorithm>
#include <string_view>
#include <unordered_set>

namespace account::rule {

namespace {

const NumberFacts k_unknown{};

const NumberFacts& facts_of(const Numbers& numbers, const std::string& wa_id) {
    const auto found = numbers.find(wa_id);
    return found == numbers.end() ? k_unknown : found->second;
}

bool own_row(const StoredSend& stored_send, const Send& send) {
    return stored_send.row == send.row && stored_send.campaign == send.campaign;
}

// When `send`'s number may be messaged again under `limit`, or none when it may be now:
// `granted` sends of it were already granted in this batch.
std::optional<util::TimePoint> frequency_room(const Send& send, const NumberFacts& number, const PerRecipient& limit,
                                              util::TimePoint now, std::int64_t granted) {
    const util::TimePoint since = now - limit.per;
    // This row's own reservation does not count against it; its send an answer confirmed does,
    // as every other send of the number does.
    std::vector<util::TimePoint> in_window;
    for (const auto& stored_send : number.sends) {
        if (stored_send.at > since && !(own_row(stored_send, send) && stored_send.state == SendState::reserved)) {
            in_window.push_back(stored_send.at);
        }
    }
    const auto stored_count = static_cast<std::int64_t>(in_window.size());
    const std::int64_t total = stored_count + granted;
    if (total < limit.max) {
        return std::nullopt;
    }
    // Room opens when the (total - max + 1)th oldest send ages out of the window.
    const std::int64_t offset = total - std::max<std::int64_t>(limit.max, 0);
    if (offset >= stored_count) {
        return now + limit.per;
    }
    std::nth_element(in_window.begin(), in_window.begin() + offset, in_window.end());
    return in_window[static_cast<std::size_t>(offset)] + limit.per;
}

// Whether the ledger's row of `send`, `own`, is this request's to take: a reservation of the
// request `send` takes over (Send::replaces; one of a request not known, for any it names).
bool takes_over(const StoredSend& own, const Send& send) {
    return own.state == SendState::reserved && send.replaces != 0 && (own.attempt == 0 || own.attempt == send.replaces);
}

// The batch's decisions so far: its grants count as sends.
class Reserving {
public:
    Reserving(const ReservationRequest& request, const ReserveFacts& facts, ReserveDecision& out)
        : m_request(request), m_facts(facts), m_now(stored(request.now)), m_out(out), m_day(facts.stored_day) {
        if (request.limits.per_day) {
            m_day = moved(facts.stored_day, day_horizon(request.now), facts.day_crossed);
        }
        m_day_before = m_day ? m_day->numbers : 0;
    }

    Reservation decide(std::size_t index) {
        const Send& send = m_request.sends[index];
        const NumberFacts& number = facts_of(m_facts.numbers, send.wa_id);
        // One row, one holder: a row the campaign sent, or reserved for a request this one does
        // not take over (another run's: a copy of the log sent from at the same time), is never
        // granted again, whatever the limits; nor one this batch granted already.
        const auto own = std::find_if(number.sends.begin(), number.sends.end(),
                                      [&](const StoredSend& stored_send) { return own_row(stored_send, send); });
        if (own != number.sends.end() && !takes_over(*own, send)) {
            return Reservation{own->state == SendState::sent ? Refusal::row_sent : Refusal::row_reserved, std::nullopt,
                               own->attempt};
        }
        if (m_granted.contains(send.wa_id) && granted_row(send)) {
            return Reservation{Refusal::row_reserved, std::nullopt, send.attempt};
        }
        if (number.suppressed) {
            return Reservation{Refusal::suppressed, std::nullopt};
        }
        if (m_request.marketing_holds == MarketingHolds::apply && number.hold_until && *number.hold_until > m_now) {
            return Reservation{Refusal::held, number.hold_until};
        }
        if (const auto& limit = m_request.limits.per_recipient) {
            const auto granted = m_granted.find(send.wa_id);
            const std::int64_t before = granted == m_granted.end() ? 0 : granted->second;
            if (auto room = frequency_room(send, number, *limit, m_now, before)) {
                return Reservation{Refusal::frequency_cap, room};
            }
        }
        // A number with no send in the window before this batch adds to the day's count, kept
        // whether or not this request caps the day.
        const bool new_today = m_day && !m_today.contains(send.wa_id) && !counts(number, m_day->horizon);
        if (const auto& cap = m_request.limits.per_day) {
            const std::int64_t numbers = m_day_before + static_cast<std::int64_t>(m_new_numbers.size());
            if (new_today && numbers >= *cap) {
                return day_refusal(numbers, *cap);
            }
        }
        if (new_today) {
            m_new_numbers.insert(send.wa_id);
        }
        m_today.insert(send.wa_id);
        ++m_granted[send.wa_id];
        m_granted_rows.push_back(&send);
        m_out.written.push_back(index);
        if (m_new_numbers.contains(send.wa_id)) {
            m_brought_in.insert(send.wa_id);
        }
        return Reservation{Refusal::none, std::nullopt};
    }

    // The count to store, when it changed: a row written at `now` brings its number in.
    std::optional<DayCount> day() const {
        if (!m_day) {
            return std::nullopt;
        }
        DayCount after = *m_day;
        after.numbers += static_cast<std::int64_t>(m_brought_in.size());
        if (m_facts.stored_day == after) {
            return std::nullopt;
        }
        return after;
    }

private:
    // Whether this batch granted `send`'s row already (asked only of a number it granted: rare).
    bool granted_row(const Send& send) const {
        return std::any_of(m_granted_rows.begin(), m_granted_rows.end(), [&](const Send* granted) {
            return granted->row == send.row && granted->wa_id == send.wa_id && granted->campaign == send.campaign;
        });
    }

    // When the count of numbers drops below the cap: when the (numbers - cap + 1)th number, by
    // its latest send, ages out. The same for every refusal of a batch (refused sends add no
    // number): one read, by the backend.
    Reservation day_refusal(std::int64_t numbers, std::int64_t cap) {
        const std::int64_t offset = numbers - std::max<std::int64_t>(cap, 0);
        if (offset >= m_day_before) {
            return Reservation{Refusal::per_day, m_now + k_day};
        }
        m_out.day_room_offset = offset;
        return Reservation{Refusal::per_day, std::nullopt};
    }

    const ReservationRequest& m_request;
    const ReserveFacts& m_facts;
    util::TimePoint m_now;
    ReserveDecision& m_out;
    std::optional<DayCount> m_day;
    std::int64_t m_day_before = 0;  // numbers messaged in the window, before this batch
    std::unordered_set<std::string> m_today;
    std::unordered_set<std::string> m_new_numbers;  // the numbers this batch adds to them
    std::unordered_set<std::string> m_brought_in;   // those of them with a row written at now
    std::unordered_map<std::string, std::int64_t> m_granted;
    std::vector<const Send*> m_granted_rows;
};

}  // namespace

DayCount moved(const std::optional<DayCount>& stored_day, util::TimePoint horizon, std::int64_t crossed) {
    if (!stored_day) {
        return DayCount{horizon, crossed};
    }
    if (horizon == stored_day->horizon) {
        return *stored_day;
    }
    return DayCount{horizon, stored_day->numbers + (horizon > stored_day->horizon ? -crossed : crossed)};
}

bool counts(const NumberFacts& facts, util::TimePoint horizon) {
    return std::any_of(facts.sends.begin(), facts.sends.end(),
                       [&](const StoredSend& stored_send) { return stored_send.at > horizon; });
}

ReserveNeeds needs(const ReservationRequest& request, const std::optional<DayCount>& stored_day) {
    const bool window = request.limits.per_recipient || request.limits.per_day || stored_day;
    return ReserveNeeds{.sends = window, .holds = request.marketing_holds == MarketingHolds::apply};
}

bool record_needs_window(const std::optional<DayCount>& stored_day, bool delivered,
                         const std::optional<SendState>& own) {
    if (!stored_day) {
        return false;
    }
    return delivered ? !own : own == SendState::reserved;
}

ReserveDecision decide(const ReservationRequest& request, const ReserveFacts& facts) {
    ReserveDecision out;
    out.answers.reserve(request.sends.size());
    Reserving reserving(request, facts, out);
    for (std::size_t i = 0; i < request.sends.size(); ++i) {
        out.answers.push_back(reserving.decide(i));
    }
    out.day = reserving.day();
    return out;
}

void settle_day_room(ReserveDecision& decision, util::TimePoint now, std::optional<util::TimePoint> oldest) {
    const util::TimePoint room = oldest.value_or(stored(now)) + k_day;
    for (auto& answer : decision.answers) {
        if (answer.refusal == Refusal::per_day && !answer.room_at) {
            answer.room_at = room;
        }
    }
}

namespace {

// The sends of `batch` (its delivered and not-delivered answers) decided into `out` over
// `numbers`, which they change: what an answer changed counts for the answers after it.
void decide_sends(const ResultBatch& batch, const RecordFacts& facts, Numbers& numbers, RecordDecision& out) {
    // The numbers whose sends change, with whether they counted in the day before.
    std::unordered_map<std::string_view, bool> counted_before;
    auto touch = [&](std::string_view wa_id) {
        if (facts.stored_day && !counted_before.contains(wa_id)) {
            counted_before.emplace(wa_id, counts(numbers[wa_id], facts.stored_day->horizon));
        }
    };
    if (!facts.rows_read) {
        for (const auto& send : batch.delivered) {
            out.marked.emplace_back(&send, stored(send.at.value_or(batch.now)));
        }
        for (const auto& send : batch.not_delivered) {
            out.released.push_back(&send);
        }
        for (const auto& send : batch.ambiguous) {
            out.disowned.push_back(&send);
        }
        return;
    }
    for (const auto& send : batch.delivered) {
        auto& number = numbers[send.wa_id];
        const auto own = std::find_if(number.sends.begin(), number.sends.end(),
                                      [&](const StoredSend& stored_send) { return own_row(stored_send, send); });
        if (own != number.sends.end()) {
            if (own->state == SendState::reserved) {
                own->state = SendState::sent;
                out.confirmed.push_back(&send);
            }
            continue;
        }
        touch(send.wa_id);
        const util::TimePoint at = stored(send.at.value_or(batch.now));
        number.sends.push_back(StoredSend{send.campaign, send.row, at, SendState::sent, send.attempt});
        out.added.emplace_back(&send, at);
    }
    // A send once confirmed is never given back; a reservation only by its own request's answer.
    for (const auto& send : batch.not_delivered) {
        auto& number = numbers[send.wa_id];
        const auto own = std::find_if(number.sends.begin(), number.sends.end(), [&](const StoredSend& stored_send) {
            return own_row(stored_send, send) && stored_send.state == SendState::reserved &&
                   same_request(stored_send, send.attempt);
        });
        if (own != number.sends.end()) {
            touch(send.wa_id);
            number.sends.erase(own);
            out.released.push_back(&send);
        }
    }
    // A reservation its answer left in doubt stays, as it was: only its run changes.
    for (const auto& send : batch.ambiguous) {
        const auto& sends = numbers[send.wa_id].sends;
        if (std::any_of(sends.begin(), sends.end(), [&](const StoredSend& stored_send) {
                return own_row(stored_send, send) && stored_send.state == SendState::reserved &&
                       same_request(stored_send, send.attempt);
            })) {
            out.disowned.push_back(&send);
        }
    }
    if (facts.stored_day) {
        std::int64_t change = 0;
        for (const auto& [wa_id, before] : counted_before) {
            change += (counts(numbers[wa_id], facts.stored_day->horizon) ? 1 : 0) - (before ? 1 : 0);
        }
        if (change != 0) {
            out.day = DayCount{facts.stored_day->horizon, facts.stored_day->numbers + change};
        }
    }
}

// What `batch`'s codes say of its numbers (131026 counts and suppressions, opt-outs, 131049
// holds), decided into `out` over `numbers`.
void decide_numbers(const ResultBatch& batch, Numbers& numbers, RecordDecision& out) {
    std::vector<Suppression> listed;
    for (const auto& answer : batch.undeliverable) {
        auto& number = numbers[answer.wa_id];
        ++number.undeliverable;
        out.undeliverable.push_back(UndeliverableCount{answer.wa_id, number.undeliverable, stored(answer.at)});
        if (number.undeliverable >= batch.undeliverable_after) {
            listed.push_back(Suppression{answer.wa_id, "undeliverable", stored(answer.at), batch.source});
        }
    }
    listed.insert(listed.end(), batch.suppress.begin(), batch.suppress.end());
    // Keys of `numbers` view into `listed`: nothing reads them once this returns.
    for (const auto& entry : listed) {
        auto& number = numbers[entry.wa_id];
        if (!number.suppressed) {
            number.suppressed = true;
            out.suppressed.push_back(entry);
        }
    }
    for (const auto& answer : batch.marketing_limited) {
        auto& number = numbers[answer.wa_id];
        const util::TimePoint until = stored(answer.at) + k_day;
        if (!number.hold_until || *number.hold_until < until) {
            number.hold_until = until;
            out.holds.push_back(Hold{answer.wa_id, until});
        }
    }
}

}  // namespace

RecordDecision decide(const ResultBatch& batch, RecordFacts facts) {
    RecordDecision out;
    decide_sends(batch, facts, facts.numbers, out);
    decide_numbers(batch, facts.numbers, out);
    return out;
}

std::optional<util::TimePoint> prune_horizon(const std::optional<DayCount>& stored_day, util::TimePoint before) {
    // A send at `before` - 1 ms or earlier is then at or behind the horizon.
    const util::TimePoint horizon = stored(before) - std::chrono::milliseconds(1);
    if (stored_day && stored_day->horizon < horizon) {
        return horizon;
    }
    return std::nullopt;
}

std::vector<RowRecord> row_records(const std::vector<Send>& sends, const std::vector<CampaignSend>& held,
                                   AnyRow any_row) {
    std::vector<RowRecord> out(sends.size());
    if (held.empty()) {
        return out;
    }
    std::unordered_map<std::string_view, std::vector<const CampaignSend*>> by_number;
    for (const auto& send : held) {
        by_number[send.wa_id].push_back(&send);
    }
    for (std::size_t i = 0; i < sends.size(); ++i) {
        const auto found = by_number.find(sends[i].wa_id);
        if (found == by_number.end()) {
            continue;
        }
        for (const CampaignSend* send : found->second) {
            const bool this_row = send->row == sends[i].row;
            if (!this_row && any_row == AnyRow::no) {
                continue;
            }
            if (send->state == SendState::sent) {
                out[i].sent = true;
            } else {
                out[i].reserved = true;
                out[i].attempt = this_row ? std::max(out[i].attempt, send->attempt) : out[i].attempt;
            }
        }
    }
    return out;
}

}  // namespace account::rule
