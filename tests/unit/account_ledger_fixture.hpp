#pragma once
// Helpers for the ledger's tests: a ledger in a temporary folder, times, sends.

#include <doctest/doctest.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "account/ledger.hpp"
#include "fakes.hpp"

namespace account_fixture {

using namespace std::chrono_literals;

// 2025-03-01T00:00:00Z: every test's `now` is a fixed time, never the machine's.
inline const util::TimePoint k_t0 = util::TimePoint(std::chrono::seconds(1740787200));

inline std::unique_ptr<account::Ledger> open_at(const std::string& path,
                                                account::Access access = account::Access::read_write) {
    auto opened = account::open_ledger(path, account::OpenOptions{.account = "acme", .access = access});
    REQUIRE_MESSAGE(opened.ok(), (opened.ok() ? "" : opened.error().message));
    return std::move(opened.value());
}

inline std::vector<account::Send> sends(const std::string& campaign, const std::vector<std::string>& wa_ids,
                                        std::int64_t first_row = 1) {
    std::vector<account::Send> out;
    for (const auto& wa_id : wa_ids) {
        out.push_back(account::Send{wa_id, campaign, first_row++, std::nullopt});
    }
    return out;
}

inline account::ReservationRequest request(std::vector<account::Send> batch, account::Limits limits,
                                           util::TimePoint now, account::Apply apply = account::Apply::commit) {
    return account::ReservationRequest{std::move(batch), std::move(limits), now, apply};
}

inline account::Limits per_recipient(std::int64_t max, std::chrono::milliseconds per) {
    return account::Limits{account::PerRecipient{max, per}, std::nullopt};
}

inline account::Limits per_day(std::int64_t cap) {
    return account::Limits{std::nullopt, cap};
}

// The granted flags of `answers`, in order.
inline std::vector<bool> granted(const std::vector<account::Reservation>& answers) {
    std::vector<bool> out;
    for (const auto& answer : answers) {
        out.push_back(answer.granted());
    }
    return out;
}

inline account::ResultBatch batch_at(util::TimePoint now) {
    return account::ResultBatch{{}, {}, {}, {}, {}, std::nullopt, 2, "campaign:spring", now};
}

}  // namespace account_fixture
