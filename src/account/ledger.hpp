#pragma once
// The account's ledger: what outlives one campaign (the suppression list, the sends per number,
// the 131026 counts, the 131049 holds, how far each campaign's log has been folded in). Backends
// (SQLite, PostgreSQL) hide their storage behind this interface; every call takes a
// batch and is one transaction, so a server backend costs one round trip per call, not per row.
// Time is always given (`now`, `at`): the ledger never reads a clock.

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "account/types.hpp"
#include "util/result.hpp"

namespace account {

class Ledger {
public:
    virtual ~Ledger() = default;

    // Adds `entries` to the suppression list. A number already on it keeps its first reason,
    // time and source, so importing the same list again changes nothing. Returns how many were
    // new; fails with the storage's reason.
    virtual util::Result<std::size_t> suppress(const std::vector<Suppression>& entries) = 0;

    // Takes `wa_ids` off the suppression list and forgets their 131026 counts (a number put back
    // by hand starts afresh). Returns how many were on it.
    virtual util::Result<std::size_t> unsuppress(const std::vector<std::string>& wa_ids) = 0;

    // Returns the entries of those of `wa_ids` that are suppressed, in no particular order.
    virtual util::Result<std::vector<Suppression>> suppressed(const std::vector<std::string>& wa_ids) = 0;

    // Calls `each` for every entry of the suppression list, ordered by number, without holding
    // the list in memory. `each` must not call the ledger.
    virtual util::Result<void> list_suppressed(const std::function<void(const Suppression&)>& each) = 0;

    // Reserves the sends of `request`, in order: each is granted (and counts as a send at
    // `request.now` at once, for every process sharing the ledger) or refused with its cause.
    // The whole batch is decided in one exclusive transaction, so runners sharing the ledger can
    // never together exceed a limit. With Apply::preview nothing is written. Returns one
    // Reservation per send, in the order given.
    virtual util::Result<std::vector<Reservation>> reserve(const ReservationRequest& request) = 0;

    // Starts a run of `campaign` at `now`: returns the id its reservations carry
    // (ReservationRequest::run) and its marks name (ResultBatch::answered). Never the id of an
    // earlier run.
    virtual util::Result<std::int64_t> begin_run(const std::string& campaign, util::TimePoint now) = 0;

    // Applies what one batch of answers (or of an old log being folded in) says, and moves the
    // campaign's fold mark, in one transaction. Returns the numbers it newly suppressed.
    virtual util::Result<Recorded> record(const ResultBatch& batch) = 0;

    // Returns those of `wa_ids` held at `now` by an earlier 131049 answer, with the hold's end.
    virtual util::Result<std::vector<Hold>> held(const std::vector<std::string>& wa_ids, util::TimePoint now) = 0;

    // Returns the sends of `campaign` to those of `wa_ids` that the ledger still holds (reserved
    // or sent, not yet pruned), in no particular order: one read for the whole batch. A run asks
    // it before reserving, so that a row its result log forgot (an older copy of the log, its last
    // seconds lost) is never sent twice.
    virtual util::Result<std::vector<CampaignSend>> campaign_sends(const std::string& campaign,
                                                                   const std::vector<std::string>& wa_ids) = 0;

    // Returns, for those of `wa_ids` the account messaged (a send reserved or sent, by any
    // campaign, not yet pruned), the time of the latest send, in no particular order: one read
    // for the whole batch. The plan and the question count the list's numbers messaged lately.
    virtual util::Result<std::vector<LastMessaged>> last_messaged(const std::vector<std::string>& wa_ids) = 0;

    // Returns how much of `campaign`'s log has been folded in (the value of its last fold mark;
    // 0 when none).
    virtual util::Result<std::uint64_t> folded(const std::string& campaign) = 0;

    // Returns every account the ledger holds anything of (suppressions, sends, 131026 counts,
    // holds, fold marks), the one it was opened for included when it has any, sorted. One file
    // may hold several accounts: a run or `suppress list` tells a person whose account has
    // no history beside others that do (a different account.name, or host spelling).
    virtual util::Result<std::vector<std::string>> accounts() = 0;

    // Deletes sends made before `before` and holds that ended before it. Returns how many sends
    // went. Callers pass now minus the longest window any campaign of the account counts in.
    virtual util::Result<std::size_t> prune(util::TimePoint before) = 0;
};

enum class Access { read_write, read_only };

// How a commit reaches the disk. full: synced before the call returns (a power loss loses
// none). normal: written to the OS at once, synced at checkpoints (a crash of the process
// loses none; a power loss may lose the last commits, which the next run folds back in from
// its result log, as `--sync interval` may lose the log's last lines).
enum class Sync { full, normal };

struct OpenOptions {
    // The account whose entries the calls read and write: one file may hold several accounts'
    // (account.name: host[:port] of the service by default). Must not be empty.
    std::string account;
    // read_only: for dry runs and validate; a missing ledger reads as an empty one, and every
    // write fails.
    Access access = Access::read_write;
    Sync sync = Sync::full;
    // A PostgreSQL ledger's password, when not in its URL (`account.ledger`'s `${VAR}`); empty:
    // the URL's, else libpq's PGPASSWORD or PGPASSFILE.
    std::string password = {};
    // A PostgreSQL server silent this long during a call fails the call (the run stops with
    // `ledger_error`, resumable) instead of holding the send loop for good.
    std::chrono::milliseconds answer_timeout{30'000};
};

// Opens the ledger at `path_or_url`: a file path opens (creating it, and its folder, when
// missing) a SQLite ledger; a "postgresql://" or "postgres://" URL a PostgreSQL one (creating
// its schema when missing). Fails with a message naming the path, or the URL without its
// password: a symbolic link, not a SQLite database, a server that cannot be reached, a newer
// schema, the OS's reason.
util::Result<std::unique_ptr<Ledger>> open_ledger(const std::string& path_or_url, const OpenOptions& options);

}  // namespace account
