#include "report/summary.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <functional>
#include <map>
#include <tuple>
#include <variant>

#include "campaign/campaign.hpp"
#include "campaign/recipients.hpp"
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
constexpr std::size_t k_report_pages = 8;  // of the replay's per-row records (util::DiskArrayOptions)

// What the report keeps with each row (results::RowRecord::note): the error group and the
// template of its latest result, each plus one so that 0, a row without a result, has neither,
// and the kind of retry it would count as (0: none). A row's group is fixed by its latest
// result, so the groups can be counted at the end without keeping any text per row.
std::uint32_t row_note(std::uint16_t group, std::uint8_t template_index, std::uint8_t retry_kind) {
    return static_cast<std::uint16_t>(group + 1) |
           static_cast<std::uint32_t>(static_cast<std::uint8_t>(template_index + 1)) << 16 |
           static_cast<std::uint32_t>(retry_kind) << 24;
}
std::uint8_t retry_kind_in(std::uint32_t note) {
    return static_cast<std::uint8_t>(note >> 24);
}
std::uint16_t group_in(std::uint32_t note) {
    return static_cast<std::uint16_t>((note & 0xFFFF) - 1);
}
std::uint8_t template_in(std::uint32_t note) {
    return static_cast<std::uint8_t>(((note >> 16) & 0xFF) - 1);
}

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

// The summary's figures that are not a row's state, from each record as the replay reads it
// (its results::ReplayOptions::observe); each row's state is the replay's.
class Figures {
public:
    explicit Figures(Summary& summary) : m_summary(summary) {}

    // The error group and template of a result, for its row (row_note); 0 for other records.
    std::uint32_t operator()(const results::Record& record) {
        return std::visit([this](const auto& r) { return see(r); }, record);
    }

    // Counts the rows of the replay's `state` into the summary. Fails when a row cannot be read
    // back from the replay's temporary file.
    util::Result<void> finish(const results::LogState& state);

private:
    std::uint32_t see(const results::CampaignHeader& h) {
        close_run();
        m_spend.see(h);
        return 0;
    }

    std::uint32_t see(const results::AttemptRecord& a) {
        ++m_summary.attempts;
        m_run_start = m_run_start ? std::min(*m_run_start, a.at) : a.at;
        m_run_end = m_run_end ? std::max(*m_run_end, a.at) : a.at;
        return 0;
    }

    std::uint32_t see(const results::UnsentRecord&) { return 0; }

    std::uint32_t see(const results::ResultRecord& r) {
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
        m_spend.see(r);
        const std::uint8_t kind = retry_kind_of(r);
        if (kind != 0) {
            ++m_retry_lines[kind];
        }
        return row_note(group_of(r), template_of(r), kind);
    }

    std::uint32_t see(const results::DeleteRecord& d) {
        auto& cleanup = m_summary.cleanup ? *m_summary.cleanup : m_summary.cleanup.emplace();
        ++cleanup.batches;
        cleanup.last_failed = d.status == results::DeleteStatus::failed;
        if (cleanup.last_failed) {
            ++cleanup.failed;
        } else {
            ++cleanup.deleted;
            cleanup.ids_deleted += static_cast<std::int64_t>(d.ids.size());
        }
        return 0;
    }

    std::uint32_t see(const results::EndRecord&) { return 0; }

    // http_status, or k_no_http, or k_others; error_code, or nothing; an invalid row's reason_shape
    using GroupKey = std::tuple<Status, Cause, int, std::optional<std::int64_t>, std::string>;
    static constexpr int k_no_http = -1;
    static constexpr int k_others = -2;

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

