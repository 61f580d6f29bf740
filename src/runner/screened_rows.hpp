#pragma once
// The recipient stream as a dry run and validate read it: each row that could be sent is
// also screened against the account's ledger (read only), a batch of rows per query.

#include <cstddef>
#include <string>
#include <vector>

#include "campaign/recipients.hpp"
#include "runner/account_book.hpp"
#include "util/clock.hpp"
#include "util/result.hpp"

namespace runner {

class ScreenedRows {
public:
    // Reads `stream`; `book` (may be null: nothing is screened) answers for the rows, keyed
    // `campaign_key`, at the wall time of `clock`. All three must outlive this.
    ScreenedRows(campaign::RecipientStream& stream, AccountBook* book, std::string campaign_key,
                 const util::Clock& clock)
        : m_stream(stream), m_book(book), m_key(std::move(campaign_key)), m_clock(clock) {}

    // Reads the next row into `row` and what the ledger says of it into `screening` (cause
    // none for a row the ledger lets through, and for every row that is not `ok`): true, or
    // false at the end. Fails as the stream does, or with the ledger's error (kind ledger).
    util::Result<bool> next(campaign::Recipient& row, Screening& screening);

private:
    util::Result<void> read_batch();

    campaign::RecipientStream& m_stream;
    AccountBook* m_book;
    std::string m_key;
    const util::Clock& m_clock;
    std::vector<campaign::Recipient> m_rows;
    std::vector<Screening> m_screenings;
    std::size_t m_count = 0;  // rows in m_rows read by the last batch
    std::size_t m_next = 0;   // the next of them to hand out
    bool m_done = false;
};

}  // namespace runner
