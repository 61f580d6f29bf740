#pragma once
// The recipient stream as a dry run and validate read it: each row that could be sent is
// also screened against the account's ledger (read only), a batch of rows per query, and
// against message.paused_regions.

#include <cstddef>
#include <string>
#include <vector>

#include "campaign/paused_regions.hpp"
#include "campaign/recipients.hpp"
#include "runner/account_book.hpp"
#include "util/clock.hpp"
#include "util/result.hpp"

namespace runner {

class ScreenedRows {
public:
    // Reads `stream`; `book` (may be null: nothing is screened) answers for the rows, keyed
    // `campaign_key`, at the wall time of `clock`; a row of a region in `paused` (may be null)
    // is held back (region_paused) without asking the ledger. All must outlive this.
    ScreenedRows(campaign::RecipientStream& stream, AccountBook* book, std::string campaign_key,
                 const util::Clock& clock, const campaign::PausedRegions* paused)
        : m_stream(stream), m_book(book), m_key(std::move(campaign_key)), m_clock(clock), m_paused(paused) {}

    // Reads the next row into `row` and what the ledger says of it into `screening` (cause
    // none for a row the ledger lets through, and for every row that is not `ok`; cause
    // region_paused for a row of a paused region): true, or
    // false at the end. Fails as the stream does, or with the ledger's error (kind ledger).
    util::Result<bool> next(campaign::Recipient& row, Screening& screening);

private:
    util::Result<void> read_batch();

    campaign::RecipientStream& m_stream;
    AccountBook* m_book;
    std::string m_key;
    const util::Clock& m_clock;
    const campaign::PausedRegions* m_paused;
    std::vector<campaign::Recipient> m_rows;
    std::vector<Screening> m_screenings;
    std::size_t m_count = 0;  // rows in m_rows read by the last batch
    std::size_t m_next = 0;   // the next of them to hand out
    bool m_done = false;
};

}  // namespace runner