    // The kind a result counts under once a later request of its row supersedes it (an index
    // into m_retry_kinds); 0 for a result that would not be tried again (sent, invalid, …).
    std::uint8_t retry_kind_of(const results::ResultRecord& r) {
        if (r.status != Status::failed && r.status != Status::unknown) {
            return 0;
        }
        std::string kind;
        if (r.cause == Cause::transient || r.cause == Cause::none) {
            kind = !r.http_status          ? "no answer"
                   : *r.http_status >= 500 ? "5xx"
                                           : fmt::format("HTTP {}", *r.http_status);
        } else {
            kind = results::to_string(r.cause);
        }
        const auto found = std::find(m_retry_kinds.begin(), m_retry_kinds.end(), kind);
        if (found != m_retry_kinds.end()) {
            return static_cast<std::uint8_t>(found - m_retry_kinds.begin());
        }
        if (m_retry_kinds.size() > k_max_retry_kinds) {
            return 0;  // bounded: the causes and a few HTTP statuses are far fewer
        }
        m_retry_kinds.push_back(std::move(kind));
        m_retry_lines.push_back(0);
        return static_cast<std::uint8_t>(m_retry_kinds.size() - 1);
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

    // Counts a row whose final status is `status` under the template of `note`.
    void count_template(std::uint32_t note, Status status) {
        const std::uint8_t index = template_in(note);
        if (index == k_no_template) {
            return;
        }
        auto& t = m_templates[index];
        t.sent += status == Status::sent ? 1 : 0;
        t.failed += status == Status::failed ? 1 : 0;
    }

    // Result lines of each retry kind; a row's final result is taken off at the end: the rest
    // were superseded by a later request of their row.
    void count_retried() {
        for (std::size_t kind = 1; kind < m_retry_kinds.size(); ++kind) {
            if (m_retry_lines[kind] > 0) {
                m_summary.retried += m_retry_lines[kind];
                m_summary.retried_by_kind.push_back({m_retry_kinds[kind], m_retry_lines[kind]});
            }
        }
        std::stable_sort(m_summary.retried_by_kind.begin(), m_summary.retried_by_kind.end(),
                         [](const RetriedCount& a, const RetriedCount& b) { return a.count > b.count; });
    }

    static constexpr std::size_t k_max_retry_kinds = 250;

    Summary& m_summary;
    std::vector<std::string> m_retry_kinds{""};  // index 0: no kind
    std::vector<std::int64_t> m_retry_lines{0};
    std::map<GroupKey, std::uint16_t> m_group_index;
    std::vector<ErrorGroup> m_groups;
    std::vector<TemplateCount> m_templates;
    LatencyHistogram m_latency;
    SpendTally m_spend;
    std::optional<util::TimePoint> m_run_start;
    std::optional<util::TimePoint> m_run_end;
};

util::Result<void> Figures::finish(const results::LogState& state) {
    close_run();
    m_summary.review.finish();
    for (std::int64_t row_number = 1; row_number <= state.max_row(); ++row_number) {
        TRY_ASSIGN(const results::RowRecord row, state.record(row_number));
        const results::RowState& row_state = row.state;
        if (row_state.pending()) {
            continue;
        }
        if (row_state.has_result() && !row_state.in_flight()) {
            --m_retry_lines[retry_kind_in(row.note)];  // the row's final result: not retried
        }
        const Status status = row_state.status;
        if ((status == Status::failed || status == Status::unknown) &&
            m_summary.not_sent_rows.size() < Summary::k_not_sent_listed) {
            m_summary.not_sent_rows.push_back(row_number);
        }
        if (status == Status::invalid && m_summary.invalid_rows.size() < Summary::k_not_sent_listed) {
            m_summary.invalid_rows.push_back(row_number);
        }
        const bool listed = status == Status::unknown && m_summary.unknown_rows.size() < Summary::k_unknown_listed;
        if (row_state.in_flight()) {
            ++m_summary.in_flight;
            if (listed) {
                m_summary.unknown_rows.push_back({row_number, "request in flight when a run stopped"});
            }
            continue;
        }
        if (const std::uint16_t group = group_in(row.note); group != k_no_group) {
            ++m_groups[group].count;
            if (listed) {
                m_summary.unknown_rows.push_back({row_number, m_groups[group].sample});
            }
        } else if (listed) {
            m_summary.unknown_rows.push_back({row_number, ""});
        }
        count_template(row.note, status);
    }
    if (m_templates.size() > 1) {
        m_summary.templates = std::move(m_templates);
    }
    std::erase_if(m_groups, [](const ErrorGroup& g) { return g.count == 0; });
    std::stable_sort(m_groups.begin(), m_groups.end(),
                     [](const ErrorGroup& a, const ErrorGroup& b) { return a.count > b.count; });
    m_summary.errors = std::move(m_groups);
    m_retry_lines[0] = 0;
    count_retried();

    if (m_summary.sent_results > 0 && m_summary.sending_span.count() > 0) {
        m_summary.send_rate =
            static_cast<double>(m_summary.sent_results) * 1000.0 / static_cast<double>(m_summary.sending_span.count());
    }
    m_summary.latency = {m_latency.count(), m_latency.percentile(50), m_latency.percentile(95),
                         m_latency.percentile(99), m_latency.max()};
    m_summary.spend = m_spend.finish(state.header);
    return {};
}

// Counts the rows of the list of `c` that its deletion step deletes (each row, or those ever
// sent, as cleanup.only says; the same rule as runner's delete_contacts) and whose user_id is
// empty. A list that cannot be read is left uncounted; a row that cannot be read back fails.
util::Result<void> count_without_user_id(const campaign::Campaign& c, const results::LogState& state,
                                         Summary& summary) {
    auto stream = campaign::RecipientStream::open_unsurveyed(c);
    if (!stream) {
        return {};
    }
    campaign::Recipient r;
    auto more = stream->next(r);
    for (; more && *more; more = stream->next(r)) {
        if (!r.user_id.empty()) {
            continue;
        }
        if (c.cleanup.only == campaign::CleanupScope::sent) {
            TRY_ASSIGN(const results::RowState row, state.row(r.row));
            if (!row.ever_sent()) {
                continue;
            }
        }
        if (summary.without_user_id++ < static_cast<std::int64_t>(Summary::k_without_user_id_listed)) {
            summary.without_user_id_rows.push_back(r.row);
        }
    }
    summary.user_ids_counted = static_cast<bool>(more);
    if (!summary.user_ids_counted) {  // half a count would mislead: none
        summary.without_user_id = 0;
        summary.without_user_id_rows.clear();
    }
    return {};
}

}  // namespace

