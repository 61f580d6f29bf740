#include "results/replay.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <chrono>
#include <map>
#include <type_traits>
#include <unordered_map>

#include "results/log_reader.hpp"
#include "results/wa_id_set.hpp"

namespace results {

namespace {

constexpr auto k_daily_window = std::chrono::hours(24);

// A user_id as 64 bits, for the join with the list (see join_list()).
std::uint64_t id_hash(std::string_view id) {
    return std::hash<std::string_view>{}(id);
}

// The numbers and ids of the log, sorted on disk, to be joined with the list; nothing is kept
// when there is no list to join (`wanted` false).
struct LogKeys {
    bool wanted;
    util::ExternalSorter numbers;  // (number code, RowRecord mark): sent or unknown
    util::ExternalSorter deleted;  // (id_hash, 0) of every id a `deleted` batch names
    // wa_ids without a number code (never the phone normaliser's; an edited log's): few.
    WaIdSet other_sent;
    WaIdSet other_unknown;

    explicit LogKeys(const ReplayOptions& options)
        : wanted(static_cast<bool>(options.rows)), numbers(options.sort), deleted(options.sort) {}

    util::Result<void> add_number(std::string_view wa_id, std::uint8_t mark) {
        if (!wanted) {
            return {};
        }
        if (const auto code = wa_id_code(wa_id)) {
            return numbers.add({*code, mark});
        }
        (mark == RowRecord::k_number_sent ? other_sent : other_unknown).insert(wa_id);
        return {};
    }

    util::Result<void> add_deleted(std::string_view id) {
        return wanted ? deleted.add({id_hash(id), 0}) : util::Result<void>();
    }
};

// Applies the records after the header to `state`; `reader` names the line in warnings. The
// first failure of a temporary file is kept in `error`, and reading stops there.
struct Folder {
    LogState& state;
    const LogReader& reader;
    const ReplayOptions& options;
    LogKeys keys;
    std::optional<util::TimePoint> sent_after;  // count `sent` results newer than this
    std::vector<std::string> warnings;
    std::int64_t warning_count = 0;
    std::optional<util::Error> error;
    std::uint32_t note = 0;  // options.observe's answer for the record being folded

    // Rows whose outcome is unknown now and whose wa_id has no number code or whose row is out
    // of range (an edited log's): their wa_id. The others' are in their records.
    std::unordered_map<std::int64_t, std::string> odd_unknown_rows;
    // `sent` results of the trailing day, by the minute they count until; those later than now
    // (a clock set back) all at the latest of them.
    std::map<std::int64_t, std::int64_t> recent_minutes;
    std::int64_t later_count = 0;
    std::optional<util::TimePoint> later_at;

    Folder(LogState& s, const LogReader& r, const ReplayOptions& o) : state(s), reader(r), options(o), keys(o) {
        if (o.now) {
            sent_after = *o.now - k_daily_window;
        }
    }

    void operator()(CampaignHeader& h) {
        note_time(h.started_at);
        ++state.runs;
        // A changed recipient list (run --force) renumbers the rows: states by row no longer
        // apply. What must survive is by number: the numbers sent, and those of unknown outcome.
        if (h.recipients_sha256 != state.latest_header.recipients_sha256) {
            keep_unknown_numbers();
            if (auto fresh = util::DiskArray<RowRecord>::create(options.records)) {
                state.m_records = std::move(*fresh);
            } else {
                keep(fresh.error());
            }
            state.m_max_row = 0;
            state.named_rows = 0;
        }
        state.latest_header = std::move(h);
    }

    void operator()(const AttemptRecord& a) {
        note_time(a.at);
        note_unknown(a.row, a.wa_id, true);
        const auto code = number_of(a.wa_id);
        update(a.row, [&](RowRecord& rec) {
            rec.number = code;
            rec.attempt(a.attempt);
        });
    }

