#include "report/summary.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <map>
#include <tuple>
#include <variant>

#include "report/latency_histogram.hpp"
#include "report/next_steps.hpp"
#include "report/open_log.hpp"
#include "results/replay.hpp"
#include "util/utf8.hpp"

namespace report {

namespace {

using results::Cause;
using results::Status;

constexpr std::uint16_t k_no_group = 0xFFFF;
constexpr std::uint8_t k_no_template = 0xFF;
static_assert(Summary::k_max_templates < k_no_template);
constexpr std::size_t k_sample_limit = 300;

// What the fold keeps per row: its state (results::RowFold, the replay's rule), and what its
// latest result says for the report. A row's error group is fixed by its latest result, so the
// groups can be counted at the end without keeping any text per row.
struct RowSummary {
    results::RowFold fold;
    std::uint16_t group = k_no_group;
    std::uint8_t template_index = k_no_template;  // into Folder's templates
};

// Returns an invalid row's reason without what is particular to the row, so that rows invalid
// for the same reason share a group: a quoted value (but a column's name) becomes "…", and a run
// of digits "#" ("\"0663 377\" is not a valid number for IN" → "\"…\" is not a valid number for IN").
std::string reason_shape(std::string_view reason) {
    const auto digit = [](char c) { return c >= '0' && c <= '9'; };
    std::string out;
    for (std::size_t i = 0; i < reason.size();) {
        if (reason[i] == '"') {
            const auto close = reason.find('"', i + 1);
            if (close != std::string_view::npos) {
                // A column's name stays: the value quoted after it is the row's own.
                const bool column = reason.substr(0, i).ends_with("column ");
                out += column ? reason.substr(i, close + 1 - i) : std::string_view("\"…\"");
                i = close + 1;
                continue;
            }
        }
        if (digit(reason[i])) {
            while (i < reason.size() && digit(reason[i])) {
                ++i;
            }
            out += '#';
            continue;
        }
        out += reason[i++];
    }
    return out;
}

// Says that the per-row state could not be kept, naming the log the report is of.
util::Error scratch_failed(const std::string& path, const util::Error& error) {
    return util::fail(fmt::format("cannot report on {}: {}", path, error.message));
}

class Folder {
public:
    Folder(Summary& summary, const results::LogReader& reader, util::DiskArray<RowSummary> rows)
        : m_summary(summary), m_reader(reader), m_rows(std::move(rows)) {}

    util::Result<void> operator()(const results::CampaignHeader& h) {
        note_time(h.started_at);
        close_run();
        ++m_summary.runs;
        m_summary.latest_header = h;
        return {};
    }

    util::Result<void> operator()(const results::AttemptRecord& a) {
        note_time(a.at);
        ++m_summary.attempts;
        m_run_start = m_run_start ? std::min(*m_run_start, a.at) : a.at;
        m_run_end = m_run_end ? std::max(*m_run_end, a.at) : a.at;
        if (!in_range(a.row)) {
            return {};
        }
        const auto index = static_cast<std::uint64_t>(a.row);
        TRY_ASSIGN(RowSummary row, m_rows.get(index));
        row.fold.attempt(a.attempt);
        return m_rows.set(index, row);
    }

    // Not acted on: the row is as it was before that attempt.
    util::Result<void> operator()(const results::UnsentRecord& u) {
        note_time(u.at);
        if (!in_range(u.row)) {
            return {};
        }
        const auto index = static_cast<std::uint64_t>(u.row);
        TRY_ASSIGN(RowSummary row, m_rows.get(index));
        row.fold.unsent();
        return m_rows.set(index, row);
    }

    util::Result<void> operator()(const results::ResultRecord& r) {
        note_time(r.at);
        if (r.status == Status::sent) {
            ++m_summary.sent_results;
        }
        if (r.cause == Cause::rate_limited) {
            ++m_summary.rate_limited;
        }
        if (r.latency_ms) {
            m_latency.add(*r.latency_ms);
            m_run_end = m_run_end ? std::max(*m_run_end, r.at) : r.at;
        }
        m_summary.review.add(r);
        if (!in_range(r.row)) {
            return {};
        }
        // The latest result decides the row: nothing of the earlier state counts.
        RowSummary row{{}, group_of(r), template_of(r)};
        row.fold.result(r.status, r.cause, r.attempts);
        return m_rows.set(static_cast<std::uint64_t>(r.row), row);
    }