util::Result<Summary> summarize(const std::string& path, const util::DiskArrayOptions& scratch,
                                const campaign::Campaign* campaign) {
    Summary summary;
    Figures figures(summary);
    results::ReplayOptions options;
    options.observe = std::ref(figures);
    options.records = scratch;
    // The rows come about in log order: fewer pages in memory than a sending run keeps do.
    options.records.cached_pages = std::min<std::size_t>(scratch.cached_pages, k_report_pages);
    auto replayed = results::replay(path, options);
    if (!replayed) {
        return cannot_report(replayed.error());
    }
    const results::LogState& state = *replayed;
    summary.log_path = path;
    summary.header = state.header;
    summary.latest_header = state.latest_header;
    summary.runs = state.runs;
    summary.last_end = state.last_end;
    summary.ended = state.ended;
    summary.records = state.records;
    summary.rows = state.counts.total();
    summary.counts = state.counts;
    summary.first_at = state.first_at.value_or(state.header.started_at);
    summary.last_at = state.last_at.value_or(state.header.started_at);
    summary.warnings = shown_warnings(state);
    summary.warning_count = state.warning_count;
    if (auto finished = figures.finish(state); !finished) {
        return scratch_failed(path, finished.error());
    }
    if (campaign != nullptr && campaign->cleanup.delete_contacts && state.header.mode == results::Mode::send) {
        if (auto counted = count_without_user_id(*campaign, state, summary); !counted) {
            return scratch_failed(path, counted.error());
        }
    }
    summary.list = look_at_list(summary.latest_header);
    summary.next_steps = next_steps_for(summary);
    return summary;
}

}  // namespace report
