#include "results/replay.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <chrono>
#include <unordered_map>

#include "results/log_reader.hpp"

namespace results {

namespace {

constexpr auto k_daily_window = std::chrono::hours(24);

std::uint8_t saturate(std::int64_t n) {
    return static_cast<std::uint8_t>(std::clamp<std::int64_t>(n, 0, 255));
}

// Applies the records after the header to `state`; `reader` names the line in warnings.
struct Folder {
    LogState& state;
    const LogReader& reader;
    std::optional<util::TimePoint> sent_after;  // keep `sent` times newer than this
    std::vector<std::string> warnings;
    std::int64_t warning_count = 0;

    // Rows whose outcome is unknown now, with their wa_id (few: at most the requests that were
    // in flight when a run died, plus results held as unknown).
    std::unordered_map<std::int64_t, std::string> unknown_rows;

    void operator()(CampaignHeader& h) {
        note_time(h.started_at);
        ++state.runs;
        // A changed recipient list (run --force) renumbers the rows: states by row no longer
        // apply. What must survive is by number: the numbers sent, and those of unknown outcome.
        if (h.recipients_sha256 != state.latest_header.recipients_sha256) {
            for (auto& [row, wa_id] : unknown_rows) {
                state.unknown_wa_ids.insert(wa_id);
            }
            unknown_rows.clear();
            state.rows.clear();
            state.marketing_limited.clear();
        }
        state.latest_header = std::move(h);
    }

    void operator()(const AttemptRecord& a) {
        note_time(a.at);
        unknown_rows[a.row] = a.wa_id;
        if (RowState* row = row_for(a.row)) {
            row->attempts = std::max(row->attempts, saturate(a.attempt));
            row->flags |= RowState::k_in_flight;
            row->status = Status::unknown;
        }
    }

    void operator()(const ResultRecord& r) {
        note_time(r.at);
        if (r.status == Status::unknown) {
            unknown_rows[r.row] = r.wa_id;
        } else {
            unknown_rows.erase(r.row);
        }
        if (r.status == Status::sent) {
            state.sent_wa_ids.insert(r.wa_id);
            if (sent_after && r.at > *sent_after) {
                state.recent_sent.push_back(r.at);
            }
        }
        if (r.status == Status::failed && r.cause == Cause::marketing_limit) {
            state.marketing_limited[r.row] = r.at;
        } else if (!state.marketing_limited.empty()) {
            state.marketing_limited.erase(r.row);
        }
        if (RowState* row = row_for(r.row)) {
            row->status = r.status;
            row->cause = r.cause;
            row->attempts = saturate(r.attempts);
            row->flags = static_cast<std::uint8_t>((row->flags & ~RowState::k_in_flight) | RowState::k_has_result);
            if (r.status == Status::sent) {
                row->flags |= RowState::k_ever_sent;
            }
        }
    }

    void operator()(DeleteRecord& d) {
        note_time(d.at);
        ++state.delete_batches;
        if (d.status == DeleteStatus::deleted) {
            std::move(d.ids.begin(), d.ids.end(), std::back_inserter(state.deleted_ids));
        } else {
            ++state.delete_batches_failed;
        }
    }

    void operator()(EndRecord& e) {
        note_time(e.at);
        state.last_end = std::move(e);
    }

    void note_time(util::TimePoint t) {
        state.first_at = state.first_at ? std::min(*state.first_at, t) : t;
        state.last_at = state.last_at ? std::max(*state.last_at, t) : t;
    }

    RowState* row_for(std::int64_t row) {
        if (row < 1 || row > k_max_row) {
            ++warning_count;
            if (warnings.size() < LogReader::k_max_warnings) {
                warnings.push_back(fmt::format("{}:{}: row {} out of range, record ignored", reader.path(),
                                               reader.line_number(), row));
            }
            return nullptr;
        }
        const auto index = static_cast<std::size_t>(row);
        if (index >= state.rows.size()) {
            state.rows.resize(index + 1);
        }
        return &state.rows[index];
    }
};

void finish(LogState& state, const LogReader& reader, Folder& folder) {
    for (std::size_t i = 1; i < state.rows.size(); ++i) {
        const RowState& row = state.rows[i];
        if (!row.pending()) {
            ++state.counts[row.status];
        }
        if (!row.in_flight() && counts_cause(row.status)) {
            ++state.causes[row.cause];
        }
    }
    std::sort(state.recent_sent.begin(), state.recent_sent.end());
    state.sent_wa_ids.compact();
    state.unknown_wa_ids.compact();
    std::sort(state.deleted_ids.begin(), state.deleted_ids.end());
    state.deleted_ids.erase(std::unique(state.deleted_ids.begin(), state.deleted_ids.end()), state.deleted_ids.end());
    // The reader's warnings, then the folder's, then a note of how many did not fit.
    state.warnings = reader.warnings();
    for (auto& w : folder.warnings) {
        if (state.warnings.size() < LogReader::k_max_warnings) {
            state.warnings.push_back(std::move(w));
        }
    }
    const auto total = reader.warning_count() + folder.warning_count;
    const auto shown = static_cast<std::int64_t>(state.warnings.size());
    if (total > shown) {
        state.warnings.push_back(fmt::format("{}: {} more warnings not shown", reader.path(), total - shown));
    }
}

}  // namespace

RowState LogState::row(std::int64_t row) const {
    if (row < 1 || static_cast<std::size_t>(row) >= rows.size()) {
        return {};
    }
    return rows[static_cast<std::size_t>(row)];
}

std::int64_t LogState::max_row() const {
    return rows.empty() ? 0 : static_cast<std::int64_t>(rows.size()) - 1;
}

std::optional<util::TimePoint> LogState::marketing_limited_at(std::int64_t row) const {
    const auto it = marketing_limited.find(row);
    return it == marketing_limited.end() ? std::nullopt : std::optional(it->second);
}

bool LogState::was_deleted(std::string_view id) const {
    return std::binary_search(deleted_ids.begin(), deleted_ids.end(), id);
}

util::Result<LogState> replay(const std::string& path, const ReplayOptions& options) {
    TRY_ASSIGN(auto reader, LogReader::open(path));
    LogState state;
    Record record;
    TRY_ASSIGN(const bool any, reader.next(record));
    if (!any) {
        return util::fail(
            fmt::format("{}: not a wacamp result log: no complete campaign record (empty, or torn)", path));
    }
    if (reader.line_number() != 1 || !std::holds_alternative<CampaignHeader>(record)) {
        return util::fail(
            fmt::format("{}:1: not a wacamp result log: the first line must be a \"campaign\" record", path));
    }
    state.header = std::get<CampaignHeader>(record);
    state.latest_header = state.header;
    state.first_at = state.last_at = state.header.started_at;
    state.records = 1;
    Folder folder{state, reader, std::nullopt, {}, 0, {}};
    if (options.now) {
        folder.sent_after = *options.now - k_daily_window;
    }
    for (;;) {
        TRY_ASSIGN(const bool more, reader.next(record));
        if (!more) {
            break;
        }
        ++state.records;
        state.ended = std::holds_alternative<EndRecord>(record);
        std::visit(folder, record);
    }
    finish(state, reader, folder);
    return state;
}

}  // namespace results
