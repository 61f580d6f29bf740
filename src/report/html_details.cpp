#include "report/html_details.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <optional>
#include <variant>

#include "report/open_log.hpp"
#include "results/row_fold.hpp"

namespace report {

namespace {

using results::Status;

constexpr std::string_view k_in_flight_error =
    "request in flight when the run stopped: it may or may not have been delivered";

// A listed row's fold, showing its latest record (none: nothing to show yet).
using NotSentRow = results::ShownRowFold<std::optional<results::ResultRecord>>;

class DetailFolder {
public:
    explicit DetailFolder(const Summary& summary)
        : m_rows(summary.not_sent_rows),
          m_not_sent(summary.not_sent_rows.size()),
          m_invalid_rows(summary.invalid_rows),
          m_invalid(summary.invalid_rows.size()) {
        m_details.timeline = Timeline(summary.first_at, summary.last_at);
    }

    void operator()(const results::AttemptRecord& a) {
        if (auto* row = not_sent_of(a.row)) {
            // Until a result follows, the request may or may not have been delivered.
            results::ResultRecord r;
            r.row = a.row;
            r.wa_id = a.wa_id;
            r.user_name = row->shown() ? row->shown()->user_name : std::string();
            r.status = Status::unknown;
            r.attempts = a.attempt;
            r.error = k_in_flight_error;
            r.at = a.at;
            row->attempt(a.attempt, std::move(r));
        }
    }

    // The request was not acted on: the row shows what it showed before that attempt, when that
    // attempt had no result yet (results::RowFold).
    void operator()(const results::UnsentRecord& u) {
        if (auto* row = not_sent_of(u.row)) {
            row->unsent();
        }
    }

    void operator()(const results::ResultRecord& r) {
        if (r.status == Status::sent) {
            m_details.timeline.add(r.at, Outcome::sent);
        } else if (r.status == Status::failed || r.status == Status::unknown) {
            m_details.timeline.add(r.at, Outcome::not_sent);
        }
        if (r.latency_ms) {
            m_details.timeline.add_latency(r.at, *r.latency_ms);
            note_latency(r);
        }
        if (auto* row = not_sent_of(r.row)) {
            row->result(r.status, r.cause, r.attempts, r);
        }
        if (auto* invalid = slot_of(m_invalid_rows, m_invalid, r.row)) {
            *invalid = r;
        }
    }

    template <typename Other>
    void operator()(const Other&) {}

    HtmlDetails finish() {
        std::stable_sort(m_details.slowest.begin(), m_details.slowest.end(),
                         [](const auto& a, const auto& b) { return *a.latency_ms > *b.latency_ms; });
        for (auto& row : m_not_sent) {
            if (row.shown()) {
                m_details.not_sent.push_back(std::move(*row.shown()));
            }
        }
        for (auto& invalid : m_invalid) {
            if (invalid && invalid->status == Status::invalid) {
                m_details.invalid.push_back(std::move(*invalid));
            }
        }
        return std::move(m_details);
    }

private:
    // The slot in `slots` of `row` if it is one of `rows` (ascending).
    template <typename Slot>
    static Slot* slot_of(const std::vector<std::int64_t>& rows, std::vector<Slot>& slots, std::int64_t row) {
        auto it = std::lower_bound(rows.begin(), rows.end(), row);
        if (it == rows.end() || *it != row) {
            return nullptr;
        }
        return &slots[static_cast<std::size_t>(it - rows.begin())];
    }

    // The fold of `row` if it is one of the listed rows.
    NotSentRow* not_sent_of(std::int64_t row) { return slot_of(m_rows, m_not_sent, row); }

    // Keeps the k_slowest slowest requests, at most one per row (its slowest).
    void note_latency(const results::ResultRecord& r) {
        auto& slowest = m_details.slowest;
        auto same_row = std::find_if(slowest.begin(), slowest.end(), [&](const auto& s) { return s.row == r.row; });
        if (same_row != slowest.end()) {
            if (*r.latency_ms > *same_row->latency_ms) {
                *same_row = r;
            }
            return;
        }
        if (slowest.size() < HtmlDetails::k_slowest) {
            slowest.push_back(r);
            return;
        }
        auto fastest = std::min_element(slowest.begin(), slowest.end(),
                                        [](const auto& a, const auto& b) { return *a.latency_ms < *b.latency_ms; });
        if (*r.latency_ms > *fastest->latency_ms) {
            *fastest = r;
        }
    }

    const std::vector<std::int64_t>& m_rows;          // ascending
    std::vector<NotSentRow> m_not_sent;               // of m_rows, each showing its latest record
    const std::vector<std::int64_t>& m_invalid_rows;  // ascending
    std::vector<std::optional<results::ResultRecord>> m_invalid;
    HtmlDetails m_details;
};

}  // namespace

util::Result<HtmlDetails> collect_html_details(const Summary& summary) {
    TRY_ASSIGN(auto opened, open_log(summary.log_path));
    if (opened.header != summary.header) {
        return util::fail(fmt::format("{}: the log changed while it was being read", summary.log_path));
    }
    DetailFolder folder(summary);
    results::Record record;
    // Only what the summary counted (the header is one): a run may be appending meanwhile.
    for (std::int64_t read = 1; read < summary.records; ++read) {
        TRY_ASSIGN(const bool more, opened.reader.next(record));
        if (!more) {
            return util::fail(fmt::format("{}: the log shrank while it was being read", summary.log_path));
        }
        std::visit(folder, record);
    }
    return folder.finish();
}

}  // namespace report
