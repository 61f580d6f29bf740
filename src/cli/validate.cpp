// wacamp validate: check a campaign file and every CSV row; no log, and no network unless the
// images are to be checked (--check-media) or a template campaign's template list is read. The
// rows' problems are grouped by reason; --rows lists each row as well.

#include <fmt/format.h>
#include <CLI/CLI.hpp>
#include <algorithm>
#include <memory>

#include <nlohmann/json.hpp>

#include "campaign/pricing.hpp"
#include "campaign/reason_groups.hpp"
#include "campaign/recipients.hpp"
#include "cli/campaign_check.hpp"
#include "cli/commands.hpp"
#include "cli/exit_code.hpp"
#include "cli/output.hpp"
#include "cli/plan_json.hpp"
#include "cli/run_common.hpp"
#include "cli/send_causes.hpp"
#include "runner/budget.hpp"
#include "runner/dry_run.hpp"
#include "runner/plan.hpp"
#include "runner/screened_rows.hpp"
#include "runner/shown_zone.hpp"
#include "runner/survey.hpp"
#include "util/clock.hpp"

namespace cli {

namespace {

// Whether validate lists each row not to be sent (--rows), besides the reasons.
enum class ListRows { no, yes };

struct ValidateOptions {
    std::string campaign;
    bool check_media = false;
    bool offline = false;    // a template campaign checked without the template list
    bool every_row = false;  // --rows: each row not to be sent on a line of its own
    LogOptions log;
};

// What validate found in the rows, as it read them.
struct RowCounts {
    std::int64_t rows = 0, ok = 0, invalid = 0, duplicates = 0;
    results::CauseCounts held;               // rows the ledger would skip or hold, by cause
    campaign::ReasonGroups invalid_reasons;  // the invalid rows, by reason
    campaign::ReasonGroups skipped_reasons;  // the skipped rows (duplicates), by reason
};

// Returns what the ledger at `path` says of the rows to send: how many it would skip or hold
// now, by cause (a run asks again as it sends).
std::string ledger_line(const results::CauseCounts& held, const std::string& path) {
    const std::int64_t total = total_of(held);
    if (total == 0) {
        return fmt::format("the account's ledger ({}) holds none of them back\n", path);
    }
    return fmt::format("of those, the account's ledger ({}) would hold back {} now: {}\n", path, total,
                       cause_list(held));
}

// The rows not to be sent, by reason: the invalid rows' reasons, most rows first, then the
// skipped rows'.
struct ReasonList {
    std::vector<campaign::ReasonGroups::Group> invalid;
    std::vector<campaign::ReasonGroups::Group> skipped;
};

// Returns the lines of `reasons`, "  12 × REASON (rows 2, 5, …)", under a line naming `csv`; ""
// when no row has a problem.
std::string reason_lines(const ReasonList& reasons, const std::string& csv, ListRows list) {
    if (reasons.invalid.empty() && reasons.skipped.empty()) {
        return {};
    }
    std::string text = fmt::format("{}: rows not to be sent, by reason{}:\n", csv,
                                   list == ListRows::yes ? "" : " (validate --rows lists each row)");
    long long most = 0;
    for (const auto* groups : {&reasons.invalid, &reasons.skipped}) {
        most = std::max(most, groups->empty() ? 0 : groups->front().count);
    }
    const std::size_t width = fmt::formatted_size("{}", most);
    for (const auto& g : reasons.invalid) {
        text += fmt::format("  {:>{}} × {} ({})\n", g.count, width, g.reason, campaign::rows_of(g));
    }
    for (const auto& g : reasons.skipped) {
        text += fmt::format("  {:>{}} × skipped: {} ({})\n", g.count, width, g.reason, campaign::rows_of(g));
    }
    return text;
}

// Returns `reasons` as an array of {"status", "reason", "count", "rows"}: the first rows of each.
nlohmann::ordered_json reasons_json(const ReasonList& reasons) {
    auto array = nlohmann::ordered_json::array();
    for (const auto& [status, groups] : {std::pair{"invalid", &reasons.invalid}, {"skipped", &reasons.skipped}}) {
        for (const auto& g : *groups) {
            array.push_back({{"status", status}, {"reason", g.reason}, {"count", g.count}, {"rows", g.rows}});
        }
    }
    return array;
}

// With --rows: row `r`, not to be sent, on a line of its own ("FILE:LINE: row N: reason"), or
// as a JSON object.
void list_row(Output& out, const std::string& csv, const campaign::Recipient& r) {
    const bool skipped = r.verdict == campaign::Verdict::duplicate;
    const std::string line =
        fmt::format("{}:{}: row {}: {}{}", csv, r.line, r.row, skipped ? "skipped: " : "", r.reason);
    out.result(Level::info, "row", line + "\n",
               {{"message", line},
                {"file", csv},
                {"line", r.line},
                {"row", r.row},
                {"status", skipped ? "skipped" : "invalid"},
                {"reason", r.reason}});
}

// Counts row `r`, screened against the ledger as `screening` says, into `counts`.
void count_row(const campaign::Recipient& r, const runner::Screening& screening, RowCounts& counts) {
    ++counts.rows;
    switch (r.verdict) {
    case campaign::Verdict::ok:
        ++counts.ok;
        if (screening.cause != results::Cause::none) {
            ++counts.held[screening.cause];
        }
        break;
    case campaign::Verdict::invalid:
        ++counts.invalid;
        counts.invalid_reasons.add(r.reason, r.row);
        break;
    case campaign::Verdict::duplicate:
        ++counts.duplicates;
        // Each names its own first row: grouped as one.
        counts.skipped_reasons.add("duplicate of an earlier row", r.row);
        break;
    }
}

// Opens the campaign's recipients, the images checked first with --check-media; nothing (after
// saying why) when they cannot be read.
std::optional<campaign::RecipientStream> open_rows(const campaign::Campaign& c, const ValidateOptions& opts,
                                                   std::optional<runner::MediaReport>& media, Output& out) {
    auto stream = campaign::RecipientStream::open(c);
    if (stream && opts.check_media) {
        media = check_media_or_report(c, *stream, out);
        if (!media) {
            return std::nullopt;
        }
        stream = campaign::RecipientStream::open(c, {}, {.media = &media->verdicts});
    }
    if (!stream) {
        const auto& problem = stream.error().message;
        out.error(problem, k_exit_bad_input, fmt::format("{}\nwacamp: error: {} is not usable\n", problem, c.file));
        return std::nullopt;
    }
    return std::move(*stream);
}

// Prints what validate found (the counts, the rows' problems by reason, the ledger's holds and
// the plan) as text or one JSON object, and returns the exit code: 0 when the campaign could be
// sent; 2 when no row can go, too many are invalid (`survey`, said on stderr too) or the plan
// cannot be made.
int summarise(const campaign::Campaign& c, const campaign::ListSurvey& survey, const RowCounts& counts,
              runner::Survey& surveyed, runner::AccountBook* book, ListRows list, Output& out) {
    const ReasonList reasons{counts.invalid_reasons.most_common(), counts.skipped_reasons.most_common()};
    const std::string totals =
        fmt::format("{}: {} rows: {} to send, {} invalid, {} duplicate{}", c.file, counts.rows, counts.ok,
                    counts.invalid, counts.duplicates, counts.duplicates == 1 ? "" : "s");
    std::string text = totals + "\n" + reason_lines(reasons, c.recipients.file, list);
    nlohmann::ordered_json fields = {
        {"message", totals},
        {"file", c.file},
        {"csv", c.recipients.file},
        {"rows", counts.rows},
        {"to_send", counts.ok},
        {"invalid", counts.invalid},
        {"duplicates", counts.duplicates},
        {"held", cause_counts_json(counts.held)},
        {"reasons", reasons_json(reasons)},
        {"ledger", book != nullptr ? nlohmann::ordered_json(book->path()) : nlohmann::ordered_json()},
        {"plan", nullptr}};
    const auto finish = [&](ExitCode code) {
        fields["exit_code"] = static_cast<int>(code);
        out.result(code == k_exit_done ? Level::info : Level::error, "validate", text, fields);
        return code;
    };
    if (auto refused = campaign::too_many_invalid(c, survey)) {
        finish(k_exit_bad_input);
        out.error(*refused, k_exit_bad_input,
                  fmt::format("{}\nwacamp: error: {} would be refused: too many invalid rows\n", *refused, c.file));
        return k_exit_bad_input;
    }
    if (counts.ok == 0) {
        text += "no row can be sent\n";
        return finish(k_exit_bad_input);
    }
    text += region_paused_line(counts.held);
    if (book != nullptr) {
        text += ledger_line(ledger_causes(counts.held), book->path());
    }
    util::SystemClock clock;
    auto plan = runner::make_plan(c, surveyed.plan_inputs(clock.wall_now(), book));
    if (!plan) {
        finish(k_exit_bad_input);
        out.error(plan.error().message, k_exit_bad_input);
        return k_exit_bad_input;
    }
    const auto& cost = surveyed.cost;
    text += runner::describe(*plan, runner::shown_zone(c)) + campaign::describe(cost);
    fields["plan"] = plan_json(*plan);
    fields["plan"]["cost"] = cost_json(runner::summary_of(cost));
    // validate reads no result log: the whole plan's estimate is held to the budget.
    if (auto refused = runner::over_budget(c, {}, cost)) {
        finish(k_exit_bad_input);
        out.error(*refused, k_exit_bad_input);
        return k_exit_bad_input;
    }
    return finish(k_exit_done);
}

int validate(const ValidateOptions& opts, Output& out) {
    const std::string& path = opts.campaign;
    auto checked = check_campaign_or_report(path, campaign::SecretsPolicy::optional,
                                            opts.offline ? TemplateList::offline : TemplateList::read, out);
    if (!checked.campaign) {
        return checked.exit_code;
    }
    auto& c = checked.campaign;
    std::optional<runner::MediaReport> media;
    auto stream = open_rows(*c, opts, media, out);
    if (!stream) {
        return k_exit_bad_input;
    }
    auto book = read_account_or_report(*c, out);
    if (!book) {
        return k_exit_bad_input;
    }
    util::SystemClock clock;
    auto paused = campaign::PausedRegions::of(*c);
    if (!paused) {
        out.error(paused.error().message, k_exit_bad_input);
        return k_exit_bad_input;
    }
    runner::ScreenedRows screened(*stream, book->get(), runner::campaign_key(c->name, clock.wall_now()), clock,
                                  *paused ? &**paused : nullptr);
    RowCounts counts;
    auto count = [&](const campaign::Recipient& r, const runner::Screening& screening, bool) -> util::Result<void> {
        count_row(r, screening, counts);
        if (opts.every_row && r.verdict != campaign::Verdict::ok) {
            list_row(out, c->recipients.file, r);
        }
        return {};
    };
    auto surveyed = runner::survey(*c, screened, clock, count);
    if (!surveyed) {
        out.error(surveyed.error().message, k_exit_bad_input);
        return k_exit_bad_input;
    }
    if (surveyed->unread) {
        const auto& problem = surveyed->unread->message;
        out.error(problem, k_exit_bad_input,
                  fmt::format("{}\nwacamp: error: {} could not be checked to the end\n", problem, path));
        return k_exit_bad_input;
    }
    return summarise(*c, stream->survey(), counts, *surveyed, book->get(),
                     opts.every_row ? ListRows::yes : ListRows::no, out);
}
}  // namespace

Action add_validate(CLI::App& app) {
    auto opts = std::make_shared<ValidateOptions>();
    auto* sub = app.add_subcommand(
        "validate",
        "Check a campaign file and every CSV row; no log, no network (unless --check-media, or a template campaign's "
        "one read of the template list)");
    sub->add_option("CAMPAIGN", opts->campaign, "Campaign file (YAML)")->required();
    sub->add_flag("--check-media", opts->check_media,
                  "Also fetch each distinct image URL (or template header media link) once (HEAD) and check "
                  "WhatsApp takes it: a JPEG or PNG of at most 5 MB, an MP4 or 3GPP video of at most 16 MB, a "
                  "document of at most 100 MB");
    sub->add_flag("--offline", opts->offline, "Do not read the template list (a template campaign's check is skipped)");
    sub->add_flag("--rows", opts->every_row,
                  "List every row that will not be sent, one line each (FILE:LINE: row N: reason), besides the "
                  "reasons grouped with their counts");
    add_log_options(*sub, opts->log);
    return
        [opts] { return with_output(opts->log, {opts->campaign}, [&](Output& out) { return validate(*opts, out); }); };
}

}  // namespace cli