    util::Result<void> operator()(const results::DeleteRecord& d) {
        note_time(d.at);
        auto& cleanup = m_summary.cleanup ? *m_summary.cleanup : m_summary.cleanup.emplace();
        ++cleanup.batches;
        cleanup.last_failed = d.status == results::DeleteStatus::failed;
        if (cleanup.last_failed) {
            ++cleanup.failed;
        } else {
            ++cleanup.deleted;
            cleanup.ids_deleted += static_cast<std::int64_t>(d.ids.size());
        }
        return {};
    }

    util::Result<void> operator()(const results::EndRecord& e) {
        note_time(e.at);
        m_summary.last_end = e;
        return {};
    }

    util::Result<void> finish();

private:
    // http_status, or k_no_http, or k_others; error_code, or nothing; an invalid row's reason_shape
    using GroupKey = std::tuple<Status, Cause, int, std::optional<std::int64_t>, std::string>;
    static constexpr int k_no_http = -1;
    static constexpr int k_others = -2;

    void note_time(util::TimePoint t) {
        m_summary.first_at = std::min(m_summary.first_at, t);
        m_summary.last_at = std::max(m_summary.last_at, t);
    }

    // Adds the current run's sending time to the total; a resumed campaign's idle gap
    // between runs is not sending time.
    void close_run() {
        if (m_run_start && m_run_end) {
            m_summary.sending_span += std::chrono::duration_cast<util::Millis>(*m_run_end - *m_run_start);
        }
        m_run_start.reset();
        m_run_end.reset();
    }

    std::uint16_t group_of(const results::ResultRecord& r) {
        if (r.status == Status::sent || r.status == Status::dry_run) {
            return k_no_group;
        }
        const bool plausible = r.http_status && *r.http_status >= 100 && *r.http_status <= 999;
        GroupKey key{r.status, r.cause, plausible ? *r.http_status : k_no_http, r.error_code,
                     r.status == Status::invalid ? reason_shape(r.error) : std::string()};
        // Past the limit, a new key joins its status and cause's `others`: with the few statuses
        // and causes, that bounds the groups far below k_no_group.
        const bool others = m_groups.size() >= Summary::k_max_error_groups && !m_group_index.contains(key);
        if (others) {
            key = GroupKey{r.status, r.cause, k_others, std::nullopt, std::string()};
        }
        auto [it, inserted] = m_group_index.try_emplace(key, static_cast<std::uint16_t>(m_groups.size()));
        if (inserted) {
            ErrorGroup group;
            group.status = r.status;
            group.cause = r.cause;
            group.others = others;
            if (plausible && !others) {
                group.http_status = r.http_status;
            }
            if (!others) {
                group.error_code = r.error_code;
            }
            group.sample = util::clip_utf8(r.error, k_sample_limit);
            m_groups.push_back(std::move(group));
        } else if (m_groups[it->second].sample.empty()) {
            m_groups[it->second].sample = util::clip_utf8(r.error, k_sample_limit);
        }
        return it->second;
    }

    std::uint8_t template_of(const results::ResultRecord& r) {
        if (!r.template_name) {
            return k_no_template;
        }
        const auto found = std::find_if(m_templates.begin(), m_templates.end(),
                                        [&](const TemplateCount& t) { return t.name == *r.template_name; });
        if (found != m_templates.end()) {
            return static_cast<std::uint8_t>(found - m_templates.begin());
        }
        if (m_templates.size() >= Summary::k_max_templates) {
            return k_no_template;
        }
        m_templates.push_back(TemplateCount{*r.template_name});
        return static_cast<std::uint8_t>(m_templates.size() - 1);
    }

    // Counts `row`, whose final status is `status`, under its template.
    void count_template(const RowSummary& row, Status status) {
        if (row.template_index == k_no_template) {
            return;
        }
        auto& t = m_templates[row.template_index];
        t.sent += status == Status::sent ? 1 : 0;
        t.failed += status == Status::failed ? 1 : 0;
    }

    // Whether `row` can be a row; a warning when not.
    bool in_range(std::int64_t row) {
        if (row < 1 || row > results::k_max_row) {
            ++m_warning_count;
            if (m_warnings.size() < results::LogReader::k_max_warnings) {
                m_warnings.push_back(fmt::format("{}:{}: row {} out of range, record ignored", m_reader.path(),
                                                 m_reader.line_number(), row));
            }
            return false;
        }
        return true;
    }