    void operator()(const ResultRecord& r) {
        note_time(r.at);
        note_unknown(r.row, r.wa_id, r.status == Status::unknown);
        const auto code = number_of(r.wa_id);
        if (r.status == Status::sent) {
            keep(keys.add_number(r.wa_id, RowRecord::k_number_sent));
            if (r.category && *r.category != state.sent_category) {
                state.sent_category = *r.category;
            }
            if (sent_after && r.at > *sent_after) {
                count_recent(r.at);
            }
        }
        update(r.row, [&](RowRecord& rec) {
            rec.number = code;
            if (r.status == Status::sent && r.price && !rec.state.ever_sent()) {
                state.spent += *r.price;
                ++state.priced;
                rec.marks |= RowRecord::k_priced;
            }
            rec.result(r.status, r.cause, r.attempts);
            rec.note = note;
            if (r.status == Status::failed && r.cause == Cause::marketing_limit) {
                rec.marks |= RowRecord::k_marketing_limited;
                rec.marketing_at = r.at.time_since_epoch().count();
            } else {
                rec.marks &= static_cast<std::uint8_t>(~RowRecord::k_marketing_limited);
                rec.marketing_at = 0;
            }
        });
    }

    // The request was not acted on: the row is as it was before that attempt (still in flight
    // when an earlier request of it had no answer). After the attempt's result it changes nothing,
    // and is not the row's latest record (RowFold::unsent).
    void operator()(const UnsentRecord& u) {
        note_time(u.at);
        bool undid = false;
        bool unknown = false;
        update(u.row, [&](RowRecord& rec) {
            undid = rec.unsent();
            unknown = rec.unknown();
            return undid;
        });
        if (undid) {
            note_unknown(u.row, u.wa_id, unknown);
        }
    }

    void operator()(DeleteRecord& d) {
        note_time(d.at);
        ++state.delete_batches;
        if (d.status == DeleteStatus::deleted) {
            for (const auto& id : d.ids) {
                keep(keys.add_deleted(id));
            }
        } else {
            ++state.delete_batches_failed;
        }
    }

    void operator()(EndRecord& e) {
        note_time(e.at);
        state.last_end = std::move(e);
    }

    // RowRecord::number of `wa_id`: only a join with a list needs it.
    std::uint64_t number_of(std::string_view wa_id) const { return keys.wanted ? wa_id_code(wa_id).value_or(0) : 0; }

    // Keeps the wa_id of a row whose outcome is unknown now when its record cannot (for the
    // join with a list: nothing without one).
    void note_unknown(std::int64_t row, const std::string& wa_id, bool unknown) {
        if (!keys.wanted) {
            return;
        }
        if (unknown && (row < 1 || row > k_max_row || !wa_id_code(wa_id))) {
            odd_unknown_rows[row] = wa_id;
        } else if (!odd_unknown_rows.empty()) {
            odd_unknown_rows.erase(row);
        }
    }

    // Before the rows are renumbered: the numbers of the rows whose outcome is unknown now
    // stay unknown under the new list. The records of the old rows are dropped.
    void keep_unknown_numbers() {
        for (std::int64_t i = 1; keys.wanted && i <= state.m_max_row && !error; ++i) {
            auto rec = state.m_records.get(static_cast<std::uint64_t>(i));
            if (!rec) {
                keep(rec.error());
                return;
            }
            const RowState& row = rec->state;
            if (rec->number != 0 && !row.pending() && (row.in_flight() || row.status == Status::unknown)) {
                keep(keys.numbers.add({rec->number, RowRecord::k_number_unknown}));
            }
        }
        for (auto& [row, wa_id] : odd_unknown_rows) {
            keep(keys.add_number(wa_id, RowRecord::k_number_unknown));
        }
        odd_unknown_rows.clear();
    }

    void note_time(util::TimePoint t) {
        state.first_at = state.first_at ? std::min(*state.first_at, t) : t;
        state.last_at = state.last_at ? std::max(*state.last_at, t) : t;
    }

    void count_recent(util::TimePoint at) {
        if (at > *options.now) {
            ++later_count;
            later_at = later_at ? std::max(*later_at, at) : at;
            return;
        }
        // The end of the minute: a send counts until at most a minute after it would have.
        const auto minute = std::chrono::ceil<std::chrono::minutes>(at.time_since_epoch()).count();
        ++recent_minutes[minute];
    }

    void keep(util::Result<void> done) {
        if (!done && !error) {
            error = done.error();
        }
    }
    void keep(const util::Error& e) {
        if (!error) {
            error = e;
        }
    }

