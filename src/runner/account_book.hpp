#pragma once
// The account's ledger as one campaign uses it (docs/ledger.md): opened from the campaign's
// `account` keys, fed the suppression lists, asked which rows it would hold back.

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

#include "account/ledger.hpp"
#include "campaign/campaign.hpp"
#include "campaign/paused_regions.hpp"
#include "results/records.hpp"
#include "results/row_fold.hpp"
#include "results/status.hpp"
#include "util/clock.hpp"
#include "util/result.hpp"

namespace runner {

// What the ledger says of a row before it is dispatched.
struct Screening {
    // none, suppressed, frequency_cap or marketing_limit; region_paused (ScreenedRows, CampaignJobs)
    results::Cause cause = results::Cause::none;
    std::string why;  // for the log's `error`
    // The ledger holds the row's number as sent by this campaign (under this row when
    // recipients.dedupe is false, under any row otherwise).
    bool ledger_sent = false;
    // The ledger holds a reservation of this row by this campaign (or, with recipients.dedupe,
    // of another row of its number): its request left, or was about to, and no answer said it
    // failed.
    bool ledger_reserved = false;
    // The request this row's reservation stands for (the log's `attempt`); 0: not known.
    std::int64_t ledger_attempt = 0;
    // Recency::read: when the account last messaged the row's number (any campaign); none when
    // it did not, or when not read.
    std::optional<util::TimePoint> last_messaged;
};

// The screening of a row of a region Meta delivers no MARKETING template to: held back, cause
// region_paused, without asking the ledger.
Screening region_paused(const campaign::PausedRegions& paused, std::string_view wa_id);

// Whether screening also reads when the account last messaged each number (Screening::
// last_messaged): the plan and the question count them; a run's send path does not need it.
enum class Recency { skip, read };

// Rows to send whose numbers the account messaged within the trailing 24 hours and 7 days: those
// of the last 24 hours cost no new room of rate.per_day (it counts numbers, not messages).
struct RecentlyMessaged {
    std::int64_t day = 0;
    std::int64_t week = 0;
    // Counts the row screened as `screening` at `now`.
    void add(const Screening& screening, util::TimePoint now);
};

// What a row's result log forgot and the ledger remembers (SPEC "The ledger remembers what the
// log forgot"): sent, or a request in flight (unknown) whose `attempt` line the log lost.
enum class Recovery { none, sent, unknown };

// The recovery of a row the log holds in `state` and the ledger screened as `screening`: sent
// whatever the log says when the ledger holds it as sent; unknown when the ledger holds a
// reservation and the log has no record of the row, or none of the request the reservation
// stands for (a log restored from an older copy); else none.
Recovery recovery_of(const Screening& screening, const results::RowState& state);

// Makes `rec` the result of a row recovered from the ledger as `recovery` says (sent, or unknown
// with cause transient and `why`), `recovered: "ledger"`, its `attempts` at least the request
// the ledger's row stands for (`ledger_attempt`): a later run does not recover it again, and a
// request made after it (--resend-unknown) is the next one.
void mark_recovered(results::ResultRecord& rec, Recovery recovery, std::int64_t ledger_attempt, std::string why);

// The options the ledger `campaign` names (account.ledger) is opened with: its account and
// password, `access`, and commits synced as `sync` says.
account::OpenOptions ledger_options(const campaign::Campaign& campaign, account::Access access,
                                    account::Sync sync = account::Sync::full);

class AccountBook {
public:
    // The book of `campaign` over `ledger`, which the caller opened (cli/: account::open_ledger)
    // at the campaign's account.ledger with ledger_options(campaign, `access`, …): read_write
    // for a run; read_only for a dry run and validate, which never write it.
    AccountBook(const campaign::Campaign& c, std::unique_ptr<account::Ledger> ledger, account::Access access)
        : m_campaign(c), m_ledger(std::move(ledger)), m_access(access) {}

    // Takes suppression.files in: read_write adds their numbers to the list (reason listed,
    // source file:NAME; idempotent); read_only keeps them in memory, so that screening counts
    // them as a run would. `warn` hears of the rows that hold no number. Returns how many
    // numbers the files held. Fails on a file that cannot be read, or the ledger.
    util::Result<std::int64_t> take_lists(util::TimePoint now, const std::function<void(const std::string&)>& warn);

    // Screens `sends` (rows about to be dispatched, all of one campaign) at `now`, in four
    // queries whatever their number: the campaign's own sends the ledger holds (for
    // recovery_of), the suppression list, 131049 holds (when marketing_holds() apply), and
    // rate.per_recipient (previewed, nothing written). One Screening per send, in order. Fails
    // with the ledger's reason, of kind util::ErrorKind::ledger (a run stops with ledger_error).
    // With Recency::read, one more query: when the account last messaged each number.
    util::Result<std::vector<Screening>> screen(const std::vector<account::Send>& sends, util::TimePoint now,
                                                Recency recency = Recency::skip);

    account::Ledger& ledger() { return *m_ledger; }
    const std::string& path() const { return *m_campaign.account.ledger; }
    const std::string& account() const { return m_campaign.account.name; }
    // The campaign's limits, as the ledger takes them.
    account::Limits limits() const;
    // Whether 131049 holds keep the campaign's messages back (service::marketing_hold_of its
    // message type and template category): apply for text, image and MARKETING templates, and
    // for a template whose category the check before sending did not find out (--offline).
    account::MarketingHolds marketing_holds() const;
    // The source of the suppressions this campaign's answers make: "campaign:NAME".
    std::string source() const { return "campaign:" + m_campaign.name; }
    std::int64_t undeliverable_after() const { return m_campaign.suppression.undeliverable_after; }

private:
    util::Result<std::vector<Screening>> screen_in_ledger(const std::vector<account::Send>& sends, util::TimePoint now,
                                                          Recency recency);
    // Marks in `out` the sends the ledger holds of the campaign of `sends` (numbers `wa_ids`).
    util::Result<void> note_campaign_sends(const std::vector<account::Send>& sends,
                                           const std::vector<std::string>& wa_ids, std::vector<Screening>& out);

    const campaign::Campaign& m_campaign;
    std::unique_ptr<account::Ledger> m_ledger;
    account::Access m_access;
    std::unordered_set<std::string> m_listed;  // read_only: suppression.files' numbers
};

// Why a row is held back, for the log's `error`: its number's suppression entry `s`; a 131049
// hold until `until`.
std::string suppressed_why(const account::Suppression& s);
std::string held_why(util::TimePoint until);

// Returns a warning when `ledger` (shown as `where`) holds other accounts and nothing of
// `account`: the same service named another way (account.name, the base URL's host) would
// skip none of their opt-outs and count none of their caps. "" when the ledger knows `account`,
// or knows no account at all (its first use). Fails with the ledger's reason.
util::Result<std::string> unknown_account_warning(account::Ledger& ledger, const std::string& account,
                                                  const std::string& where);

// The key of one campaign's sends in the ledger: stable across its resumes, different for a
// campaign started afresh ("NAME@STARTED_AT").
std::string campaign_key(const std::string& name, util::TimePoint started_at);

}  // namespace runner
