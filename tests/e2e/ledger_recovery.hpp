#pragma once
// "The ledger remembers what the log forgot" (SPEC), end to end, for either backend: the test
// file of each backend builds the campaign (its ledger) and calls these.

#include <functional>

#include "fixtures.hpp"

namespace e2e {

// The extra campaign YAML these checks expect beside the ledger's: rate.per_recipient at most 1
// message a number in 7 days, so that the cap itself would let no second send through either.
inline const std::string k_recovery_rate = "rate: {per_second: 50, per_recipient: {max: 1, per: 7d}}\n";

// `f` (numbers_csv(k_recovery_rows), k_recovery_rate) sends 6 rows (--limit 6), its log is
// copied, the campaign finishes, the copy is put back (an older backup restored) and `resume`
// runs: it sends nothing, records the rows the copy lacked as sent, recovered from the ledger,
// and says so.
inline constexpr int k_recovery_rows = 20;
void check_restored_log(const Sandbox& sandbox, const CampaignFixture& f);

// `f` (numbers_csv(k_recovery_rows), no rate.per_recipient) finishes, its log is cut at a line
// boundary to about half its lines, and a plain `run` sends nothing: the rows cut off are
// recovered as sent; rows whose attempt line stayed and result went stay unknown, and even
// `resume --resend-unknown` does not send them (the ledger holds them as sent).
void check_shortened_log(const Sandbox& sandbox, const CampaignFixture& f);

// `f` (numbers_csv(k_recovery_rows), k_recovery_rate) finishes; `unconfirm(wa_id)` makes the
// ledger hold that number's send as reserved again, and the log is cut before that row's
// attempt (a power cut that took both the answer and the attempt line): `resume` records the
// row unknown, recovered from the ledger, and sends nothing; `resume --resend-unknown` sends it
// (max 1 notwithstanding: a row's own reservation does not count against it).
void check_reserved_without_record(const Sandbox& sandbox, const CampaignFixture& f,
                                   const std::function<void(const std::string& wa_id)>& unconfirm);

// `f` (numbers_csv(k_recovery_rows), no rate.per_recipient) finishes; `hold_second(wa_id)` makes
// the ledger hold that number's send as reserved for the row's second request (its request left,
// its answer never recorded: a crash), and the log is put back to an older copy in which the
// row's first request failed. `resume --retry-failed` folds the copy in — its failure must not
// release the second request's reservation — and records the row unknown, recovered from the
// ledger, sending nothing.
void check_older_log_after_retry(const Sandbox& sandbox, const CampaignFixture& f,
                                 const std::function<void(const std::string& wa_id)>& hold_second);

// `f` (numbers_csv(k_copies_rows), k_copies_rate) sends one row; its log is copied, and the log
// and the copy are resumed at the same time (two runs of one campaign that the log's lock cannot
// keep apart). The ledger gives each row to one of them: every number gets one message, both
// runs send, and a row one run did not send is in its log recovered from the ledger (sent, or
// unknown while the other run held it), sent in the other's. Then `resume --resend-unknown` of
// either log sends nothing: its unknown rows are recovered as sent.
inline constexpr int k_copies_rows = 800;
inline const std::string k_copies_rate = "rate: {per_second: 400}\n";
void check_copies_resumed_at_once(const Sandbox& sandbox, const CampaignFixture& f);

}  // namespace e2e
