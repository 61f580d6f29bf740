#include "cli/run_common.hpp"

#include <fmt/format.h>
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "cli/campaign_check.hpp"
#include "cli/exit_code.hpp"
#include "cli/metrics_options.hpp"
#include "cli/send_summary.hpp"
#include "pace/redis_pace.hpp"
#include "results/log_path.hpp"
#include "results/log_reader.hpp"
#include "runner/preflight.hpp"
#include "runner/secrets.hpp"
#include "service/base_url.hpp"
#include "service/curl_transport.hpp"
#include "util/clock.hpp"
#include "util/duration.hpp"
#include "util/env.hpp"
#include "util/postgresql_url.hpp"

namespace cli {

namespace {

// Connections kept for image hosts: as many as the check keeps requests in flight.
constexpr long k_media_connections = 16;

}  // namespace

void add_log_options(CLI::App& sub, LogOptions& options) {
    sub.add_option("--log-format", options.format,
                   "text (for people, default) or json (one JSON object per line, for log collectors)")
        ->check(CLI::IsMember({"text", "json"}));
    sub.add_option("--log-file", options.file,
                   "Also append the diagnostics, progress (every 10 s) and the summary to this file, in the "
                   "--log-format; rotated at 10 MiB, five older files kept (NAME.log rotates to NAME.1.log … "
                   "NAME.5.log; a file without an extension to NAME.1 … NAME.5)");
}

void add_sync_option(CLI::App& sub, std::string& sync) {
    sub.add_option("--sync", sync,
                   "When the result log is forced to disk: interval (at most every second, default), "
                   "every (after each write: survives a power loss; costs a disk flush a message, "
                   "docs/safety.md), none")
        ->check(CLI::IsMember({"interval", "every", "none"}));
}

void add_late_ok_flag(CLI::App& sub, bool& late_ok) {
    sub.add_flag("--late-ok", late_ok,
                 "Send even when the campaign is too late (past schedule.not_after, or not started by "
                 "schedule.start_at + schedule.max_delay), for this run only");
}

void add_budget_option(CLI::App& sub, std::optional<double>& budget) {
    sub.add_option("--budget", budget,
                   "The most the campaign may cost, in its rate card's currency, for this run only (in place of "
                   "pricing.budget; not a change of the campaign file)")
        ->check(CLI::PositiveNumber);
}

namespace {

// Reports that the log file, or `name` it would be rotated to, is `what` (the campaign file, its
// CSV, …) and stops writing it.
int refuse_log_file(const std::string& name, std::string_view what, Output& out) {
    const std::string path = out.log_file_path();
    out.close_log_file();  // not a line more into that file
    const std::string which = name == path ? fmt::format("--log-file {} is", path)
                                           : fmt::format("--log-file {} is rotated to {}, which is", path, name);
    out.error(
        fmt::format("{} {}: a log must not be written into it nor rotated onto it; nothing was done", which, what),
        k_exit_bad_input);
    return k_exit_bad_input;
}

// The campaign's own files, each with what it is: nothing may be written over them. `results`:
// the result log --results names, if any.
std::vector<std::pair<std::string, std::string>> own_files(const campaign::Campaign& c, const std::string& results) {
    std::vector<std::pair<std::string, std::string>> files = {
        {c.file, "the campaign file"}, {c.recipients.file, "the recipient CSV"}, {c.results, "the result log"}};
    if (!results.empty()) {
        files.emplace_back(results, "the result log");
    }
    if (c.account.ledger && !util::is_postgresql_url(*c.account.ledger)) {
        files.emplace_back(*c.account.ledger, "the account's ledger");
    }
    for (const auto& file : c.suppression.files) {
        files.emplace_back(file, "a suppression file");
    }
    return files;
}

}  // namespace

int with_output(const LogOptions& options, const std::vector<std::string>& inputs,
                const std::function<int(Output&)>& body) {
    Output out(log_format_of(options.format));
    if (!options.file.empty()) {
        if (auto opened = out.log_to_file(options.file); !opened) {
            out.error(fmt::format("{}; nothing was done", opened.error().message), k_exit_bad_input);
            return k_exit_bad_input;
        }
        for (const auto& input : inputs) {
            if (auto name = out.logs_into(input)) {
                return refuse_log_file(*name, fmt::format("the file {} given to this command", input), out);
            }
        }
    }
    return reporting_fatal_errors(out, [&] { return body(out); });
}

bool log_file_clashes(const campaign::Campaign& c, Output& out, const std::string& results) {
    for (const auto& [path, what] : own_files(c, results)) {
        if (auto name = out.logs_into(path)) {
            refuse_log_file(*name, fmt::format("{} of campaign {} ({})", what, c.name, path), out);
            return true;
        }
    }
    return false;
}

bool metrics_file_clashes(const campaign::Campaign& c, const observe::ExportTargets& metrics, Output& out,
                          const std::string& results) {
    if (metrics.file.empty()) {
        return false;
    }
    auto files = own_files(c, results);
    if (!out.log_file_path().empty()) {
        files.emplace_back(out.log_file_path(), "the --log-file");
    }
    for (const auto& [path, what] : files) {
        if (same_file(metrics.file, path)) {
            out.error(fmt::format("--metrics-file {} is {} of campaign {} ({}): it would be replaced by the metrics; "
                                  "nothing was done",
                                  metrics.file, what, c.name, path),
                      k_exit_bad_input);
            return true;
        }
    }
    return false;
}

int reporting_fatal_errors(Output& out, const std::function<int()>& body) {
    // The same as cli::run's catch, but in the command's format.
    try {
        return body();
    } catch (const std::exception& e) {
        out.error(e.what(), k_exit_stopped);
        return k_exit_stopped;
    }
}

std::optional<campaign::Campaign> load_campaign_or_report(const std::string& path, campaign::SecretsPolicy secrets,
                                                          Output& out) {
    util::ProcessEnvironment env;
    auto loaded = campaign::load_campaign(path, env, {.secrets = secrets});
    if (!loaded) {
        report_unusable(path, {loaded.error().message}, out);
        return std::nullopt;
    }
    if (!adopt_campaign(*loaded, out)) {
        return std::nullopt;
    }
    return std::move(*loaded);
}

std::optional<int> resolve_template_or_report(campaign::Campaign& c, TemplateList list, Output& out) {
    auto refused = check_template(c, list, out);
    if (!refused) {
        return std::nullopt;
    }
    out.error(refused->message, refused->code);
    return refused->code;
}

int send_and_summarise(const campaign::Campaign& c, const runner::SendOptions& options, runner::RunUi& ui,
                       const std::atomic<int>& stops, Output& out, const observe::ExportTargets& metrics) {
    // Images are checked through a transport of their own: their hosts are not the service,
    // and do not share its CA file.
    std::optional<service::CurlTransport> media;
    if (c.message.check_media) {
        media.emplace(service::CurlOptions{.ca_file = {}, .max_connections = k_media_connections});
    }
    // As many connections as the queue may keep in flight, and a few more: over HTTP/1.1 each
    // request in flight needs a connection of its own, so the cap never holds one back; over
    // HTTP/2 they share far fewer (see CurlTransport's PIPEWAIT).
    const long connections = static_cast<long>(c.rate.concurrency.value_or(c.rate.max_concurrency)) + 4;
    service::CurlTransport transport({.ca_file = c.service.ca_file,
                                      .max_connections = connections,
                                      .max_host_connections = connections,
                                      .http = c.service.http,
                                      .warn = [&ui](const std::string& w) { ui.warning(w); }});
    util::SystemClock clock;
    // The account's pace shared with its other runners: no connection until the first job.
    std::optional<pace::RedisPace> pace;
    if (c.account.rate_store) {
        pace.emplace(
            *c.account.rate_store, c.account.name, c.rate.per_second, c.rate.burst, clock,
            pace::RedisPaceOptions{.warn = [&ui](const std::string& w) { ui.warning(w); }, .stop_requests = &stops});
    }
    RunExport exported(c.name, metrics, clock, ui);
    auto report = runner::send_campaign(
        c, options,
        {.transport = transport,
         .clock = clock,
         .ui = ui,
         .stop_requests = stops,
         .media_transport = media ? &*media : nullptr,
         .watch = exported.watch(),
         .replay = {},
         .open_book = [&c](account::Sync sync) { return open_account_book(c, account::Access::read_write, sync); },
         .pace = pace ? &*pace : nullptr,
         .warm = runner::WarmConnections::yes});
    ui.clear_line();
    if (!report) {
        const auto& message = report.error().message;
        out.error(message, k_exit_bad_input,
                  fmt::format("wacamp: error: {}\nwacamp: error: nothing was sent\n", message));
        return k_exit_bad_input;
    }
    const int code = exit_code_for(*report);
    if (report->declined) {
        out.result(level_for(code), "declined", "Not sent.\n",
                   {{"message", "not sent: the confirmation was declined"}, {"exit_code", code}});
        out.error("not sent: the confirmation was declined", static_cast<ExitCode>(code));
    } else {
        print_send_summary(c, *report, code, out);
    }
    // After the summary: the last push may wait for the Pushgateway.
    exported.finish(code, stops.load());
    return code;
}

std::optional<runner::MediaReport> check_media_or_report(const campaign::Campaign& c, campaign::RecipientStream& stream,
                                                         Output& out) {
    service::CurlTransport transport({.ca_file = {}, .max_connections = k_media_connections});
    auto report = runner::check_media(c, stream, nullptr, {}, {.transport = transport});
    if (!report) {
        out.error(report.error().message, k_exit_bad_input);
        return std::nullopt;
    }
    for (const auto& warning : report->warnings) {
        out.warning(warning);
    }
    if (!runner::media_kind(c)) {
        out.notice(c.message.type == campaign::MessageType::template_message
                       ? "--check-media: the template has no media header to check"
                       : "--check-media: a text campaign has no image to check");
    } else if (report->verdicts.refused() > 0) {
        out.warning(runner::media_summary(*report));
    } else {
        out.notice(runner::media_summary(*report));
    }
    return std::move(*report);
}

util::Result<std::unique_ptr<runner::AccountBook>> open_account_book(const campaign::Campaign& c,
                                                                     account::Access access, account::Sync sync) {
    if (!c.account.ledger) {
        return std::unique_ptr<runner::AccountBook>();
    }
    TRY_ASSIGN(auto ledger, account::open_ledger(*c.account.ledger, runner::ledger_options(c, access, sync)));
    return std::make_unique<runner::AccountBook>(c, std::move(ledger), access);
}

std::optional<std::unique_ptr<runner::AccountBook>> read_account_or_report(const campaign::Campaign& c, Output& out) {
    auto book = open_account_book(c, account::Access::read_only);
    if (!book) {
        out.error(book.error().message, k_exit_bad_input);
        return std::nullopt;
    }
    if (*book != nullptr) {
        auto stranger = runner::unknown_account_warning((*book)->ledger(), (*book)->account(), (*book)->path());
        if (!stranger) {
            out.error(stranger.error().message, k_exit_bad_input);
            return std::nullopt;
        }
        if (!stranger->empty()) {
            out.warning(*stranger);
        }
        util::SystemClock clock;
        auto listed = (*book)->take_lists(clock.wall_now(), [&](const std::string& warning) { out.warning(warning); });
        if (!listed) {
            out.error(listed.error().message, k_exit_bad_input);
            return std::nullopt;
        }
    }
    return std::move(*book);
}

int exit_code_for(const runner::SendReport& r) {
    if (r.declined) {
        return k_exit_stopped;
    }
    if ((r.reason != queue::StopReason::completed && r.reason != queue::StopReason::limit) || r.cleanup.interrupted) {
        return k_exit_stopped;
    }
    if (r.counts[results::Status::failed] > 0 || r.counts[results::Status::unknown] > 0 ||
        r.cleanup.batches_failed > 0) {
        return k_exit_failures;
    }
    return k_exit_done;
}

results::Durability durability_of(const std::string& sync) {
    if (sync == "every") {
        return results::Durability::every_record;
    }
    if (sync == "none") {
        return results::Durability::none;
    }
    return results::Durability::interval;
}

namespace {

// Reads the campaign header of the result log at `path`: the campaign file it names.
util::Result<std::string> campaign_file_of_log(const std::string& path) {
    TRY(results::resolve_log_path(path));  // reading a FIFO would hang, and the run would write there
    TRY_ASSIGN(auto reader, results::LogReader::open(path));
    results::Record record;
    TRY_ASSIGN(const bool any, reader.next(record));
    if (!any && reader.warning_count() > 0) {
        return util::fail(path + ": not a wacamp result log (no line of it is a record)");
    }
    if (!any) {
        // Only an older wacamp, killed between creating the log and writing its first line, leaves this.
        return util::fail(path +
                          ": is empty: the run that created it stopped before it recorded anything, so "
                          "nothing was sent; start the campaign again with: wacamp run CAMPAIGN.yaml");
    }
    const auto* header = std::get_if<results::CampaignHeader>(&record);
    if (header == nullptr) {
        return util::fail(path + ": not a wacamp result log (its first line is not a campaign record)");
    }
    if (header->mode != results::Mode::send) {
        return util::fail(path + ": is the log of a dry run; there is nothing to resume");
    }
    return header->campaign_file;
}

}  // namespace

std::optional<campaign::Campaign> load_campaign_of_log(const std::string& path, Output& out) {
    auto campaign_file = campaign_file_of_log(path);
    if (!campaign_file) {
        out.error(campaign_file.error().message, k_exit_bad_input);
        return std::nullopt;
    }
    return load_campaign_or_report(*campaign_file, campaign::SecretsPolicy::required, out);
}

}  // namespace cli