    Summary& m_summary;
    const results::LogReader& m_reader;
    util::DiskArray<RowSummary> m_rows;  // by row number; [0] unused
    std::map<GroupKey, std::uint16_t> m_group_index;
    std::vector<ErrorGroup> m_groups;
    std::vector<TemplateCount> m_templates;
    LatencyHistogram m_latency;
    std::optional<util::TimePoint> m_run_start;
    std::optional<util::TimePoint> m_run_end;
    std::vector<std::string> m_warnings;
    std::int64_t m_warning_count = 0;
};

util::Result<void> Folder::finish() {
    close_run();
    m_summary.review.finish();
    for (std::uint64_t row_number = 1; row_number < m_rows.size(); ++row_number) {
        TRY_ASSIGN(const RowSummary row, m_rows.get(row_number));
        const results::RowState& state = row.fold.state;
        if (state.pending()) {
            continue;
        }
        ++m_summary.rows;
        const bool in_flight = state.in_flight();
        const Status status = state.status;
        if ((status == Status::failed || status == Status::unknown) &&
            m_summary.not_sent_rows.size() < Summary::k_not_sent_listed) {
            m_summary.not_sent_rows.push_back(static_cast<std::int64_t>(row_number));
        }
        if (status == Status::invalid && m_summary.invalid_rows.size() < Summary::k_not_sent_listed) {
            m_summary.invalid_rows.push_back(static_cast<std::int64_t>(row_number));
        }
        ++m_summary.counts[status];
        if (in_flight) {
            ++m_summary.in_flight;
            continue;
        }
        if (row.group != k_no_group) {
            ++m_groups[row.group].count;
        }
        count_template(row, status);
    }
    if (m_templates.size() > 1) {
        m_summary.templates = std::move(m_templates);
    }
    std::erase_if(m_groups, [](const ErrorGroup& g) { return g.count == 0; });
    std::stable_sort(m_groups.begin(), m_groups.end(),
                     [](const ErrorGroup& a, const ErrorGroup& b) { return a.count > b.count; });
    m_summary.errors = std::move(m_groups);

    if (m_summary.sent_results > 0 && m_summary.sending_span.count() > 0) {
        m_summary.send_rate =
            static_cast<double>(m_summary.sent_results) * 1000.0 / static_cast<double>(m_summary.sending_span.count());
    }
    m_summary.latency = {m_latency.count(), m_latency.percentile(50), m_latency.percentile(95),
                         m_latency.percentile(99), m_latency.max()};

    // The reader's warnings (torn lines first, in line order), then the fold's.
    m_summary.warnings = m_reader.warnings();
    for (auto& w : m_warnings) {
        if (m_summary.warnings.size() < results::LogReader::k_max_warnings) {
            m_summary.warnings.push_back(std::move(w));
        }
    }
    m_summary.warning_count = m_reader.warning_count() + m_warning_count;
    return {};
}

}  // namespace

util::Result<Summary> summarize(const std::string& path, const util::DiskArrayOptions& scratch) {
    TRY_ASSIGN(auto opened, open_log(path));
    auto rows = util::DiskArray<RowSummary>::create(scratch);
    if (!rows) {
        return scratch_failed(path, rows.error());
    }
    Summary summary;
    summary.log_path = path;
    summary.header = opened.header;
    summary.latest_header = opened.header;
    summary.first_at = summary.last_at = summary.header.started_at;
    summary.records = 1;
    Folder folder(summary, opened.reader, std::move(*rows));
    results::Record record;
    for (;;) {
        TRY_ASSIGN(const bool more, opened.reader.next(record));
        if (!more) {
            break;
        }
        ++summary.records;
        summary.ended = std::holds_alternative<results::EndRecord>(record);
        if (auto folded = std::visit(folder, record); !folded) {
            return scratch_failed(path, folded.error());
        }
    }
    if (auto finished = folder.finish(); !finished) {
        return scratch_failed(path, finished.error());
    }
    summary.list = look_at_list(summary.latest_header);
    summary.next_steps = next_steps_for(summary);
    return summary;
}

}  // namespace report