    // Applies `change` to the record of `row`; a row out of range is a warning.
    // Applies `change` to the record of `row` and makes this record its latest, unless `change`
    // returns false (it changed nothing).
    template <typename F>
    void update(std::int64_t row, F change) {
        if (row < 1 || row > k_max_row) {
            ++warning_count;
            if (warnings.size() < LogReader::k_max_warnings) {
                warnings.push_back(fmt::format("{}:{}: row {} out of range, record ignored", reader.path(),
                                               reader.line_number(), row));
            }
            return;
        }
        if (error) {
            return;
        }
        const auto index = static_cast<std::uint64_t>(row);
        auto rec = state.m_records.get(index);
        if (!rec) {
            keep(rec.error());
            return;
        }
        if constexpr (std::is_void_v<decltype(change(*rec))>) {
            change(*rec);
        } else if (!change(*rec)) {
            return;  // the record changed nothing
        }
        state.named_rows += rec->latest_record == 0 ? 1 : 0;
        rec->latest_record = static_cast<std::uint32_t>(state.records - 1);
        keep(state.m_records.set(index, *rec));
        state.m_max_row = std::max(state.m_max_row, row);
    }
};

// For each list pair (key, row), in key order, marks the row with the OR of the marks of the
// log's pairs (key, mark) of the same key: a merge join of two sorted streams, into `marks`
// as (row, mark).
util::Result<void> join(util::SortedPairs& log, util::SortedPairs& list, util::ExternalSorter& marks) {
    util::SortPair from_log;
    TRY_ASSIGN(bool log_more, log.next(from_log));
    std::uint64_t key = 0;
    std::uint64_t key_marks = 0;  // of `key`, when it is set
    bool have_key = false;
    util::SortPair from_list;
    for (;;) {
        TRY_ASSIGN(const bool list_more, list.next(from_list));
        if (!list_more) {
            return {};
        }
        while (log_more && from_log.first <= from_list.first) {
            if (!have_key || from_log.first != key) {
                key = from_log.first;
                key_marks = 0;
                have_key = true;
            }
            key_marks |= from_log.second;
            TRY_ASSIGN(log_more, log.next(from_log));
        }
        if (have_key && key == from_list.first && key_marks != 0) {
            TRY(marks.add({from_list.second, key_marks}));
        }
    }
}

// Marks each row of the list whose number the log sent (or left unknown under an earlier list)
// and whose user_id a `deleted` batch names. Both sides go through external sorts and meet in
// a merge join; the marks come back in row order into the records. A user_id is joined by a
// 64-bit hash of it: two different ids with the same hash would leave the second one
// undeleted (about one chance in 200,000 for ten million ids; docs/decisions/cli.md).
// `list_failed` tells a list that could not be read from a temporary file that failed.
util::Result<void> join_list(LogState& state, LogKeys& keys, const ReplayOptions& options, bool& list_failed) {
    keys.other_sent.compact();
    keys.other_unknown.compact();
    util::ExternalSorter list_numbers(options.sort);
    util::ExternalSorter list_ids(options.sort);
    util::ExternalSorter marks(options.sort);
    ListedRow row;
    for (;;) {
        auto found = options.rows(row);
        if (!found) {
            list_failed = true;
            return found.error();
        }
        if (!*found) {
            break;
        }
        if (row.row < 1 || row.row > k_max_row) {
            continue;
        }
        state.m_listed_rows = std::max(state.m_listed_rows, row.row);
        const auto r = static_cast<std::uint64_t>(row.row);
        if (!row.wa_id.empty()) {
            TRY_ASSIGN(RowRecord rec, state.m_records.get(r));
            rec.listed = listed_fingerprint(row.wa_id);
            TRY(state.m_records.set(r, rec));
            if (const auto code = wa_id_code(row.wa_id)) {
                TRY(list_numbers.add({*code, r}));
            } else {
                const std::uint8_t mark = (keys.other_sent.contains(row.wa_id) ? RowRecord::k_number_sent : 0) |
                                          (keys.other_unknown.contains(row.wa_id) ? RowRecord::k_number_unknown : 0);
                if (mark != 0) {
                    TRY(marks.add({r, mark}));
                }
            }
        }
        if (!row.user_id.empty()) {
            TRY(list_ids.add({id_hash(row.user_id), r}));
        }
    }
    {
        TRY_ASSIGN(auto log_sorted, keys.numbers.finish());
        TRY_ASSIGN(auto list_sorted, list_numbers.finish());
        TRY(join(log_sorted, list_sorted, marks));
    }
    {
        // Deleted ids carry no mark in the log's sort: give them theirs here.
        util::ExternalSorter deleted(options.sort);
        TRY_ASSIGN(auto ids, keys.deleted.finish());
        util::SortPair p;
        for (;;) {
            TRY_ASSIGN(const bool more, ids.next(p));
            if (!more) {
                break;
            }
            TRY(deleted.add({p.first, RowRecord::k_user_deleted}));
        }
        TRY_ASSIGN(auto log_sorted, deleted.finish());
        TRY_ASSIGN(auto list_sorted, list_ids.finish());
        TRY(join(log_sorted, list_sorted, marks));
    }
    TRY_ASSIGN(auto by_row, marks.finish());
    util::SortPair p;
    for (;;) {
        TRY_ASSIGN(const bool more, by_row.next(p));
        if (!more) {
            return {};
        }
        TRY_ASSIGN(RowRecord rec, state.m_records.get(p.first));
        rec.marks |= static_cast<std::uint8_t>(p.second);
        TRY(state.m_records.set(p.first, rec));
    }
}

util::Result<void> finish(LogState& state, const LogReader& reader, Folder& folder) {
    for (std::int64_t i = 1; i <= state.m_max_row; ++i) {
        TRY_ASSIGN(const RowRecord rec, state.m_records.get(static_cast<std::uint64_t>(i)));
        rec.state.count(state.counts, state.causes);
    }
    for (const auto& [minute, count] : folder.recent_minutes) {
        state.recent_sent.push_back({util::TimePoint(std::chrono::minutes(minute)), count});
    }
    if (folder.later_at) {
        state.recent_sent.push_back({*folder.later_at, folder.later_count});
    }
    // The reader's warnings, then the folder's, then a note of how many did not fit.
    state.warnings = reader.warnings();
    for (auto& w : folder.warnings) {
        if (state.warnings.size() < LogReader::k_max_warnings) {
            state.warnings.push_back(std::move(w));
        }
    }
    state.warning_count = reader.warning_count() + folder.warning_count;
    const auto shown = static_cast<std::int64_t>(state.warnings.size());
    if (state.warning_count > shown) {
        state.warnings.push_back(
            fmt::format("{}: {} more warnings not shown", reader.path(), state.warning_count - shown));
    }
    return {};
}

}  // namespace

std::uint64_t listed_fingerprint(std::string_view wa_id) {
    return id_hash(wa_id) | 1;
}

util::Result<RowRecord> LogState::record(std::int64_t row) const {
    if (row < 1 || row > k_max_row) {
        return RowRecord{};
    }
    return m_records.get(static_cast<std::uint64_t>(row));
}

util::Result<RowState> LogState::row(std::int64_t row) const {
    TRY_ASSIGN(const RowRecord rec, record(row));
    return rec.state;
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
    const auto temp_failed = [&](const util::Error& e) {
        return util::Error{fmt::format("{}: the log's replay on disk: {}", path, e.message),
                           util::ErrorKind::temp_file};
    };
    auto records = util::DiskArray<RowRecord>::create(options.records);
    if (!records) {
        return temp_failed(records.error());
    }
    state.m_records = std::move(*records);
    state.header = std::get<CampaignHeader>(record);
    state.latest_header = state.header;
    state.first_at = state.last_at = state.header.started_at;
    state.records = 1;
    Folder folder(state, reader, options);
    while (!folder.error) {
        TRY_ASSIGN(const bool more, reader.next(record));
        if (!more) {
            break;
        }
        ++state.records;
        // An `end` after the last attempt and result: the deletion step's records, which a
        // finished run writes after its `end`, leave it ended.
        if (std::holds_alternative<EndRecord>(record)) {
            state.ended = true;
        } else if (!std::holds_alternative<DeleteRecord>(record)) {
            state.ended = false;
        }
        if (options.observe) {
            folder.note = options.observe(record);
        }
        std::visit(folder, record);
    }
    if (folder.error) {
        return temp_failed(*folder.error);
    }
    if (auto done = finish(state, reader, folder); !done) {
        return temp_failed(done.error());
    }
    if (options.rows) {
        bool list_failed = false;
        if (auto joined = join_list(state, folder.keys, options, list_failed); !joined) {
            return list_failed ? joined.error() : temp_failed(joined.error());
        }
        state.m_joined = true;
    }
    return state;
}

}  // namespace results
