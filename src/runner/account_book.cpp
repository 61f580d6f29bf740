#include "runner/account_book.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "account/rule.hpp"
#include "runner/suppression_list.hpp"
#include "service/messages.hpp"
#include "util/text.hpp"
#include "util/time.hpp"

namespace runner {

namespace {

constexpr std::size_t k_accounts_named = 10;

// `names` quoted and joined, the first k_accounts_named of them, then how many more.
std::string named_accounts(const std::vector<std::string>& names) {
    std::string out;
    for (std::size_t i = 0; i < names.size() && i < k_accounts_named; ++i) {
        out += fmt::format("{}\"{}\"", i == 0 ? "" : ", ", util::printable(names[i]));
    }
    if (names.size() > k_accounts_named) {
        out += fmt::format(" and {} more", names.size() - k_accounts_named);
    }
    return out;
}

}  // namespace

std::string suppressed_why(const account::Suppression& s) {
    return fmt::format("on the account's suppression list ({}, since {}, {})", s.reason,
                       util::format_timestamp(s.since), s.source);
}

std::string held_why(util::TimePoint until) {
    return fmt::format("held until {}: the number answered 131049 (marketing limit) within the last 24 h",
                       util::format_timestamp(until));
}

Recovery recovery_of(const Screening& screening, const results::RowState& state) {
    if (screening.ledger_sent) {
        return Recovery::sent;
    }
    if (!screening.ledger_reserved) {
        return Recovery::none;
    }
    // The log counts a row's requests up to 255 (results::RowState::attempts).
    const std::int64_t logged = state.attempts;
    const std::int64_t reserved = std::min<std::int64_t>(screening.ledger_attempt, 255);
    return state.pending() || reserved > logged ? Recovery::unknown : Recovery::none;
}

void mark_recovered(results::ResultRecord& rec, Recovery recovery, std::int64_t ledger_attempt, std::string why) {
    rec.recovered = "ledger";
    rec.attempts = std::max<int>(rec.attempts, static_cast<int>(std::clamp<std::int64_t>(ledger_attempt, 0, 255)));
    if (recovery == Recovery::sent) {
        rec.status = results::Status::sent;
        return;
    }
    rec.status = results::Status::unknown;
    rec.cause = results::Cause::transient;
    rec.error = std::move(why);
}

util::Result<std::string> unknown_account_warning(account::Ledger& ledger, const std::string& account,
                                                  const std::string& where) {
    TRY_ASSIGN(const auto known, ledger.accounts());
    if (known.empty() || std::find(known.begin(), known.end(), account) != known.end()) {
        return std::string();
    }
    return fmt::format(
        "account \"{}\" has no history in ledger {}, which holds {} other account(s): {}; opt-outs, suppressions "
        "and frequency caps are kept per account, so if one of them is meant, name it (account.name, or --account)",
        util::printable(account), where, known.size(), named_accounts(known));
}

std::string campaign_key(const std::string& name, util::TimePoint started_at) {
    return name + "@" + util::format_timestamp(started_at);
}

account::OpenOptions ledger_options(const campaign::Campaign& c, account::Access access, account::Sync sync) {
    return {.account = c.account.name, .access = access, .sync = sync, .password = c.account.ledger_password};
}

account::Limits AccountBook::limits() const {
    account::Limits limits;
    if (const auto& per = m_campaign.rate.per_recipient) {
        limits.per_recipient = account::PerRecipient{per->max, per->per};
    }
    limits.per_day = m_campaign.rate.per_day;
    return limits;
}

account::MarketingHolds AccountBook::marketing_holds() const {
    const bool templated = m_campaign.message.type == campaign::MessageType::template_message;
    const auto hold =
        service::marketing_hold_of(templated ? service::MessageKind::template_message : service::MessageKind::text,
                                   m_campaign.message.templated.category);
    return hold == service::MarketingHold::applies ? account::MarketingHolds::apply : account::MarketingHolds::ignored;
}

util::Result<std::int64_t> AccountBook::take_lists(util::TimePoint now,
                                                   const std::function<void(const std::string&)>& warn) {
    if (m_campaign.suppression.files.empty()) {
        return std::int64_t{0};
    }
    TRY_ASSIGN(const auto phones, campaign::PhoneNormalizer::create(m_campaign.recipients.default_country));
    std::int64_t total = 0;
    for (const auto& file : m_campaign.suppression.files) {
        ListReading reading;
        if (m_access == account::Access::read_write) {
            TRY_ASSIGN(const ListImport import,
                       import_suppression_list(*m_ledger, file, phones, {"listed", list_source(file), now}));
            reading = import.reading;
        } else {
            auto keep = [&](std::string wa_id) -> util::Result<void> {
                m_listed.insert(std::move(wa_id));
                return {};
            };
            TRY_ASSIGN(reading, read_suppression_list(file, phones, keep));
        }
        total += reading.numbers;
        if (reading.problems > 0) {
            warn(fmt::format("suppression.files: {} row{} of {} hold no usable number (first: {})", reading.problems,
                             reading.problems == 1 ? "" : "s", file, reading.examples.front()));
        }
    }
    return total;
}

void RecentlyMessaged::add(const Screening& screening, util::TimePoint now) {
    if (!screening.last_messaged) {
        return;
    }
    const auto ago = now - *screening.last_messaged;
    day += ago < std::chrono::hours(24) ? 1 : 0;
    week += ago < std::chrono::days(7) ? 1 : 0;
}

Screening region_paused(const campaign::PausedRegions& paused, std::string_view wa_id) {
    Screening out;
    out.cause = results::Cause::region_paused;
    out.why = paused.why(wa_id);
    return out;
}

util::Result<std::vector<Screening>> AccountBook::screen(const std::vector<account::Send>& sends, util::TimePoint now,
                                                         Recency recency) {
    auto screened = screen_in_ledger(sends, now, recency);
    if (!screened) {
        return util::Error{screened.error().message, util::ErrorKind::ledger};
    }
    return screened;
}

util::Result<void> AccountBook::note_campaign_sends(const std::vector<account::Send>& sends,
                                                    const std::vector<std::string>& wa_ids,
                                                    std::vector<Screening>& out) {
    TRY_ASSIGN(const auto held, m_ledger->campaign_sends(sends.front().campaign, wa_ids));
    const auto any_row = m_campaign.recipients.dedupe ? account::rule::AnyRow::yes : account::rule::AnyRow::no;
    const auto records = account::rule::row_records(sends, held, any_row);
    for (std::size_t i = 0; i < sends.size(); ++i) {
        out[i].ledger_sent = records[i].sent;
        out[i].ledger_reserved = records[i].reserved;
        out[i].ledger_attempt = records[i].attempt;
    }
    return {};
}

util::Result<std::vector<Screening>> AccountBook::screen_in_ledger(const std::vector<account::Send>& sends,
                                                                   util::TimePoint now, Recency recency) {
    std::vector<Screening> out(sends.size());
    if (sends.empty()) {
        return out;
    }
    std::vector<std::string> wa_ids;
    wa_ids.reserve(sends.size());
    for (const auto& send : sends) {
        wa_ids.push_back(send.wa_id);
    }
    TRY(note_campaign_sends(sends, wa_ids, out));
    if (recency == Recency::read) {
        TRY_ASSIGN(const auto last, m_ledger->last_messaged(wa_ids));
        std::unordered_map<std::string, util::TimePoint> at;
        for (const auto& l : last) {
            at.emplace(l.wa_id, l.at);
        }
        for (std::size_t i = 0; i < sends.size(); ++i) {
            if (auto it = at.find(sends[i].wa_id); it != at.end()) {
                out[i].last_messaged = it->second;
            }
        }
    }
    TRY_ASSIGN(const auto suppressed, m_ledger->suppressed(wa_ids));
    std::unordered_map<std::string, const account::Suppression*> by_number;
    for (const auto& s : suppressed) {
        by_number.emplace(s.wa_id, &s);
    }
    const account::MarketingHolds holds = marketing_holds();
    std::unordered_map<std::string, util::TimePoint> held_until;
    if (holds == account::MarketingHolds::apply) {
        TRY_ASSIGN(const auto held, m_ledger->held(wa_ids, now));
        for (const auto& h : held) {
            held_until.emplace(h.wa_id, h.until);
        }
    }
    std::vector<account::Reservation> frequency;
    if (const auto& per = m_campaign.rate.per_recipient) {
        account::ReservationRequest preview{
            sends, {account::PerRecipient{per->max, per->per}, std::nullopt}, now, account::Apply::preview, holds};
        TRY_ASSIGN(frequency, m_ledger->reserve(preview));
    }
    for (std::size_t i = 0; i < sends.size(); ++i) {
        const std::string& wa_id = sends[i].wa_id;
        auto hold_back = [&](results::Cause cause, std::string why) {
            out[i].cause = cause;
            out[i].why = std::move(why);
        };
        if (auto s = by_number.find(wa_id); s != by_number.end()) {
            hold_back(results::Cause::suppressed, suppressed_why(*s->second));
        } else if (m_listed.contains(wa_id)) {
            hold_back(results::Cause::suppressed, "listed in suppression.files");
        } else if (auto h = held_until.find(wa_id); h != held_until.end()) {
            hold_back(results::Cause::marketing_limit, held_why(h->second));
        } else if (i < frequency.size() && frequency[i].refusal == account::Refusal::frequency_cap) {
            const auto& per = *m_campaign.rate.per_recipient;
            hold_back(results::Cause::frequency_cap,
                      fmt::format("the account messaged this number {} time{} within {} (rate.per_recipient); "
                                  "next possible at {}",
                                  per.max, per.max == 1 ? "" : "s",
                                  util::format_duration(per.per, util::DurationStyle::compact),
                                  frequency[i].room_at ? util::format_timestamp(*frequency[i].room_at) : "?"));
        }
    }
    return out;
}

}  // namespace runner
