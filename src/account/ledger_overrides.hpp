#pragma once
// The calls of account::Ledger (ledger.hpp, where each one's contract is), as a backend declares
// them: `class XLedger final : public Ledger { public: WACAMP_LEDGER_OVERRIDES … };`. One list
// for every backend, beside the interface it follows.

#include "account/ledger.hpp"

#define WACAMP_LEDGER_OVERRIDES                                                                                 \
    util::Result<std::size_t> suppress(const std::vector<Suppression>& entries) override;                       \
    util::Result<std::size_t> unsuppress(const std::vector<std::string>& wa_ids) override;                      \
    util::Result<std::vector<Suppression>> suppressed(const std::vector<std::string>& wa_ids) override;         \
    util::Result<void> list_suppressed(const std::function<void(const Suppression&)>& each) override;           \
    util::Result<std::vector<Reservation>> reserve(const ReservationRequest& request) override;                 \
    util::Result<std::int64_t> begin_run(const std::string& campaign, util::TimePoint now) override;            \
    util::Result<Recorded> record(const ResultBatch& batch) override;                                           \
    util::Result<std::vector<Hold>> held(const std::vector<std::string>& wa_ids, util::TimePoint now) override; \
    util::Result<std::vector<CampaignSend>> campaign_sends(const std::string& campaign,                         \
                                                           const std::vector<std::string>& wa_ids) override;    \
    util::Result<std::vector<LastMessaged>> last_messaged(const std::vector<std::string>& wa_ids) override;     \
    util::Result<std::uint64_t> folded(const std::string& campaign) override;                                   \
    util::Result<std::vector<std::string>> accounts() override;                                                 \
    util::Result<std::size_t> prune(util::TimePoint before) override;
