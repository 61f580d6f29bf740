// wacamp run: send a campaign, or rehearse it with --dry-run.

#include <fmt/format.h>
#include <CLI/CLI.hpp>
#include <memory>
#include <nlohmann/json.hpp>

#include "campaign/pricing.hpp"
#include "cli/campaign_check.hpp"
#include "cli/commands.hpp"
#include "cli/exit_code.hpp"
#include "cli/metrics_options.hpp"
#include "cli/output.hpp"
#include "cli/plan_json.hpp"
#include "cli/run_common.hpp"
#include "cli/send_causes.hpp"
#include "cli/signals.hpp"
#include "cli/terminal_ui.hpp"
#include "runner/budget.hpp"
#include "runner/dry_run.hpp"
#include "runner/send.hpp"
#include "runner/shown_zone.hpp"
#include "util/clock.hpp"
#include "util/text.hpp"
#include "util/time.hpp"
#include "util/zone.hpp"

namespace cli {

namespace {

struct RunOptions {
    std::string campaign;
    bool dry_run = false;
    bool check_media = false;
    bool offline = false;  // a template campaign's dry run without the template list
    std::size_t preview = 3;
    long long limit = 0;
    std::string results;
    bool force = false;
    bool yes = false;
    bool no_progress = false;
    bool late_ok = false;
    std::optional<double> budget;  // --budget: pricing.budget for this run
    std::string sync = "interval";
    LogOptions log;
    MetricsOptions metrics;
};

// The most messages --preview prints: they are held in memory until the end of the dry run.
// `report --format csv` on the dry-run log has every one.
constexpr std::size_t k_max_preview = 1000;

// The first rendered messages as objects (the body is the send-message JSON).
nlohmann::ordered_json samples_json(const runner::DryRunReport& report) {
    auto samples = nlohmann::ordered_json::array();
    for (const auto& s : report.samples) {
        auto body = nlohmann::ordered_json::parse(s.body, nullptr, false);
        samples.push_back({{"row", s.row},
                           {"wa_id", s.wa_id},
                           {"body", body.is_discarded() ? nlohmann::ordered_json(s.body) : body}});
    }
    return samples;
}

// With --check-media, the images checked first; nothing (after printing the error) when the
// check failed, and an empty report without it.
std::optional<runner::MediaReport> media_for_dry_run(const campaign::Campaign& c, const RunOptions& opts, Output& out) {
    if (!opts.check_media) {
        return runner::MediaReport{};
    }
    auto stream = campaign::RecipientStream::open(c);
    if (!stream) {
        out.error(stream.error().message, k_exit_bad_input);
        return std::nullopt;
    }
    return check_media_or_report(c, *stream, out);
}

// Returns " (duplicate 2, suppressed 1)": the skipped rows by cause; "" when none was skipped.
std::string skipped_causes(const results::CauseCounts& causes) {
    const std::string parts = cause_list(causes);
    return parts.empty() ? "" : " (" + parts + ")";
}

// What the dry run asked of the network: the template list (a template campaign, unless
// --offline), the image URLs (--check-media), or nothing.
std::string network_used(const campaign::Campaign& c, const RunOptions& opts) {
    const bool templates = c.message.type == campaign::MessageType::template_message && !opts.offline;
    if (templates && opts.check_media) {
        return "only the template list was read and the image URLs fetched";
    }
    if (templates) {
        return "only the template list was read";
    }
    return opts.check_media ? "only the image URLs were fetched" : "no network was used";
}

// With a window per recipient: the rows that would be sent per zone, most first, and when each
// zone's window next opens; how many took the fallback zone.
std::string zone_lines(const runner::DryRunReport& report, util::TimePoint now) {
    constexpr std::size_t k_zones_shown = 10;
    if (report.zones.empty()) {
        return {};
    }
    std::string text = fmt::format("  zones ({}, rows that would be sent):\n", report.zones.size());
    for (std::size_t i = 0; i < report.zones.size() && i < k_zones_shown; ++i) {
        const auto& z = report.zones[i];
        const std::string opens = !z.opens          ? "its window never opens"
                                  : *z.opens <= now ? "its window is open now"
                                                    : "its window opens " + util::format_moment(*z.opens, z.zone);
        text += fmt::format("    {}: {} row(s), {}\n", util::printable(z.zone), z.rows, opens);
    }
    if (report.zones.size() > k_zones_shown) {
        text += fmt::format("    and {} more zone(s)\n", report.zones.size() - k_zones_shown);
    }
    text +=
        fmt::format("    {} row(s) on the fallback zone (schedule.window.fallback_timezone)\n", report.fallback_rows);
    return text;
}

nlohmann::ordered_json zones_json(const runner::DryRunReport& report) {
    auto zones = nlohmann::ordered_json::array();
    for (const auto& z : report.zones) {
        zones.push_back(
            {{"zone", z.zone},
             {"rows", z.rows},
             {"opens", z.opens ? nlohmann::ordered_json(util::format_timestamp(*z.opens)) : nlohmann::ordered_json()}});
    }
    return zones;
}

int run_dry(const campaign::Campaign& c, const RunOptions& opts, Output& out) {
    util::SystemClock clock;
    const auto media = media_for_dry_run(c, opts, out);
    if (!media) {
        return k_exit_bad_input;
    }
    auto book = read_account_or_report(c, out);
    if (!book) {
        return k_exit_bad_input;
    }
    auto report = runner::dry_run(c, opts.results.empty() ? c.results : opts.results, opts.preview, clock,
                                  {.media = &media->verdicts, .book = book->get()});
    if (!report) {
        out.error(report.error().message, k_exit_bad_input);
        return k_exit_bad_input;
    }
    using results::Status;
    const std::string headline = fmt::format("{}: dry run — nothing was sent, {}.", c.name, network_used(c, opts));
    std::string text = headline + "\n";
    for (const auto& s : report->samples) {
        text += fmt::format("  row {} → {}\n    {}\n", s.row, s.wa_id, s.body);
        text += s.preview;  // a template message, as the phone shows it
    }
    for (const auto& p : report->problems) {
        text += fmt::format("  invalid: {}\n", p);
    }
    const auto& n = report->counts;
    text += fmt::format("  would send {} · invalid {} · skipped {}{}   ({} rows in {})\n", n[Status::dry_run],
                        n[Status::invalid], n[Status::skipped], skipped_causes(report->causes), n.total(),
                        util::format_duration(report->duration, util::DurationStyle::compact));
    if (*book != nullptr) {
        text += fmt::format("  account: {} (ledger {}, read, not written)\n", util::printable((*book)->account()),
                            (*book)->path());
    }
    const std::string plan = runner::describe(report->plan, runner::shown_zone(c)) + campaign::describe(report->cost);
    for (std::size_t at = 0, end = 0; at < plan.size(); at = end + 1) {
        end = plan.find('\n', at);
        text += "  " + plan.substr(at, end - at + 1);  // indented under the dry run
    }
    text += zone_lines(*report, clock.wall_now());
    text += fmt::format("  dry-run log: {}\n", report->results_path);
    auto plan_fields = plan_json(report->plan);
    plan_fields["cost"] = cost_json(runner::summary_of(report->cost));
    // The dry run reads no result log of the campaign's: the whole plan's estimate is held to the
    // budget, after the plan is shown.
    const auto refused = runner::over_budget(c, {}, report->cost);
    const ExitCode code = refused ? k_exit_bad_input : k_exit_done;
    out.result(refused ? Level::error : Level::info, "dry_run", text,
               {{"message", headline},
                {"campaign", c.name},
                {"would_send", n[Status::dry_run]},
                {"invalid", n[Status::invalid]},
                {"skipped", n[Status::skipped]},
                {"causes", cause_counts_json(report->causes)},
                {"rows", n.total()},
                {"duration_ms", report->duration.count()},
                {"samples", samples_json(*report)},
                {"problems", report->problems},
                {"images_checked", media->checked},
                {"images_refused", media->verdicts.refused()},
                {"account", *book != nullptr ? nlohmann::ordered_json((*book)->account()) : nlohmann::ordered_json()},
                {"ledger", *book != nullptr ? nlohmann::ordered_json((*book)->path()) : nlohmann::ordered_json()},
                {"plan", std::move(plan_fields)},
                {"zones", zones_json(*report)},
                {"fallback_rows", report->fallback_rows},
                {"results", report->results_path},
                {"exit_code", static_cast<int>(code)}});
    if (refused) {
        out.error(*refused, k_exit_bad_input);
    }
    return code;
}

int run_campaign(const RunOptions& opts, Output& out) {
    const AssumeYes yes = opts.yes ? AssumeYes::yes : AssumeYes::no;
    if (out.format() == LogFormat::json && !opts.dry_run && would_ask(yes)) {
        // A log collector cannot answer, and a person would not see the question: refuse
        // rather than send unasked from a terminal.
        out.error("--log-format json never asks for confirmation: add --yes to send from a terminal", k_exit_bad_input);
        return k_exit_bad_input;
    }
    // A dry run exports nothing (and reads no WACAMP_METRICS_PUSH).
    const auto metrics =
        opts.dry_run ? std::optional(observe::ExportTargets{}) : check_metrics_or_report(opts.metrics, out);
    if (!metrics) {
        return k_exit_bad_input;
    }
    auto secrets = opts.dry_run ? campaign::SecretsPolicy::optional : campaign::SecretsPolicy::required;
    // The template is checked with the rest of the file: every problem is said at once.
    auto checked = check_campaign_or_report(opts.campaign, secrets,
                                            opts.offline ? TemplateList::offline : TemplateList::read, out);
    if (!checked.campaign) {
        return checked.exit_code;
    }
    auto& c = checked.campaign;
    if (opts.budget) {
        c->pricing.budget = *opts.budget;
    }
    // --results names the result log in place of the campaign's: nothing may be written over it.
    if (log_file_clashes(*c, out, opts.results) || metrics_file_clashes(*c, *metrics, out, opts.results)) {
        return k_exit_bad_input;
    }
    if (opts.dry_run) {
        return run_dry(*c, opts, out);
    }
    const auto& stops = install_stop_handlers();
    TerminalUi ui(out, opts.no_progress ? ProgressMode::off : ProgressMode::automatic, yes);
    runner::SendOptions send{
        .results_path = opts.results,
        .limit = opts.limit,
        .changed_inputs = opts.force ? runner::ChangedInputs::accept : runner::ChangedInputs::refuse,
        .durability = durability_of(opts.sync),
        .late_ok = opts.late_ok ? runner::LateOk::yes : runner::LateOk::no};
    return send_and_summarise(*c, send, ui, stops, out, *metrics);
}

}  // namespace

Action add_run(CLI::App& app) {
    auto opts = std::make_shared<RunOptions>();
    auto* sub = app.add_subcommand("run", "Send a campaign (continues from its result log if one exists)");
    sub->add_option("CAMPAIGN", opts->campaign, "Campaign file (YAML)")->required();
    auto* dry_run = sub->add_flag("--dry-run", opts->dry_run,
                                  "Validate and render every message, write a dry-run log, send nothing");
    sub->add_option(
           "--preview", opts->preview,
           fmt::format("With --dry-run: how many rendered messages to print (default 3, at most {})", k_max_preview))
        ->check(CLI::Range(std::size_t{0}, k_max_preview))
        ->needs(dry_run);
    sub->add_flag("--check-media", opts->check_media,
                  "With --dry-run: also fetch each distinct image URL (or template header media link) once (HEAD) "
                  "and check WhatsApp takes it: a JPEG or PNG of at most 5 MB, an MP4 or 3GPP video of at most 16 MB, "
                  "a document of at most 100 MB (a real run checks when the campaign says message.check_media: true)")
        ->needs(dry_run);
    sub->add_flag("--offline", opts->offline,
                  "With --dry-run: do not read the template list (a template campaign's check is skipped)")
        ->needs(dry_run);
    sub->add_option("--limit", opts->limit, "Stop after N recipients have been dispatched")
        ->check(CLI::Validator(
            [](const std::string& text) {
                const bool whole = !text.empty() && text.find_first_not_of("0123456789") == std::string::npos &&
                                   text.find_first_not_of('0') != std::string::npos;
                return whole ? std::string() : "must be a whole number of 1 or more, got " + text;
            },
            "N"));
    sub->add_option("--results", opts->results, "Result log path (default: the campaign's)");
    sub->add_flag("--force", opts->force, "Continue even if the campaign file or CSV changed");
    sub->add_flag("--yes", opts->yes, "Do not ask for confirmation on a terminal");
    sub->add_flag("--no-progress", opts->no_progress, "Do not show progress");
    add_late_ok_flag(*sub, opts->late_ok);
    add_budget_option(*sub, opts->budget);
    add_sync_option(*sub, opts->sync);
    add_log_options(*sub, opts->log);
    add_metrics_options(*sub, opts->metrics, dry_run);
    return [opts] {
        return with_output(opts->log, {opts->campaign, opts->results},
                           [&](Output& out) { return run_campaign(*opts, out); });
    };
}

}  // namespace cli
