// The PostgreSQL ledger's reservations and the answers that confirm or release them: each one
// call of a server-side function (pg_schema.cpp), so one round trip.
#include <unordered_map>
#include <unordered_set>

#include "account/pg.hpp"
#include "account/pg_ledger.hpp"
#include "account/sqlite_ledger.hpp"  // to_millis, from_millis

namespace account {

namespace {

constexpr std::chrono::hours k_day{24};

std::string text_of(std::int64_t value) {
    return std::to_string(value);
}

// wacamp.reserve's refusal codes (pg_schema.cpp).
Refusal refusal_of(std::int64_t code) {
    switch (code) {
    case 1: return Refusal::frequency_cap;
    case 2: return Refusal::per_day;
    case 3: return Refusal::suppressed;
    case 4: return Refusal::held;
    case 0: return Refusal::none;
    default: throw pg::Failure("the server answered an unknown refusal " + std::to_string(code));
    }
}

}  // namespace

util::Result<std::vector<Reservation>> PgLedger::reserve(const ReservationRequest& request) {
    const bool commit = request.apply == Apply::commit;
    if (m_empty) {
        if (commit) {
            return read_only("reserving sends");
        }
        return reserve_in_empty(request);
    }
    return guarded<std::vector<Reservation>>("reserving sends", [&] {
        std::vector<std::string> campaigns, wa_ids;
        std::vector<std::int64_t> rows;
        for (const auto& send : request.sends) {
            campaigns.push_back(send.campaign);
            rows.push_back(send.row);
            wa_ids.push_back(send.wa_id);
        }
        const auto& per_recipient = request.limits.per_recipient;
        const auto& per_day = request.limits.per_day;
        std::vector<pg::Param> params{m_account,
                                      pg::text_array(campaigns),
                                      pg::integer_array(rows),
                                      pg::text_array(wa_ids),
                                      text_of(to_millis(request.now)),
                                      per_recipient ? pg::Param(text_of(per_recipient->max)) : std::nullopt,
                                      per_recipient ? pg::Param(text_of(per_recipient->per.count())) : std::nullopt,
                                      per_day ? pg::Param(text_of(*per_day)) : std::nullopt,
                                      commit ? "true" : "false"};
        std::string sql =
            "SELECT refusal, room_at FROM wacamp.reserve($1, $2::text[], $3::bigint[], $4::text[], $5, $6, $7, $8, $9";
        // An older schema a read-only open left as it was has reserve() without p_holds (version
        // 2's refuses every held number; screening tells those apart).
        if (m_schema >= 3) {
            sql += ", $10";
            params.emplace_back(request.marketing_holds == MarketingHolds::apply ? "true" : "false");
        }
        const auto decided = m_db->query(sql + ")", params);
        if (decided.size() != static_cast<int>(request.sends.size())) {
            throw pg::Failure("the server answered " + std::to_string(decided.size()) + " decisions for " +
                              std::to_string(request.sends.size()) + " sends");
        }
        std::vector<Reservation> answers;
        for (int i = 0; i < decided.size(); ++i) {
            const auto refusal = decided.integer(i, 0);
            const auto room = decided.null(i, 1) ? std::nullopt : std::optional(from_millis(decided.integer(i, 1)));
            answers.push_back(Reservation{refusal_of(refusal), room});
        }
        return answers;
    });
}

std::vector<Reservation> PgLedger::reserve_in_empty(const ReservationRequest& request) const {
    // As wacamp.reserve decides with no stored send: only the batch's own grants count.
    std::unordered_map<std::string, std::int64_t> granted;
    std::unordered_set<std::string> today;
    std::int64_t new_today = 0;
    std::vector<Reservation> answers;
    for (const auto& send : request.sends) {
        const auto& limit = request.limits.per_recipient;
        if (limit && granted[send.wa_id] >= limit->max) {
            answers.push_back(Reservation{Refusal::frequency_cap, request.now + limit->per});
            continue;
        }
        const bool new_number = request.limits.per_day && !today.contains(send.wa_id);
        if (new_number && new_today >= *request.limits.per_day) {
            answers.push_back(Reservation{Refusal::per_day, request.now + k_day});
            continue;
        }
        new_today += new_number ? 1 : 0;
        today.insert(send.wa_id);
        ++granted[send.wa_id];
        answers.push_back(Reservation{Refusal::none, std::nullopt});
    }
    return answers;
}

util::Result<Recorded> PgLedger::record(const ResultBatch& batch) {
    if (m_empty) {
        return read_only("recording answers");
    }
    return guarded<Recorded>("recording answers", [&] {
        std::vector<std::string> d_campaigns, d_wa_ids, n_campaigns, n_wa_ids;
        std::vector<std::int64_t> d_rows, d_ats, n_rows;
        for (const auto& send : batch.delivered) {
            d_campaigns.push_back(send.campaign);
            d_rows.push_back(send.row);
            d_wa_ids.push_back(send.wa_id);
            d_ats.push_back(to_millis(send.at.value_or(batch.now)));
        }
        for (const auto& send : batch.not_delivered) {
            n_campaigns.push_back(send.campaign);
            n_rows.push_back(send.row);
            n_wa_ids.push_back(send.wa_id);
        }
        auto answers = [](const std::vector<Answer>& list, std::vector<std::string>& wa_ids,
                          std::vector<std::int64_t>& ats) {
            for (const auto& answer : list) {
                wa_ids.push_back(answer.wa_id);
                ats.push_back(to_millis(answer.at));
            }
        };
        std::vector<std::string> u_wa_ids, m_wa_ids;
        std::vector<std::int64_t> u_ats, m_ats;
        answers(batch.undeliverable, u_wa_ids, u_ats);
        answers(batch.marketing_limited, m_wa_ids, m_ats);
        SuppressionArrays suppress = arrays_of(batch.suppress);
        const auto rows = m_db->query(
            "SELECT * FROM wacamp.record($1, $2::text[], $3::bigint[], $4::text[], $5::bigint[], $6::text[], "
            "$7::bigint[], $8::text[], $9::text[], $10::bigint[], $11::text[], $12::bigint[], $13::text[], "
            "$14::text[], $15::bigint[], $16::text[], $17, $18, $19, $20)",
            {m_account,
             pg::text_array(d_campaigns),
             pg::integer_array(d_rows),
             pg::text_array(d_wa_ids),
             pg::integer_array(d_ats),
             pg::text_array(n_campaigns),
             pg::integer_array(n_rows),
             pg::text_array(n_wa_ids),
             pg::text_array(u_wa_ids),
             pg::integer_array(u_ats),
             pg::text_array(m_wa_ids),
             pg::integer_array(m_ats),
             std::move(suppress.wa_ids),
             std::move(suppress.reasons),
             std::move(suppress.since),
             std::move(suppress.sources),
             batch.fold ? pg::Param(batch.fold->campaign) : std::nullopt,
             batch.fold ? pg::Param(text_of(static_cast<std::int64_t>(batch.fold->value))) : std::nullopt,
             text_of(batch.undeliverable_after),
             batch.source});
        Recorded recorded;
        for (int i = 0; i < rows.size(); ++i) {
            recorded.suppressed.push_back(rows.text(i, 0));
        }
        return recorded;
    });
}

}  // namespace account
